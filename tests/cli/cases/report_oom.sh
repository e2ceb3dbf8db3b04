# SPDX-License-Identifier: MIT
"$VT_GEN" oom t.vtrace && "$VRAMTRACE" report --frames 2 t.vtrace
