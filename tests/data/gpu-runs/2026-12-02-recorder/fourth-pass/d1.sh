#!/usr/bin/env bash
# Session 19, call 1: where the recording's step cost goes. Rounds of bench_steps.py --amp fp16,
# recording on/paused every other step, 150 steps each, pinned, under variants of the recorder.
set -u
. tests/gpu/env.sh
date -u
cat /sys/devices/system/clocksource/clocksource0/current_clocksource
grep -o -w 'constant_tsc\|nonstop_tsc\|tsc_known_freq\|hypervisor' /proc/cpuinfo | sort | uniq -c
lscpu | grep -i 'model name\|^CPU(s)\|L2\|L3'
.probe/clk
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
print("%-10s on %.2f off %.2f  %+.2f%%  (%+.3f ms)" % (sys.argv[1], on, off, (on/off-1)*100, on-off))' "$name" || tail -3 "$OUT/err-$name.txt"
}
for r in 1 2; do
  one full VT_X=1
  one nopy VRAMTRACE_PYTHON=0
  one depth0 VRAMTRACE_DEPTH=0
  one depth20 VRAMTRACE_DEPTH=20
  date -u
done
