# SPDX-License-Identifier: MIT
"$VT_GEN" simple t.vtrace && "$VRAMTRACE" report --json --top 2 t.vtrace
