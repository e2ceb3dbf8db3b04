# Runs where one site allocates a different number of times from batch to batch (below
# batch 16 each temporary is two halves): that site keeps the largest run's sizes, the
# rest is matched and fitted, and the output says so. The forecast's row at 16 is `fit`
# of the batch-16 run.
for b in 4 8 16; do "$VT_GEN" trainz-$b b$b.vtrace || exit 1; done
"$VRAMTRACE" forecast --vary batch 4:b4.vtrace 8:b8.vtrace 16:b16.vtrace --memory 1GiB --at 32
"$VRAMTRACE" forecast --vary batch 4:b4.vtrace 8:b8.vtrace 16:b16.vtrace --memory 1GiB --json |
  grep -E '"(allocations|allocations_matched|template_value|unmatched_sites)"'
"$VRAMTRACE" fit b16.vtrace | grep 'predicted peak'
