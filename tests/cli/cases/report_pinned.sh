# SPDX-License-Identifier: MIT
# Pinned host memory (64 MiB) and managed memory (8 MiB) are kept out of the device peak (1 MiB).
"$VT_GEN" pinned t.vtrace && "$VRAMTRACE" report --frames 1 t.vtrace
