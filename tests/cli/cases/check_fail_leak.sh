# SPDX-License-Identifier: MIT
"$VT_GEN" leak t.vtrace && "$VRAMTRACE" check t.vtrace --max-peak "1.5 GB" --max-leak 1MiB
