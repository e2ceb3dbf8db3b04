# SPDX-License-Identifier: MIT
# 4.5 MiB peak against a 4 MiB bound: exit 1, over by 512 KiB.
"$VT_GEN" simple t.vtrace && "$VRAMTRACE" check t.vtrace --max-peak 4MiB
