#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""clock_check.py PROGRAM_OUT DUMP [SLACK_US]: tp_linked clock printed each allocation's and
mark's CLOCK_MONOTONIC before and after the call; the trace holds the recorder's times of the
same records (ns since its constructor: another origin). One offset must fit all of them:
max(trace - after) <= min(trace - before) + slack. A wrong TSC scale or origin breaks it by
milliseconds over the run's 240 ms."""
import re, sys

prog, trace = {}, {}
for line in open(sys.argv[1]):
    p = line.split()
    if len(p) == 5 and p[0] == "clock":
        prog[(p[1], int(p[2]))] = (int(p[3]), int(p[4]))
allocs = marks = 0
for line in open(sys.argv[2]):
    t = re.search(r"\bt=(\d+)", line)
    if line.startswith("alloc ") and t:
        trace[("alloc", allocs)] = int(t.group(1)); allocs += 1
    elif line.startswith("mark ") and t:
        m = re.search(r'name="m(\d+)"', line)
        if m: trace[("mark", int(m.group(1)))] = int(t.group(1)); marks += 1
slack = int(sys.argv[3]) * 1000 if len(sys.argv) > 3 else 200000
if len(prog) != 16 or set(prog) != set(trace):
    sys.exit("clock_check: %d program records, %d trace records (%d allocs, %d marks): not the same"
             % (len(prog), len(trace), allocs, marks))
lo = max(trace[k] - prog[k][1] for k in prog)
hi = min(trace[k] - prog[k][0] for k in prog)
print("clock_check: 16 records; the offsets that fit all of them span %.1f us (%s)"
      % ((hi - lo) / 1000, "ok" if lo <= hi + slack else "FAIL"))
worst = sorted(prog, key=lambda k: trace[k] - prog[k][1])[-1]
if lo > hi + slack:
    sys.exit("clock_check: %s %d lies %.1f us off the program's clock" % (worst[0], worst[1], (lo - hi) / 1000))
