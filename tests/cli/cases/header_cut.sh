# SPDX-License-Identifier: MIT
"$VT_GEN" header-cut t.vtrace; "$VRAMTRACE" report t.vtrace
