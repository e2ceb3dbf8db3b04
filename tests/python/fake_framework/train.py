# SPDX-License-Identifier: MIT
# train.py - a "training script" on the stand-in libtorch_cuda.so (fake_framework/):
# the Python line that asks for a tensor is what report and the run summary must show
# first. Allocates 48 MiB through aten::log_softmax from forward() and 8 MiB through a
# bare empty from the module level, then 32 MiB it frees: the driver's pool keeps them
# (pool slack), and the recorder's pool sample after the free must say so.
import ctypes
import os
import time

torch_cuda = ctypes.CDLL(os.environ["VT_FAKE_TORCH"])
torch_cuda.fake_torch_log_softmax.restype = ctypes.c_void_p
torch_cuda.fake_torch_log_softmax.argtypes = [ctypes.c_size_t]
torch_cuda.fake_torch_empty.restype = ctypes.c_void_p
torch_cuda.fake_torch_empty.argtypes = [ctypes.c_size_t]
torch_cuda.fake_torch_free.argtypes = [ctypes.c_void_p]


def forward(n):
    return torch_cuda.fake_torch_log_softmax(n << 20)  # the line the views must name


out = [forward(16) for _ in range(3)]
scratch = torch_cuda.fake_torch_empty(8 << 20)
assert all(out) and scratch
tmp = torch_cuda.fake_torch_empty(32 << 20)
torch_cuda.fake_torch_free(tmp)
time.sleep(0.3)  # the writer samples the pool (every VRAMTRACE_NVML_MS, 10 ms by default)
