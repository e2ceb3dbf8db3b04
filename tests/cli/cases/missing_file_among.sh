# SPDX-License-Identifier: MIT
"$VT_GEN" simple t.vtrace; "$VRAMTRACE" report t.vtrace no-such-file.vtrace
