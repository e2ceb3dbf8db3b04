# SPDX-License-Identifier: MIT
"$VT_GEN" nvml t.vtrace && "$VRAMTRACE" report --json --top 1 t.vtrace
