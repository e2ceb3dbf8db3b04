# SPDX-License-Identifier: MIT
"$VT_GEN" simple t.vtrace; "$VRAMTRACE" top t.vtrace --by colour
