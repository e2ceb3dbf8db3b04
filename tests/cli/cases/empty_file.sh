: > t.vtrace; "$VRAMTRACE" dump t.vtrace
