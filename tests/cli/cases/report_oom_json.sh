# SPDX-License-Identifier: MIT
"$VT_GEN" oom t.vtrace && "$VRAMTRACE" report --json --top 3 t.vtrace
