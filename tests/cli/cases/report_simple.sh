# SPDX-License-Identifier: MIT
# A simple program with a known peak: 4.5 MiB at 4 ms (weights 2 MiB, activations
# 2 MiB, kv cache 512 KiB); symbolized sites with the CUDA plumbing frames folded away.
"$VT_GEN" simple t.vtrace && "$VRAMTRACE" report t.vtrace
