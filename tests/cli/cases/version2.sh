# SPDX-License-Identifier: MIT
"$VT_GEN" version2 t.vtrace; "$VRAMTRACE" report t.vtrace
