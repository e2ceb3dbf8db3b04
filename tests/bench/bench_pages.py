#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Counts the distinct 4 KiB pages each block event touches (bench_pages.sh): reads
valgrind lackey's trace of every access on stdin, takes the accesses between the stores
that bench_blocks.py --mark puts around each block handed out (one pair of words per mode),
and prints, per mode, how many pages an event touches (code and data) and, for the
events of the median size, in which mappings of --maps they lie."""
import argparse
import bisect
import collections
import statistics
import sys

MARKS = 0x600000000000
MODES = {MARKS: ("recording", True), MARKS + 64: ("recording", False),
         MARKS + 128: ("paused", True), MARKS + 192: ("paused", False)}


def mapping_names(path):
    rows = []
    for line in open(path):
        f = line.split()
        lo, hi = (int(x, 16) for x in f[0].split("-"))
        # anonymous mappings by their size: the recorder's tables, the thread stacks and
        # the interpreter's frames are told apart so
        name = f[5].rsplit("/", 1)[-1] if len(f) > 5 else "[anonymous, %d KiB]" % ((hi - lo) >> 10)
        rows.append((lo, hi, name))
    rows.sort()
    starts = [r[0] for r in rows]

    def name(page):
        a = page << 12
        i = bisect.bisect_right(starts, a) - 1
        return rows[i][2] if i >= 0 and a < rows[i][1] else "?"
    return name


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--maps", required=True)
    a = ap.parse_args()
    events = collections.defaultdict(list)   # mode -> [(code pages, data pages)]
    mode, code, data = None, set(), set()
    for line in sys.stdin:
        if len(line) < 4 or line[0] not in " I":
            continue
        kind = line[:2].strip()
        try:
            addr = int(line[3:].split(",", 1)[0], 16)
        except ValueError:
            continue
        if kind == "S" and addr in MODES:
            m, begin = MODES[addr]
            if begin:
                mode, code, data = m, set(), set()
            elif mode == m:
                events[m].append((frozenset(code), frozenset(data)))
                mode = None
            continue
        if mode:
            (code if kind == "I" else data).add(addr >> 12)
    if not events:
        sys.exit("bench_pages.py: no marked event in the trace")
    name = mapping_names(a.maps)
    for m in ("recording", "paused"):
        ev = events.get(m, [])
        if not ev:
            continue
        sizes = [len(c) + len(d) for c, d in ev]
        med = statistics.median(sizes)
        print("%s: %d events, pages an event: median %g (code %g, data %g), min %d, max %d"
              % (m, len(ev), med, statistics.median(len(c) for c, _ in ev), statistics.median(len(d) for _, d in ev),
                 min(sizes), max(sizes)))
        typical = [e for e, s in zip(ev, sizes) if s == med] or ev
        where = collections.Counter()
        for c, d in typical:
            for p in c:
                where[("code", name(p))] += 1
            for p in d:
                where[("data", name(p))] += 1
        for (k, n), c in sorted(where.items(), key=lambda kv: -kv[1]):
            print("  %-4s %-44s %5.2f pages" % (k, n, c / len(typical)))


if __name__ == "__main__":
    sys.exit(main())
