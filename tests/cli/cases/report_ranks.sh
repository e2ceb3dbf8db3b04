# SPDX-License-Identifier: MIT
# Three ranks of one job (vt_gen rank-R): ranks 0 and 1 share GPU A, rank 2 has GPU B;
# rank 1's batch is bigger. The first section says rank 1 peaks highest (23 MiB, 1.53x
# rank 0's 15 MiB), that activations differ most (+8 MiB) and which site grew; the table
# has each rank's peak by category (the NCCL buffer is communication, by the built-in
# rules) and top layer and site; GPU A's peak of the sum is 38 MiB at 5.5 ms (rank 1
# started 0.5 ms later). The traces are given out of rank order.
for r in 0 1 2; do "$VT_GEN" rank-$r r$r.vtrace || exit 1; done
cat > job.rules <<'R'
weights      function=alloc_weights
activations  function=alloc_activations
workspace    function=alloc_workspace
R
"$VRAMTRACE" report --frames 1 --rules job.rules r2.vtrace r0.vtrace r1.vtrace | sed -n '1,/^== r2.vtrace/p'
