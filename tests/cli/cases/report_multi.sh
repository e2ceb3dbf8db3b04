# SPDX-License-Identifier: MIT
# Two processes on one GPU: peaks 4 and 6 MiB, but the peak of the sum on the common
# clock is 6 MiB at 2 ms (not 10).
"$VT_GEN" multi-a a.vtrace && "$VT_GEN" multi-b b.vtrace && "$VRAMTRACE" report --frames 1 a.vtrace b.vtrace
