# SPDX-License-Identifier: MIT
"""The vramtrace Python API (packaging/python/vramtrace) under the recorder and the fake
driver; check_api.py checks the trace. Allocations (MiB), all live to the end unless said:
    1  before "epoch 1"
    2  then, freed after "epoch 2"
    4  inside region("eval") (nested region("inner"): 16)
    8  while paused: not in the trace
    32 after resume
With VT_API_UNTRACED=1 (no recorder) every call must be a no-op with one warning."""
import ctypes
import os
import sys
import warnings

import vramtrace

MiB = 1 << 20
cuda = ctypes.CDLL("libcuda.so.1")
assert cuda.cuInit(0) == 0


def alloc(n):
    p = ctypes.c_uint64()
    assert cuda.cuMemAlloc_v2(ctypes.byref(p), ctypes.c_size_t(n * MiB)) == 0
    return p


untraced = os.environ.get("VT_API_UNTRACED") == "1"
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    assert vramtrace.is_recording() == (not untraced)
    alloc(1)
    vramtrace.mark("epoch 1")
    two = alloc(2)
    with vramtrace.region("eval"):
        alloc(4)
        with vramtrace.region("inner"):
            alloc(16)
    vramtrace.pause()
    assert not vramtrace.is_recording()
    alloc(8)
    vramtrace.resume()
    assert vramtrace.is_recording() == (not untraced)
    vramtrace.mark("epoch 2")
    assert cuda.cuMemFree_v2(two) == 0
    alloc(32)

    @vramtrace.region("decorated")
    def f():
        return 7
    assert f() == 7
    try:
        vramtrace.mark(3)
        raise SystemExit("mark(3) did not raise TypeError")
    except TypeError:
        pass
msgs = [str(x.message) for x in w if issubclass(x.category, RuntimeWarning)]
if untraced:
    assert len(msgs) == 1 and "not started under the recorder" in msgs[0], msgs
else:
    assert not msgs, msgs
print("api_prog: ok")
