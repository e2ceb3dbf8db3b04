"$VRAMTRACE" report t.vtrace --top
