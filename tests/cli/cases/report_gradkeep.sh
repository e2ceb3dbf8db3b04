# Categories per allocation where one call site makes two kinds: a backward op's output
# kept as the parameter's .grad in the first step (a gradient) and freed at once in the
# three steps after (temporaries). By votes the site is temporary; the kept two are
# gradients at the peak and at the end (report, top, JSON).
"$VT_GEN" gradkeep g.vtrace || exit 1
"$VRAMTRACE" top g.vtrace --by category
"$VRAMTRACE" top g.vtrace --by category --at end
"$VRAMTRACE" report g.vtrace --json | grep -E '"(category|bytes)"' | head -12
