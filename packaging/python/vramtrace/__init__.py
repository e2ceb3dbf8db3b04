# SPDX-License-Identifier: MIT
"""vramtrace: GPU memory profiler. The command (`vramtrace run -- python train.py`, or
`python -m vramtrace run -- ...`) and, for the program it traces, a small API:

    import vramtrace
    vramtrace.pause()              # allocations from here on are not recorded
    vramtrace.resume()
    vramtrace.mark("epoch 2")      # a named moment: on timelines, `top --at mark:epoch 2`
    with vramtrace.region("eval"): # a scope: what is allocated inside is grouped under it
        evaluate()

Each call talks to the recorder (libvramtrace.so, which `vramtrace run` preloads) through
the functions it exports. In a process that was not started under the recorder every call
does nothing, and the first one says so once (a RuntimeWarning). In Jupyter,
`%load_ext vramtrace` explains how to start the kernel under the recorder.
docs/python.md has the details.
"""
import contextlib
import ctypes
import functools
import threading
import warnings

__all__ = ["pause", "resume", "mark", "region", "is_recording", "load_ipython_extension"]
__version__ = "0.1.0"

_NOT_TRACED = ("vramtrace: this process was not started under the recorder, so vramtrace.%s() "
               "does nothing (run it as `vramtrace run -- python ...`)")
# The recorder's functions, looked up once (the recorder is preloaded before Python
# starts or not at all), and whether the one warning was given: process-wide by nature.
_lock = threading.Lock()
_api = None
_warned = False


class _Api:
    def __init__(self):
        me = ctypes.CDLL(None)
        self.set_recording = self._fn(me, "vramtrace_set_recording", ctypes.c_int, [ctypes.c_int])
        self.recording = self._fn(me, "vramtrace_recording", ctypes.c_int, [])
        self.scope_push = self._fn(me, "vramtrace_scope_push", ctypes.c_int, [ctypes.c_char_p])
        self.scope_pop = self._fn(me, "vramtrace_scope_pop", ctypes.c_int, [])
        self.mark = self._fn(me, "vramtrace_mark", ctypes.c_int, [ctypes.c_char_p])

    @staticmethod
    def _fn(lib, name, restype, argtypes):
        f = getattr(lib, name, None)
        if f is not None:
            f.restype = restype
            f.argtypes = argtypes
        return f


def _get():
    global _api
    if _api is None:
        with _lock:
            if _api is None:
                _api = _Api()
    return _api


def _not_traced(what):
    global _warned
    with _lock:
        if _warned:
            return
        _warned = True
    warnings.warn(_NOT_TRACED % what, RuntimeWarning, stacklevel=3)


def _call(what, fn, *args):
    """fn(*args), or the one warning when the recorder is absent or off (-1)."""
    if fn is None:
        _not_traced(what)
        return -1
    r = fn(*args)
    if r < 0:
        _not_traced(what)
    return r


def _name(text, what):
    if not isinstance(text, str):
        raise TypeError("vramtrace.%s() takes a str, not %s" % (what, type(text).__name__))
    return text.encode("utf-8", "replace")


def is_recording():
    """Whether allocations are being recorded now (False when not under the recorder,
    or paused)."""
    f = _get().recording
    return f is not None and f() == 1


def pause():
    """Stops recording allocations and frees of this process until resume(). The
    trace notes the pause, and reports say that memory allocated then is missing."""
    _call("pause", _get().set_recording, 0)


def resume():
    """Records again after pause()."""
    _call("resume", _get().set_recording, 1)


def mark(name):
    """Writes a named moment into the trace ("epoch 2", "eval start"): timelines draw it,
    and `vramtrace top --at mark:NAME` / `flamegraph --at mark:NAME` show memory then."""
    _call("mark", _get().mark, _name(name, "mark"))


class region(contextlib.ContextDecorator):
    """`with vramtrace.region("eval"):` (or as a decorator): allocations made inside, on
    this thread, have the scope "eval" (nested regions nest), as NVTX ranges and
    --torch-modules scopes do; reports group by it (`top --by layer`)."""

    def __init__(self, name):
        self._b = _name(name, "region")
        self._pushed = threading.local()

    def __enter__(self):
        api = _get()
        depth = _call("region", api.scope_push, self._b)
        stack = getattr(self._pushed, "stack", None)
        if stack is None:
            stack = self._pushed.stack = []
        stack.append(depth >= 0)
        return self

    def __exit__(self, *exc):
        stack = getattr(self._pushed, "stack", None)
        if stack and stack.pop():
            _get().scope_pop()
        return False


def load_ipython_extension(ipython):
    """`%load_ext vramtrace`: the recorder must be loaded before the kernel starts, so
    this says whether it is, and if not how to start a kernel under it."""
    from vramtrace import _jupyter
    _jupyter.explain(print)
