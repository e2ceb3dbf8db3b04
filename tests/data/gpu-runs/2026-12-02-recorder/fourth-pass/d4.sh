#!/usr/bin/env bash
# Session 19, call 4: the writer thread at nice 19 (VRAMTRACE_WRITER_NICE=19) against the
# default, on/paused rounds alternated.
set -u
. tests/gpu/env.sh
date -u
pin=(taskset -c 2-9)
bench=(tests/gpu/bench_steps.py --amp fp16 --warmup 10 --steps 150 --block 1)
one() {  # name, env...
  local name=$1; shift
  local line
  line=$("${pin[@]}" env "$@" "$VT" run --no-summary -o "$W/d.vtrace" -- $PY "${bench[@]}" --ab fp16,fp16+paused 2>"$OUT/err-$name.txt" | tail -1)
  rm -f "$W"/d.vtrace*
  echo "$line" | $PY -c '
import json, sys
m = json.loads(sys.stdin.read())["modes"]
on, off = m["fp16"]["median_ms"], m["fp16+paused"]["median_ms"]
print("%-6s on %.2f off %.2f  %+.2f%%  (%+.3f ms)" % (sys.argv[1], on, off, (on/off-1)*100, on-off))' "$name" || tail -3 "$OUT/err-$name.txt"
}
for r in 1 2 3 4 5; do
  one nice19 VRAMTRACE_WRITER_NICE=19
  one nice0 VT_X=1
done
date -u
