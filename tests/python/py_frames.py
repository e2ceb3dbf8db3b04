# SPDX-License-Identifier: MIT
"""Python frames in allocation stacks: allocations through the fake libcuda.so.1 (ctypes)
from known Python call paths. check_frames.py checks the trace this leaves.

Every allocation is N MiB, N naming the case; all stay live until the end. Lines that
allocate or call are marked with "# @name" comments, which the checker looks up.
    1  nested functions            level1 > level2 > level3 > alloc
    2  a method                    Model.forward > alloc
    3  C calls Python              sort_with_callback > libc qsort > cmp > alloc
    4  a generator                 consume > produce (generator) > alloc
    5  a Python thread             thread_main > alloc
    6  a native thread             (no Python frames)
    7  two Python paths, one       path_a > common > alloc   (same native stack as 8,
    8  native stack, in a loop    path_b > common > alloc    alternating 4 times)
    9  deep recursion              rec x 150 > alloc (only the innermost frames are kept)
"""
import ctypes
import os
import sys
import threading

MiB = 1 << 20
cuda = ctypes.CDLL("libcuda.so.1")
native = ctypes.CDLL(os.environ["VT_PY_NATIVE"])
native.native_thread_alloc.restype = ctypes.c_ulonglong
native.native_thread_alloc.argtypes = [ctypes.c_size_t]
assert cuda.cuInit(0) == 0
live = []


def alloc(n):
    p = ctypes.c_uint64()
    r = cuda.cuMemAlloc_v2(ctypes.byref(p), ctypes.c_size_t(n * MiB))  # @alloc
    assert r == 0, r
    live.append(p.value)


def level3():
    alloc(1)  # @level3


def level2():
    level3()  # @level2


def level1():
    level2()  # @level1


class Model:
    def forward(self):
        alloc(2)  # @forward


CMP = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_int))
done_cmp = []


def cmp(a, b):
    if not done_cmp:
        done_cmp.append(1)
        alloc(3)  # @cmp
    return a[0] - b[0]


def sort_with_callback():
    libc = ctypes.CDLL(None)
    arr = (ctypes.c_int * 4)(4, 3, 2, 1)
    libc.qsort(arr, 4, ctypes.sizeof(ctypes.c_int), CMP(cmp))  # @qsort
    assert list(arr) == [1, 2, 3, 4]


def produce():
    alloc(4)  # @produce
    yield 1


def consume():
    for _ in produce():  # @consume
        pass


def thread_main():
    alloc(5)  # @thread


def common(n):
    alloc(n)  # @common


def path_a():
    common(7)  # @path_a


def path_b():
    common(8)  # @path_b


def rec(k):
    if k == 0:
        alloc(9)  # @rec_leaf
    else:
        rec(k - 1)  # @rec


def main():
    level1()  # @main1
    Model().forward()  # @main2
    sort_with_callback()  # @main3
    consume()  # @main4
    t = threading.Thread(target=thread_main, name="pythread")
    t.start()
    t.join()
    p = native.native_thread_alloc(6 * MiB)
    assert p
    live.append(p)
    for i in range(4):
        if i % 2:
            path_a()  # @loop_a
        else:
            path_b()  # @loop_b
    sys.setrecursionlimit(1000)
    rec(150)  # @main9
    for p in live:
        assert cuda.cuMemFree_v2(ctypes.c_uint64(p)) == 0


if __name__ == "__main__":
    main()  # @module
