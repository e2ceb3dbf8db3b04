# SPDX-License-Identifier: MIT
# Two ranks of one job: each named by its rank; rank 1's activations grew +8 MiB.
for r in 0 1; do "$VT_GEN" rank-$r r$r.vtrace || exit 1; done
"$VRAMTRACE" diff --frames 1 r0.vtrace r1.vtrace
