# Batch 4, 8 and 16 predict batch 12 and the largest batch per card.
for b in 4 8 12 16; do "$VT_GEN" train-$b b$b.vtrace || exit 1; done
"$VRAMTRACE" forecast --vary batch 4:b4.vtrace 8:b8.vtrace 16:b16.vtrace --at 12 --at 100 --memory 1GiB --memory 8GiB
