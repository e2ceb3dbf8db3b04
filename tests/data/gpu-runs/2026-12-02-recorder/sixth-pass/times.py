#!/usr/bin/env python3
"""times.py < `vramtrace dump TRACE`: are the ring events' times (TSC ticks turned into ns
by the writer, when it stamps with the TSC) in step with the side records' (clock_gettime)?
Prints the events, each thread's steps back in time, how far a ring event written before an
NVML sample lies after it, and the trailer's lead over the last event."""
import re, sys
RING = {"alloc", "free", "vmm", "oom", "annotate", "pool_trim"}
last, back, nback, ring_max, n = {}, 0, 0, 0, 0
late, worst_late, trailer = 0, 0, None
for line in sys.stdin:
    kind = line.split(" ", 1)[0]
    m = re.search(r"\bt=(\d+)", line)
    if not m:
        continue
    t = int(m.group(1))
    if kind in RING:
        n += 1
        tid = re.search(r"\btid=(\d+)", line).group(1)
        if tid in last and t < last[tid]:
            nback += 1
            back = max(back, last[tid] - t)
        last[tid] = t
        ring_max = max(ring_max, t)
    elif kind == "nvml":
        # the writer samples, then drains: what it wrote before was stamped before
        if ring_max > t:
            late += 1
            worst_late = max(worst_late, ring_max - t)
    elif kind == "trailer":
        trailer = t
print("ring events %d; a thread's time went back %d times (at most %d ns); ring events written "
      "before an NVML sample but after it in time: %d (at most %d ns); trailer after the last "
      "event by %s ns" % (n, nback, back, late, worst_late,
                          "?" if trailer is None else trailer - ring_max))
