# SPDX-License-Identifier: MIT
# Python frames (PYFRAME and STRING records) and an NVTX scope.
"$VT_GEN" python t.vtrace && "$VRAMTRACE" report t.vtrace
