# SPDX-License-Identifier: MIT
# The same program at two batch sizes: the peak grows 3.5 MiB; activations grew
# 4 MiB, the kv cache shrank 512 KiB.
"$VT_GEN" batch-small a.vtrace && "$VT_GEN" batch-big b.vtrace && "$VRAMTRACE" diff --frames 2 a.vtrace b.vtrace
