# A workspace the cuda-libraries rules name, taken from the framework's own allocator
# (cuMemAllocAsync, as PyTorch's cuBLAS workspaces are under --per-tensor), stays inside
# the allocator model: the peaks equal fit_train's and nothing is "outside the allocator".
printf '[cuda-libraries]\nworkspace function~^alloc_workspace$\n' > lib.rules
"$VT_GEN" train-12 t.vtrace && "$VRAMTRACE" fit t.vtrace --rules lib.rules --memory 1GiB --frames 1
