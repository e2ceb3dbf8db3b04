# --context overrides NVML's figure; a memory all taken by the context fails at once.
"$VT_GEN" train-4 t.vtrace && "$VRAMTRACE" fit t.vtrace --context 1GiB --memory 1GiB --frames 1
