# SPDX-License-Identifier: MIT
"""Checks the trace of py_frames.py (see its docstring for the cases).

    check_frames.py VRAMTRACE TRACE PY_FRAMES_SOURCE [--whole] [--none [--warned]]

--whole: the trace was made with VRAMTRACE_INTERPRETER_FRAMES=1 (no cut, vt_pycut.c).
"""
import os
import sys

import vtcheck
from vtcheck import check

MiB = 1 << 20
vramtrace, trace, src = sys.argv[1:4]
t = vtcheck.Trace(vramtrace, trace)
m = vtcheck.markers(src)
srcbase = os.path.basename(src)

if "--none" in sys.argv[4:]:
    # Python frames off, or a Python the recorder does not know: the program ran, every
    # allocation was recorded, and no stack has a Python frame.
    check(len(t.allocs) == 11, "%d allocations (want 11)" % len(t.allocs))
    check(not t.pyframes, "%d PYFRAME records (want none)" % len(t.pyframes))
    if "--warned" in sys.argv[4:]:
        # a Python the recorder cannot read: it says so, once
        with open(os.path.join(os.path.dirname(trace), "stderr.txt")) as f:
            lines = [l for l in f.read().splitlines() if l.strip()]
        check(len(lines) == 1 and "no Python frames" in lines[0], "stderr (want one warning): %s" % lines)
    vtcheck.done("check_frames --none")


def pyf(frames):
    """(function, line) of the Python frames of py_frames.py, innermost first."""
    return [(f[2], f[3]) for f in vtcheck.py_frames(frames) if f[1] and os.path.basename(f[1]) == srcbase]


def one(n):
    a = t.by_size(n * MiB)
    check(len(a) == 1, "case %d: %d allocations of %d MiB (want 1)" % (n, len(a), n))
    return a[0]["frames"] if a else []


def want(n, frames, expect):
    got = pyf(frames)
    check(got == expect, "case %d: Python frames\n   got  %s\n   want %s" % (n, got, expect))


A = ("alloc", m["alloc"])
MOD = ("<module>", m["module"])
MAIN = lambda k: ("main", m[k])


def method(frames, name, short):
    """Accept either form of a method's name (co_qualname on 3.11+, co_name before)."""
    return [(short if f == name else f, l) for f, l in pyf(frames)]


# 1: nested functions
f1 = one(1)
want(1, f1, [A, ("level3", m["level3"]), ("level2", m["level2"]), ("level1", m["level1"]), MAIN("main1"), MOD])
# Python frames are spliced between native frames: native frames inside (the ctypes
# call); outside (the interpreter, main()) only with --whole, else they are cut.
if f1:
    kinds = [f[0] for f in f1]
    first_py = kinds.index("py") if "py" in kinds else -1
    last_py = len(kinds) - 1 - kinds[::-1].index("py") if "py" in kinds else -1
    check(first_py > 0 and all(k == "native" for k in kinds[:first_py]),
          "case 1: native frames (the ctypes call) must come before the first Python frame: %s" % kinds[:8])
    if "--whole" in sys.argv[4:]:
        check(0 <= last_py < len(kinds) - 1 and kinds[-1] == "native",
              "case 1: native frames (the interpreter, main) must come after the last Python frame")
    else:
        check(kinds[-1] == "py" and "native" not in kinds[first_py:],
              "case 1: the interpreter's own frames outside the Python ones must be cut: %s" % kinds[first_py:])

# 2: a method
f2 = one(2)
check(method(f2, "Model.forward", "forward") == [A, ("forward", m["forward"]), MAIN("main2"), MOD],
      "case 2: Python frames %s" % pyf(f2))
check(any(f[2] in ("Model.forward", "forward") for f in vtcheck.py_frames(f2)), "case 2: no forward frame")

# 3: C calls back into Python: two groups of Python frames, native frames (qsort) between
f3 = one(3)
want(3, f3, [A, ("cmp", m["cmp"]), ("sort_with_callback", m["qsort"]), MAIN("main3"), MOD])
if f3:
    i_cmp = next((i for i, f in enumerate(f3) if f[0] == "py" and f[2] == "cmp"), -1)
    i_sort = next((i for i, f in enumerate(f3) if f[0] == "py" and f[2] == "sort_with_callback"), -1)
    between = [f for f in f3[i_cmp + 1:i_sort]] if 0 <= i_cmp < i_sort else []
    check(between and all(f[0] == "native" for f in between),
          "case 3: native frames must separate cmp from sort_with_callback (got %d frames between)" % len(between))
    # symbolized: libc's qsort is among them
    site = None
    for s in vtcheck.sites(vramtrace, trace):
        fr = s["frames"]
        if any(x["kind"] == "python" and x["function"] == "cmp" for x in fr):
            site = fr
    if check(site is not None, "case 3: no site with the cmp frame in the report"):
        names = [x["function"] for x in site]
        ic = names.index("cmp")
        isw = names.index("sort_with_callback") if "sort_with_callback" in names else -1
        mid = names[ic + 1:isw]
        check(any("qsort" in n or "msort" in n for n in mid),
              "case 3: libc's qsort is not between cmp and sort_with_callback: %s" % mid)

# 4: a generator
f4 = one(4)
want(4, f4, [A, ("produce", m["produce"]), ("consume", m["consume"]), MAIN("main4"), MOD])

# 5: a Python thread: its own frames only (not main's)
a5 = t.by_size(5 * MiB)
f5 = a5[0]["frames"] if a5 else []
got5 = pyf(f5)
check(got5[:2] == [A, ("thread_main", m["thread"])], "case 5: %s" % got5)
check(not any(f == "main" for f, _ in got5), "case 5: the main thread's frames leaked into the thread's stack")
if a5:
    check(a5[0]["tid"] != t.by_size(1 * MiB)[0]["tid"], "case 5: allocated on the main thread")

# 6: a native thread: no Python frames, no crash
f6 = one(6)
check(f6 and not vtcheck.py_frames(f6), "case 6: a native thread has Python frames: %s" % vtcheck.py_frames(f6))

# 7, 8: one native stack, two Python paths, alternating: every allocation has its own path
for n, path, loop in ((7, "path_a", "loop_a"), (8, "path_b", "loop_b")):
    allocs = t.by_size(n * MiB)
    check(len(allocs) == 2, "case %d: %d allocations (want 2)" % (n, len(allocs)))
    for a in allocs:
        want(n, a["frames"], [A, ("common", m["common"]), (path, m[path]), ("main", m[loop]), MOD])

# 9: deep recursion: the innermost frames are kept, up to the recorder's limit (128)
f9 = one(9)
p9 = vtcheck.py_frames(f9)
check(len(p9) == 128, "case 9: %d Python frames (want the 128 innermost)" % len(p9))
check(pyf(f9)[:3] == [A, ("rec", m["rec_leaf"]), ("rec", m["rec"])], "case 9: %s" % pyf(f9)[:3])

# file names are absolute paths of the source
for a in t.allocs:
    for f in vtcheck.py_frames(a["frames"]):
        if f[2] == "alloc":
            check(os.path.isabs(f[1]) and os.path.basename(f[1]) == srcbase, "file name %r" % f[1])
            break

vtcheck.done("check_frames")
