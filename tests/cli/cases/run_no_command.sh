"$VRAMTRACE" run -o x.vtrace
