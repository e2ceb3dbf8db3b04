# torch.compile(mode="reduce-overhead") as PyTorch's blocks show it (vt_gen graphpool):
# the CUDA graph's private pool is named, apart from the idle cache, in report (by kind,
# by category, sites), top, diff and JSON; blocks + idle + pool = the segments at the
# peak (104 MiB); and though no stack repeats from one step's forward to the next (warm-up,
# recording), the steps are found by the generated code's lines: AdamW's state is
# optimizer_state, the recorded graph's outputs gradients (8 MiB, in the pool).
"$VT_GEN" graphpool g.vtrace || exit 1
"$VRAMTRACE" report g.vtrace | sed -n "/CUDA graphs:/p;/by kind at the peak/,/by layer/p"
"$VRAMTRACE" top g.vtrace --by category
"$VRAMTRACE" top g.vtrace --by site --top 2 --frames 2
"$VRAMTRACE" report g.vtrace --json | grep -E '"(graph_pool_[a-z_]*|idle_cache_bytes_at_peak)"|"iterations"' -A1 |
  grep -v -- '^--' | head -9
"$VRAMTRACE" diff g.vtrace g.vtrace | sed -n '/by category at the peak/,/^$/p'
