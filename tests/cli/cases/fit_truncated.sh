# A trace cut short is fitted as far as it goes, with the reader's one warning.
"$VT_GEN" truncated t.vtrace && "$VRAMTRACE" fit t.vtrace --memory 1GiB
