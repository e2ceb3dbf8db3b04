# SPDX-License-Identifier: MIT
"""tests/torchtracker: the Python path. Under `vramtrace run`, the start-up hook must
attach the tracker to the stand-in torch's allocator once torch.cuda is initialised;
then blocks made here carry this file's frames. Prints the tracker count."""
import ctypes

import torch

ALLOC, FREE_COMPLETED, SEGMENT_ALLOC = 0, 2, 3
torch.cuda.init()

# a segment from the (fake) driver, as the caching allocator grows one
cu = ctypes.CDLL("libcuda.so.1")
dev, ctx, seg = ctypes.c_int(), ctypes.c_void_p(), ctypes.c_uint64()
assert cu.cuInit(0) == 0 and cu.cuDeviceGet(ctypes.byref(dev), 0) == 0
assert cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev) == 0 and cu.cuCtxSetCurrent(ctx) == 0
assert cu.cuMemAlloc_v2(ctypes.byref(seg), ctypes.c_size_t(4 << 20)) == 0
torch.cuda.emit(SEGMENT_ALLOC, seg.value, 4 << 20)


def make_weights():
    torch.cuda.emit(ALLOC, seg.value, 1 << 20)


def step():
    torch.cuda.emit(ALLOC, seg.value + (1 << 20), 1 << 19)
    torch.cuda.emit(FREE_COMPLETED, seg.value + (1 << 20), 1 << 19)


make_weights()
for _ in range(3):
    step()
print("trackers", torch.cuda.trackers())
