# SPDX-License-Identifier: MIT
"""vramtrace's PyTorch blocks: attaches an allocator trace tracker to PyTorch's CUDA
caching allocator, so that the trace holds every block (tensor) inside the allocator's
segments, with its stack, without changing the allocator (docs/python.md, "PyTorch
blocks"). Loaded by the start-up hook (sitecustomize.py, next to this file) once the
program has imported torch.

The tracker itself is C++ (libvramtrace_torch.so, next to libvramtrace.so); this file
only decides when to attach it: after CUDA is initialised (the allocator attaches the
tracker to each device's allocator that exists then), through torch.cuda._lazy_call,
which runs at once when CUDA is up already. It attaches only to the native backend (with
backend:cudaMallocAsync every tensor is a driver allocation already). When it cannot
attach, one line on stderr says why, and the trace has segments only.
VRAMTRACE_TORCH_BLOCKS=0 turns it off.
"""
import os
import sys


def _warn(msg):
    try:
        sys.stderr.write("vramtrace: %s\n" % msg)
    except Exception:
        pass


def attach(torch, libdir):
    """Arranges for the tracker to be attached; never raises."""
    if os.environ.get("VRAMTRACE_TORCH_BLOCKS", "1") == "0":
        return
    import ctypes

    try:
        ctypes.CDLL(None).vramtrace_torch_event
    except (OSError, AttributeError):
        return  # the recorder is not in this process
    cuda = getattr(torch, "cuda", None)
    lazy = getattr(cuda, "_lazy_call", None)
    if lazy is None:
        return  # no CUDA in this torch (or a stand-in's)

    def go():
        try:
            backend = cuda.get_allocator_backend()
        except Exception:
            backend = "native"
        if backend != "native":
            return  # cudaMallocAsync: the driver sees every tensor
        try:
            shim = ctypes.CDLL(os.path.join(libdir, "libvramtrace_torch.so"))
            shim.vt_torch_attach.argtypes = [ctypes.c_char_p]
            shim.vt_torch_attach.restype = ctypes.c_int
            shim.vt_torch_why.argtypes = [ctypes.c_int]
            shim.vt_torch_why.restype = ctypes.c_char_p
            rc = shim.vt_torch_attach(str(torch.__version__).encode())
        except Exception as e:
            _warn("PyTorch's blocks are not traced (%s: %s); the trace has its segments" % (type(e).__name__, e))
            return
        if rc != 0:
            _warn("PyTorch's blocks are not traced (torch %s: %s); the trace has its segments"
                  % (torch.__version__, shim.vt_torch_why(rc).decode()))
        elif os.environ.get("VRAMTRACE_DEBUG", "0") not in ("", "0"):
            _warn("PyTorch's allocator trace tracker attached (torch %s)" % torch.__version__)

    try:
        lazy(go)
    except Exception as e:
        _warn("PyTorch's blocks are not traced (%s: %s)" % (type(e).__name__, e))
