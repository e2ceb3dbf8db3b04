# An unknown --alloc-conf knob, a bad allocator, no trace: one line each, exit 2.
"$VT_GEN" train-4 t.vtrace
"$VRAMTRACE" fit t.vtrace --alloc-conf colour:blue; echo "exit $?"
"$VRAMTRACE" fit t.vtrace --allocator magic; echo "exit $?"
"$VRAMTRACE" fit t.vtrace --alloc-conf max_split_size_mb:8; echo "exit $?"
"$VRAMTRACE" fit; echo "exit $?"
"$VRAMTRACE" fit missing.vtrace; echo "exit $?"
