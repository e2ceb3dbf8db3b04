# SPDX-License-Identifier: MIT
# train.py - a "training script" on the stand-in libtorch_cuda.so (fake_framework/):
# the Python line that asks for a tensor is what report and the run summary must show
# first. Allocates 48 MiB through aten::log_softmax from forward() and 8 MiB through a
# bare empty from the module level, 4 MiB through a backward op on a native thread (no
# Python frames: the views say so instead of printing the op's C++ frames), then 32 MiB it frees: the driver's pool keeps them
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
torch_cuda.fake_torch_backward.restype = ctypes.c_void_p
torch_cuda.fake_torch_backward.argtypes = [ctypes.c_size_t]


def forward(n):
    return torch_cuda.fake_torch_log_softmax(n << 20)  # the line the views must name


out = [forward(16) for _ in range(3)]
scratch = torch_cuda.fake_torch_empty(8 << 20)
grad = torch_cuda.fake_torch_backward(4 << 20)  # on a thread of its own, as autograd's
assert all(out) and scratch and grad
tmp = torch_cuda.fake_torch_empty(32 << 20)
torch_cuda.fake_torch_free(tmp)
time.sleep(0.3)  # the writer samples the pool (every VRAMTRACE_NVML_MS, 10 ms by default)
