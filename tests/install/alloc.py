# SPDX-License-Identifier: MIT
"""A traced program for the install tests: 3 MiB and 5 MiB through the fake
libcuda.so.1 (tests/fakecuda), the 5 MiB freed before the end."""
import ctypes

cuda = ctypes.CDLL("libcuda.so.1")
assert cuda.cuInit(0) == 0
a, b = ctypes.c_uint64(), ctypes.c_uint64()
assert cuda.cuMemAlloc_v2(ctypes.byref(a), ctypes.c_size_t(3 << 20)) == 0
assert cuda.cuMemAlloc_v2(ctypes.byref(b), ctypes.c_size_t(5 << 20)) == 0
assert cuda.cuMemFree_v2(b) == 0
print("alloc.py done")
