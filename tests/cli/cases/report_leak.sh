# SPDX-License-Identifier: MIT
# 2.75 MiB in 4 allocations never freed; one free of an address never allocated.
"$VT_GEN" leak t.vtrace && "$VRAMTRACE" report --frames 1 t.vtrace
