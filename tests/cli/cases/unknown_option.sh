"$VRAMTRACE" report --frobnicate t.vtrace
