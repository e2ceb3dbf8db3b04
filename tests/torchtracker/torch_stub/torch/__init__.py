# SPDX-License-Identifier: MIT
"""A stand-in torch for tests/torchtracker: the little of torch.cuda that vramtrace's
vt_torch_blocks.py uses, over the stand-in libc10_cuda.so named by FAKE_C10 (loaded
RTLD_LOCAL, as torch loads its libraries)."""
import ctypes
import os

__version__ = os.environ.get("FAKE_TORCH_VERSION", "2.11.0+cu130")
_c10 = ctypes.CDLL(os.environ["FAKE_C10"], mode=os.RTLD_LOCAL)
_c10.fake_emit.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_uint64, ctypes.c_uint64, ctypes.c_uint64,
                           ctypes.c_int]
_c10.fake_trackers.restype = ctypes.c_size_t


class _Cuda(object):
    def __init__(self):
        self._queued = []
        self._up = False

    def _lazy_call(self, fn):
        if self._up:
            fn()
        else:
            self._queued.append(fn)

    def init(self):
        self._up = True
        for fn in self._queued:
            fn()

    def get_allocator_backend(self):
        return os.environ.get("FAKE_BACKEND", "native")

    def emit(self, action, addr, size):
        _c10.fake_emit(action, 0, addr, size, 0, 0)

    def trackers(self):
        return _c10.fake_trackers()


cuda = _Cuda()
