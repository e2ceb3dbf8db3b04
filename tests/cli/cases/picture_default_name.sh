# timeline and flamegraph without -o: the trace's name with .timeline/.flamegraph here.
mkdir d && "$VT_GEN" simple d/run-1.vtrace
"$VRAMTRACE" timeline d/run-1.vtrace 2>&1 | sed -E 's/[0-9]+ bytes/N bytes/'
"$VRAMTRACE" flamegraph d/run-1.vtrace --format svg 2>&1 | sed -E 's/[0-9]+ bytes/N bytes/'
ls
