"$VRAMTRACE" frobnicate
