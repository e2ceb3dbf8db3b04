# 200,000 distinct stacks, one allocation each (issue 17: 2M drove `export --format
# pprof` to 6.2 GiB with a per-site array made up front). Memory must stay within what
# the trace holds: each command's peak RSS (GNU time's %M) is bounded here at 400 MiB,
# about 2 KiB per stack; exports and report run in seconds.
"$VT_GEN_HOSTILE" stacks 200000 s.vtrace || exit 1
for cmd in "report s.vtrace" "export --format pprof s.vtrace -o p.pb.gz" \
           "export --format speedscope s.vtrace -o s.json" "export --format folded s.vtrace -o f.txt" \
           "top s.vtrace --by function"; do
    /usr/bin/time -f "%M" -o rss timeout 300 "$VRAMTRACE" $cmd > out 2> err
    rc=$?
    kb=$(tail -n 1 rss)
    if [ "$kb" -le 409600 ]; then verdict="within 400 MiB"; else verdict="OVER 400 MiB: $kb KiB"; fi
    echo "$cmd: exit $rc, $verdict"
done
