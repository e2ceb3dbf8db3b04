#!/usr/bin/env bash
# Session 20, call 2: tagged profiles (recording vs paused steps) of HEAD's recorder (base) and the
# candidate (memo guess + Python last walk), the candidate's stats, then alternated overhead rounds.
set -u
. tests/gpu/env.sh
date -u
pin=(taskset -c 2-9)
bench=(tests/gpu/bench_steps.py --amp fp16 --warmup 10 --steps 150 --block 1)
ratio() { $PY -c '
import json, sys
m = json.loads(sys.stdin.read())["modes"]
on, off = m["fp16"]["median_ms"], m["fp16+paused"]["median_ms"]
print("%-6s on %.2f off %.2f  %+.2f%%  (%+.3f ms)" % (sys.argv[1], on, off, (on/off-1)*100, on-off))' "$1"; }
lib() { [ "$1" = base ] && echo "$B/base/libvramtrace.so" || echo "$B/lib/libvramtrace.so"; }
prof() {  # name
  local name=$1
  rm -rf "$W/s-$name"; mkdir -p "$W/s-$name"
  "${pin[@]}" env VRAMTRACE_LIB=$(lib $name) LD_PRELOAD=$B/lib/libvtsample.so VTSAMPLE_DIR=$W/s-$name VTSAMPLE_CLOCK=wall VTSAMPLE_US=200 \
    "$VT" run --no-summary -o "$W/d.vtrace" -- $PY "${bench[@]}" --ab fp16,fp16+paused 2>"$OUT/err-$name.txt" | tail -1 | ratio "$name"
  rm -f "$W"/d.vtrace*
  f=$(ls -S "$W/s-$name"/samples.*.txt | head -1)
  timeout 200 $PY tests/gpu/sample_report.py "$f" --top 45 --us 200 --steps 150 > "$OUT/report-$name.txt" 2>&1
  sed -n '/tag 1 against/,$p' "$OUT/report-$name.txt" | head -40
  date -u
}
prof base
prof cand
VRAMTRACE_STATS=1 "${pin[@]}" "$VT" run --no-summary -o "$W/d.vtrace" -- $PY "${bench[@]}" --ab fp16 2>&1 >/dev/null | grep "stats:" | tee "$OUT/stats-cand.txt"
rm -f "$W"/d.vtrace*
for r in 1 2 3 4; do
  for v in base cand; do
    "${pin[@]}" env VRAMTRACE_LIB=$(lib $v) "$VT" run --no-summary -o "$W/d.vtrace" -- $PY "${bench[@]}" --ab fp16,fp16+paused 2>>"$OUT/err-rounds.txt" | tail -1 | ratio "$v"
    rm -f "$W"/d.vtrace*
  done
  date -u
done
