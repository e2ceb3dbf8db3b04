#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Turns a samples.<pid>.txt of tests/gpu/vt_sample.c into where the time went: per
thread, per loaded object, per function (the objects' symbol tables, read with binutils'
nm and readelf where the program ran).

    python3 tests/gpu/sample_report.py samples.1234.txt [--top 40] [--match vramtrace]
        [--us 200 --steps 150]

The counts are samples (one per VTSAMPLE_US); "%" is of all samples. Where the program
tagged its samples (bench_steps.py --ab: tag i+1 for the steps of mode i), the report
also sets tag 1 against tag 2, per object and per function, in ms a step (--us, the
sampling period, times the samples over --steps, the steps of each mode). In an object
with no symbol table (libc, libpython, PyTorch's libraries) a function is named by the
nearest exported symbol before it: a place, not always the function's own name."""
import argparse
import bisect
import collections
import re
import subprocess
import sys


def load(path):
    samples, threads, maps = [], {}, []
    for line in open(path):
        if line.startswith("# thread "):
            _, _, tid, name = line.rstrip("\n").split(" ", 3)
            threads[int(tid)] = name
        elif line.startswith("# map "):
            f = line[6:].split()
            lo, hi = (int(x, 16) for x in f[0].split("-"))
            if "x" in f[1] and len(f) >= 6:
                maps.append((lo, hi, int(f[2], 16), f[5]))
        elif not line.startswith("#"):
            tid, tag, pc, n = line.split()
            samples.append((int(tid), int(tag), int(pc, 16), int(n)))
    maps.sort()
    return samples, threads, maps


class Symbols:
    """One object's functions by address (its link-time addresses)."""

    def __init__(self, path):
        self.addrs, self.names, self.bias = [], [], 0
        try:
            for l in subprocess.run(["readelf", "-lW", path], capture_output=True, text=True).stdout.splitlines():
                f = l.split()
                if f and f[0] == "LOAD" and "E" in f[-2]:
                    self.bias = int(f[2], 16) - int(f[1], 16)  # vaddr - offset of the code segment
                    break
        except OSError:
            pass
        rows = {}
        for flag in ([], ["-D"]):
            try:
                out = subprocess.run(["nm", "-C", "--defined-only", "-S"] + flag + [path],
                                     capture_output=True, text=True).stdout
            except OSError:
                break
            for l in out.splitlines():
                m = re.match(r"([0-9a-f]+) ([0-9a-f]+ )?([tTwWiI]) (.*)", l)
                if m:
                    rows.setdefault(int(m.group(1), 16), m.group(4))
            if rows:
                break
        for a in sorted(rows):
            self.addrs.append(a)
            self.names.append(rows[a])

    def name(self, off):
        a = off + self.bias
        i = bisect.bisect_right(self.addrs, a) - 1
        return self.names[i] if i >= 0 else "?"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file")
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--match", default="vramtrace", help="objects whose functions are all listed")
    ap.add_argument("--us", type=float, default=200, help="the sampling period, microseconds (VTSAMPLE_US)")
    ap.add_argument("--steps", type=int, default=150, help="steps of each tagged mode")
    ap.add_argument("--min", type=float, default=0.2,
                    help="objects with less than this %% of the samples are not symbolized (default 0.2)")
    a = ap.parse_args()
    samples, threads, maps = load(a.file)
    starts = [m[0] for m in maps]
    syms = {}
    by_thread, by_obj, by_fn, mine, tags = (collections.Counter() for _ in range(5))
    obj_tag, fn_tag = collections.Counter(), collections.Counter()
    total = sum(s[-1] for s in samples)
    # each sample's mapping, once: the objects' shares decide which get symbolized
    where = []
    per_obj = collections.Counter()
    for _, _, pc, n in samples:
        i = bisect.bisect_right(starts, pc) - 1
        i = i if i >= 0 and pc < maps[i][1] else -1
        where.append(i)
        if i >= 0:
            per_obj[maps[i][3]] += n
    for (tid, tag, pc, n), i in zip(samples, where):
        if i >= 0:
            lo, _, off, path = maps[i]
            obj = path.rsplit("/", 1)[-1]
            if path not in syms:
                big = per_obj[path] >= total * a.min / 100 or a.match in obj
                syms[path] = Symbols(path) if path.startswith("/") and big else None
            s = syms[path]
            fn = s.name(pc - lo + off) if s else "?"
        else:
            obj, fn = "?", "?"
        tname = threads.get(tid, "?")
        tags[tag] += n
        obj_tag[(obj, tag)] += n
        fn_tag[(obj, fn, tag)] += n
        by_thread[(tid, tname)] += n
        by_obj[obj] += n
        by_fn[(obj, fn)] += n
        if a.match in obj:
            mine[(tname, fn)] += n
    pct = lambda n: 100.0 * n / total if total else 0.0
    print("samples: %d (by tag: %s)" % (total, ", ".join("%d: %d" % kv for kv in sorted(tags.items()))))
    print("\nby thread:")
    for (tid, name), n in by_thread.most_common(12):
        print("  %7d %5.1f%%  %s (%d)" % (n, pct(n), name, tid))
    print("\nby object:")
    for o, n in by_obj.most_common(15):
        print("  %7d %5.1f%%  %s" % (n, pct(n), o))
    print("\nby function:")
    for (o, f), n in by_fn.most_common(a.top):
        print("  %7d %5.1f%%  %s  [%s]" % (n, pct(n), f[:110], o))
    print("\nobjects matching %r, by thread and function:" % a.match)
    for (t, f), n in mine.most_common(a.top):
        print("  %7d %5.2f%%  %-16s %s" % (n, pct(n), t, f[:100]))
    if tags[1] and tags[2]:
        ms = lambda n: n * a.us / 1000.0 / a.steps
        print("\ntag 1 against tag 2, ms a step (%g us a sample, %d steps each): all %.3f against %.3f (%+.3f)"
              % (a.us, a.steps, ms(tags[1]), ms(tags[2]), ms(tags[1] - tags[2])))
        objs = {o for o, _ in obj_tag}
        rows = sorted(objs, key=lambda o: -abs(obj_tag[(o, 1)] - obj_tag[(o, 2)]))
        print("  %-40s %9s %9s %9s" % ("object", "tag 1", "tag 2", "1 - 2"))
        for o in rows[:15]:
            print("  %-40s %9.3f %9.3f %+9.3f" % (o[:40], ms(obj_tag[(o, 1)]), ms(obj_tag[(o, 2)]),
                                                  ms(obj_tag[(o, 1)] - obj_tag[(o, 2)])))
        fns = {(o, f) for o, f, _ in fn_tag}
        rows = sorted(fns, key=lambda k: -abs(fn_tag[k + (1,)] - fn_tag[k + (2,)]))
        print("  %-70s %9s %9s %9s" % ("function", "tag 1", "tag 2", "1 - 2"))
        for k in rows[:a.top]:
            print("  %-70s %9.3f %9.3f %+9.3f" % (("%s [%s]" % (k[1], k[0]))[:70], ms(fn_tag[k + (1,)]),
                                                  ms(fn_tag[k + (2,)]), ms(fn_tag[k + (1,)] - fn_tag[k + (2,)])))


if __name__ == "__main__":
    sys.exit(main())
