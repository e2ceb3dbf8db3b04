# SPDX-License-Identifier: MIT
# The "ranks" object of report --json over the three ranks of report_ranks.sh: each
# rank's peak by category, top site; the skew; the GPUs with the ranks on each.
for r in 0 1 2; do "$VT_GEN" rank-$r r$r.vtrace || exit 1; done
cat > job.rules <<'R'
weights      function=alloc_weights
activations  function=alloc_activations
workspace    function=alloc_workspace
R
"$VRAMTRACE" report --json --rules job.rules r2.vtrace r0.vtrace r1.vtrace | sed -n '/^  "ranks": {/,/^  },/p'
