# SPDX-License-Identifier: MIT
"""Cost of Python frames in allocation stacks: cuMemAlloc_v2 + cuMemFree_v2 pairs through
ctypes (fake libcuda.so.1) from a given Python call depth.

    py_bench.py [-n PAIRS] [-d DEPTH]

Prints one line: depth=D pairs=N ns_per_pair=X (wall time of the timed loop / N).
bench_py.sh runs it untraced and under the recorder with Python frames off and on."""
import argparse
import ctypes
import sys
import time

ap = argparse.ArgumentParser()
ap.add_argument("-n", type=int, default=200000)
ap.add_argument("-d", type=int, default=10)
a = ap.parse_args()
cuda = ctypes.CDLL("libcuda.so.1")
assert cuda.cuInit(0) == 0
alloc, free = cuda.cuMemAlloc_v2, cuda.cuMemFree_v2
alloc.argtypes = [ctypes.POINTER(ctypes.c_uint64), ctypes.c_size_t]
free.argtypes = [ctypes.c_uint64]
p = ctypes.c_uint64()
ref = ctypes.byref(p)


def loop(n):
    for _ in range(n):
        alloc(ref, 1 << 20)
        free(p.value)


def at_depth(d, n):
    if d <= 1:
        loop(n // 10)  # warm-up: stacks and caches filled
        t0 = time.perf_counter_ns()
        loop(n)
        return time.perf_counter_ns() - t0
    return at_depth(d - 1, n)


sys.setrecursionlimit(max(1000, a.d + 100))
ns = at_depth(a.d, a.n)
print("depth=%d pairs=%d ns_per_pair=%.1f" % (a.d, a.n, ns / a.n))
