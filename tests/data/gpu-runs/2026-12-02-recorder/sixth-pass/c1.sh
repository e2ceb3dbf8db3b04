#!/usr/bin/env bash
# Session 21, call 1: the machine's clock source and THP mode, tagged profiles (recording vs
# paused steps) of the shipped recorder (.gpu/base) and the candidate (.gpu/lib: the cut under
# Python, TSC stamps, the hot globals on one page), a check of the candidate's times against
# its side records, then alternated overhead rounds. Method of fifth-pass/c2.sh.
set -u
. tests/gpu/env.sh
date -u
cat /sys/devices/system/clocksource/clocksource0/current_clocksource /sys/kernel/mm/transparent_hugepage/enabled \
    /sys/kernel/mm/transparent_hugepage/defrag
grep -o -w "constant_tsc\|nonstop_tsc\|tsc_known_freq" /proc/cpuinfo | sort | uniq -c
grep -m1 "model name" /proc/cpuinfo
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
  if [ "$name" = cand ]; then  # THP of the memo while the trace is still there; times against side records
    "$VT" dump "$W/d.vtrace" 2>/dev/null | $PY tests/data/gpu-runs/2026-12-02-recorder/sixth-pass/times.py > "$OUT/times-cand.txt" 2>&1
    cat "$OUT/times-cand.txt"
  fi
  rm -f "$W"/d.vtrace*
  f=$(ls -S "$W/s-$name"/samples.*.txt | head -1)
  timeout 200 $PY tests/gpu/sample_report.py "$f" --top 45 --us 200 --steps 150 > "$OUT/report-$name.txt" 2>&1
  sed -n '/tag 1 against/,$p' "$OUT/report-$name.txt" | head -22
  date -u
}
prof base
prof cand
for r in 1 2 3 4; do
  for v in base cand; do
    "${pin[@]}" env VRAMTRACE_LIB=$(lib $v) "$VT" run --no-summary -o "$W/d.vtrace" -- $PY "${bench[@]}" --ab fp16,fp16+paused 2>>"$OUT/err-rounds.txt" | tail -1 | ratio "$v"
    rm -f "$W"/d.vtrace*
  done
  date -u
done
