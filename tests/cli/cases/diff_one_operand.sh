"$VT_GEN" simple t.vtrace; "$VRAMTRACE" diff t.vtrace
