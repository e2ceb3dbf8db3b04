"$VT_GEN" simple t.vtrace && "$VRAMTRACE" check t.vtrace
