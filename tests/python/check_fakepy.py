# SPDX-License-Identifier: MIT
"""Checks the trace of fake_py314 (see fake_py314.c for the cases).

    check_fakepy.py VRAMTRACE TRACE            the 3.14 frames, the interpreter's own native
                                               frames outside them cut (vt_pycut.c)
    check_fakepy.py VRAMTRACE TRACE --whole    (VRAMTRACE_INTERPRETER_FRAMES=1) each group
                                               inside its call
    check_fakepy.py VRAMTRACE TRACE --none W   no Python frames, and stderr is exactly one
                                               warning line holding W
"""
import os
import sys

import vtcheck
from vtcheck import check

vramtrace, trace = sys.argv[1:3]
case_dir = os.path.dirname(trace)
t = vtcheck.Trace(vramtrace, trace)
check(len(t.allocs) == 2, "%d allocations (want 2)" % len(t.allocs))

if sys.argv[3:4] == ["--none"]:
    check(not t.pyframes, "%d PYFRAME records (want none)" % len(t.pyframes))
    with open(os.path.join(case_dir, "stderr.txt")) as f:
        lines = [l for l in f.read().splitlines() if l.strip()]
    check(len(lines) == 1, "stderr has %d lines (want one warning): %s" % (len(lines), lines))
    check(all(sys.argv[4] in l and l.startswith("vramtrace: ") for l in lines),
          "the warning does not say %r: %s" % (sys.argv[4], lines))
    vtcheck.done("check_fakepy --none")

with open(os.path.join(case_dir, "stdout.txt")) as f:
    _, lo, size = f.readline().split()
eval_lo = int(lo, 16)
eval_hi = eval_lo + int(size)


def groups(frames):
    """Python groups, innermost first: ([(function, line)...], the native frame after)."""
    out, cur = [], []
    for f in frames:
        if f[0] == "py":
            check(f[1] == "fake314.py", "file %r (want fake314.py)" % f[1])
            cur.append((f[2], f[3]))
        elif cur:
            out.append((cur, f))
            cur = []
    if cur:
        out.append((cur, None))
    return out


def in_eval(native):
    # a return address: the call instruction ends just before it
    return native is not None and native[0] == "native" and eval_lo < native[1] <= eval_hi


whole = "--whole" in sys.argv[3:]
MOD_A = [("fn_a", 12), ("<module>", 6)]
for size, want in ((1, [MOD_A]), (2, [[("fn_c", 37), ("Gen.fn_b", 20)], MOD_A])):
    a = t.by_size(size << 20)
    check(len(a) == 1, "%d allocations of %d MiB (want 1)" % (len(a), size))
    if not a:
        continue
    g = groups(a[0]["frames"])
    if whole:
        check([x[0] for x in g] == want, "%d MiB: Python frames\n   got  %s\n   want %s" % (size, [x[0] for x in g], want))
        for frames, after in g:
            check(in_eval(after), "%d MiB: group %s is not placed inside _PyEval_EvalFrameDefault (next: %s)"
                  % (size, frames, after))
    else:
        # outside the innermost interpreter call only the interpreter's own frames (the
        # loop, main, libc): cut, so every Python frame comes last, in order
        flat = [f for grp in want for f in grp]
        check([x[0] for x in g] == [flat], "%d MiB: Python frames (cut)\n   got  %s\n   want %s"
              % (size, [x[0] for x in g], [flat]))
        native = [f for f in a[0]["frames"] if f[0] == "native"]
        check(not any(in_eval(f) for f in native), "%d MiB: a frame inside the interpreter loop was kept" % size)
    check(a[0]["frames"][0][0] == "native", "%d MiB: the innermost frame is not native" % size)
vtcheck.done("check_fakepy")
