#!/usr/bin/env bash
# Session 19, call 5: report's and the timeline's first screen of a real PyTorch OOM (HF GPT-2 under a cap).
set -u
. tests/gpu/env.sh
date -u
"$VT" run --torch-modules -o "$W/oom.vtrace" -- $PY .probe/oom.py > /dev/null 2> "$OUT/oom-summary.txt"
head -12 "$OUT/oom-summary.txt"
t=$(ls "$W"/oom.vtrace* | head -1)
"$VT" report "$t" > "$OUT/oom-report.txt" 2>&1; head -24 "$OUT/oom-report.txt"
"$VT" timeline "$t" -o "$W/oom.html" 2>/dev/null && sed -n 's/.*<p class="vt-sub"><b>peak/<b>peak/p' "$W/oom.html" | sed 's/<[^>]*>//g' | head -2
date -u
