#!/usr/bin/env bash
# Session 19, call 2: the cut of the interpreter's frames (vt_pycut.c): categories to the byte
# (tracker.sh QUICK), then on/paused rounds alternating cut (default) and whole
# (VRAMTRACE_INTERPRETER_FRAMES=1) processes, then the recorder's own account of each.
set -u
. tests/gpu/env.sh
date -u
QUICK=1 NO_OVERHEAD=1 bash tests/gpu/tracker.sh 2>&1 | tail -14
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
for r in 1 2 3 4; do
  one cut VT_X=1
  one whole VRAMTRACE_INTERPRETER_FRAMES=1
done
date -u
stats() {
  VRAMTRACE_STATS=1 "${pin[@]}" env "$@" "$VT" run --no-summary -o "$W/bs.vtrace" -- $PY "${bench[@]}" --ab fp16 2>&1 >/dev/null | grep -h 'vramtrace: stats:' | sed 's/vramtrace: stats: //' | cut -c1-600
  rm -f "$W"/bs.vtrace*
}
echo "stats cut: $(stats VT_X=1)"
echo "stats whole: $(stats VRAMTRACE_INTERPRETER_FRAMES=1)"
date -u
