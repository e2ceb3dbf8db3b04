# SPDX-License-Identifier: MIT
"$VT_GEN" multi-a a.vtrace && "$VT_GEN" multi-b b.vtrace && "$VRAMTRACE" report --json --top 2 a.vtrace b.vtrace
