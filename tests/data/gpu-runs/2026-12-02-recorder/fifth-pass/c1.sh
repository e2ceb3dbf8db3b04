#!/usr/bin/env bash
# Session 20, call 1: where the recorder's time goes, sampled on the H200 (tests/gpu/vt_sample.c).
set -u
. tests/gpu/env.sh
date -u
cat /sys/devices/system/clocksource/clocksource0/current_clocksource; uname -r
which nm readelf addr2line
pin=(taskset -c 2-9)
bench=(tests/gpu/bench_steps.py --amp fp16 --warmup 10 --steps 150 --block 1)
one() {  # name, env...
  local name=$1; shift
  rm -rf "$W/s-$name"; mkdir -p "$W/s-$name"
  local line
  line=$("${pin[@]}" env LD_PRELOAD=$B/lib/libvtsample.so VTSAMPLE_DIR=$W/s-$name "$@" "$VT" run --no-summary -o "$W/d.vtrace" -- $PY "${bench[@]}" --ab fp16,fp16+paused 2>"$OUT/err-$name.txt" | tail -1)
  rm -f "$W"/d.vtrace*
  echo "$line" | $PY -c '
import json, sys
m = json.loads(sys.stdin.read())["modes"]
on, off = m["fp16"]["median_ms"], m["fp16+paused"]["median_ms"]
print("%-10s on %.2f off %.2f  %+.2f%%  (%+.3f ms)" % (sys.argv[1], on, off, (on/off-1)*100, on-off))' "$name" || tail -3 "$OUT/err-$name.txt"
  f=$(ls -S "$W/s-$name"/samples.*.txt | head -1)
  head -1 "$f"
  cp "$f" "$OUT/samples-$name.txt"
  timeout 200 $PY tests/gpu/sample_report.py "$f" --top 60 > "$OUT/report-$name.txt" 2>&1
  head -80 "$OUT/report-$name.txt"
  date -u
}
one cpu VTSAMPLE_CLOCK=cpu VTSAMPLE_US=100
one wall VTSAMPLE_CLOCK=wall VTSAMPLE_US=200
