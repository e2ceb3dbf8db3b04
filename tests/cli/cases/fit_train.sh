# A per-tensor training loop at batch 12 through PyTorch's caching allocator: fits in
# 1 GiB, not in 500 MiB (300 MiB of it the context NVML saw), exit 1; the first
# allocation that fails is a temporary of the workspace site.
"$VT_GEN" train-12 t.vtrace && "$VRAMTRACE" fit t.vtrace --memory 1GiB --memory 500MiB --frames 2
