# Activation checkpointing: what the checkpoint's backward makes by running the layer's
# forward again is activations, shown as recomputed (report, top, diff, JSON), and the
# gradients its nested backward makes (torch/autograd frames, innermost) are not.
"$VT_GEN" ckpt-0 a.vtrace && "$VT_GEN" ckpt-1 b.vtrace || exit 1
"$VRAMTRACE" report b.vtrace --frames python | sed -n '/by category at the peak/,/by layer/p' | sed '$d'
"$VRAMTRACE" top b.vtrace --by category
"$VRAMTRACE" report b.vtrace --json | grep -E '"(category|recomputed_bytes)"'
"$VRAMTRACE" diff a.vtrace b.vtrace | sed -n '/by category at the peak/,/^$/p'
