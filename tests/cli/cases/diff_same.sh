# SPDX-License-Identifier: MIT
# A run against itself: nothing grew.
"$VT_GEN" simple a.vtrace && "$VRAMTRACE" diff --frames 1 a.vtrace a.vtrace
