#!/usr/bin/env bash
# Not run (no device time left in session 20): are the memo's huge pages real on the GPU machine? THP mode, AnonHugePages of a recorded process.
. tests/gpu/env.sh
cat /sys/kernel/mm/transparent_hugepage/enabled /sys/kernel/mm/transparent_hugepage/defrag; grep -i huge /proc/meminfo | head -4
timeout 80 "$VT" run --no-summary -o "$W/h.vtrace" -- $PY tests/gpu/bench_steps.py --amp fp16 --warmup 5 --steps 400 > /dev/null 2>&1 &
sleep 40
pid=$(pgrep -f "bench_steps.py" | while read p; do [ "$(cat /proc/$p/comm)" = python3 ] && echo $p; done | tail -1)
echo "pid $pid"; grep -i "AnonHuge\|^Rss" /proc/$pid/smaps_rollup
awk '/^[0-9a-f]+-[0-9a-f]+ /{r=$0} /^AnonHugePages: *[1-9]/{print r " :: " $0}' /proc/$pid/smaps | head -20
kill %1 2>/dev/null; wait
