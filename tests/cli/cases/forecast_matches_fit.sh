# What forecast predicts at batch 12 from batches 4, 8 and 16 is what fit finds on the
# trace of batch 12 itself (the sizes are linear in the batch), for every allocator.
for b in 4 8 12 16; do "$VT_GEN" train-$b b$b.vtrace || exit 1; done
for a in exact caching expandable async; do
  f=$("$VRAMTRACE" fit b12.vtrace --allocator $a --json | sed -n 's/^  "predicted_peak_bytes": *\([0-9]*\).*/\1/p')
  p=$("$VRAMTRACE" forecast --vary batch 4:b4.vtrace 8:b8.vtrace 16:b16.vtrace --at 12 --allocator $a --json |
      grep -A3 '"value": 12,' | sed -n 's/.*"predicted_peak_bytes": *\([0-9]*\).*/\1/p')
  if [ -n "$f" ] && [ "$f" = "$p" ]; then echo "$a: same ($f)"; else echo "$a: fit $f, forecast $p"; fi
done
