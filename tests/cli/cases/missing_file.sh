"$VRAMTRACE" report no-such-file.vtrace
