# SPDX-License-Identifier: MIT
# --frames 1: one line per site; --top 1: the largest site only.
"$VT_GEN" simple t.vtrace && "$VRAMTRACE" report --frames 1 --top 1 t.vtrace
