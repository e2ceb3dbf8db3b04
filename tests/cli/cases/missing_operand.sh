"$VRAMTRACE" report
