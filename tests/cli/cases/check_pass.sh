# SPDX-License-Identifier: MIT
"$VT_GEN" simple t.vtrace && "$VRAMTRACE" check t.vtrace --max-peak 20GiB --max-leak 0
