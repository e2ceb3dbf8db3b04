# SPDX-License-Identifier: MIT
"""A stand-in for JAX in the tests: only what vramtrace's JAX hook touches (jax.jit with
donate_argnums, jax.grad, jax.value_and_grad, jax.tree_util's flatten with key paths,
jax.core.Tracer, jax.Array.unsafe_buffer_pointer / nbytes / addressable_shards), with
the same names and calling conventions. Arrays are buffers of the fake driver
(libcuda.so.1 of tests/fakecuda), so the recorder sees them; a jitted call allocates a
temp buffer first, then its outputs, and frees the temp at the end, like XLA's
executables; an output then takes over the buffer of a donated input of its size, as
XLA's aliasing does (so across steps the weights stay at the same addresses)."""
__version__ = "0.0+vramtrace.stub"

import ctypes

from . import core, tree_util  # noqa: F401

_cuda = ctypes.CDLL("libcuda.so.1")
assert _cuda.cuInit(0) == 0
# JAXSTUB_BFC=BYTES: like XLA's default allocator, one block of BYTES allocated at the
# first array, buffers carved from it (never freed to the driver).
_bfc = [0, 0]


def _alloc(n):
    import os
    if os.environ.get("JAXSTUB_BFC"):
        if not _bfc[0]:
            p = ctypes.c_uint64()
            assert _cuda.cuMemAlloc_v2(ctypes.byref(p), ctypes.c_size_t(int(os.environ["JAXSTUB_BFC"]))) == 0
            _bfc[0] = _bfc[1] = p.value
        _bfc[1] += (n + 255) // 256 * 256
        return _bfc[1] - n
    p = ctypes.c_uint64()
    assert _cuda.cuMemAlloc_v2(ctypes.byref(p), ctypes.c_size_t(n)) == 0
    return p.value


class _Shard(object):
    def __init__(self, data):
        self.data = data


class Array(object):
    def __init__(self, nbytes, sharded=False):
        self.nbytes = nbytes
        self._ptr = _alloc(nbytes)
        self._sharded = sharded

    def unsafe_buffer_pointer(self):
        if self._ptr is None:
            raise RuntimeError("Array has been deleted")
        if self._sharded:
            raise ValueError("unsafe_buffer_pointer() is supported only for unsharded arrays")
        return self._ptr

    @property
    def addressable_shards(self):
        if self._ptr is None:
            raise RuntimeError("Array has been deleted")
        v = Array.__new__(Array)
        v.nbytes, v._ptr, v._sharded = self.nbytes, self._ptr, False
        v._view = True
        return [_Shard(v)]

    def _give(self):
        """Donated: the buffer goes to an output; this array is deleted."""
        p, self._ptr = self._ptr, None
        return p

    def __del__(self):
        if self._ptr is not None and not getattr(self, "_view", False) and not _bfc[0]:
            _cuda.cuMemFree_v2(ctypes.c_uint64(self._ptr))
            self._ptr = None


class _Traced(Array, core.Tracer):
    """What jax.grad returns under jit: a tracer (the stand-in still allocates it)."""


_in_jit = [0]


def zeros_like(a):
    return _Traced(a.nbytes) if _in_jit[0] else Array(a.nbytes)


class _Jit(object):
    def __init__(self, fun, donate_argnums=()):
        self.fun = fun
        self.donate = (donate_argnums,) if isinstance(donate_argnums, int) else tuple(donate_argnums)

    def __call__(self, *args):
        temp = Array(1 << 20)  # XLA's temp buffer: before the outputs
        _in_jit[0] += 1
        try:
            out = self.fun(*args)
        finally:
            _in_jit[0] -= 1
        del temp
        for leaf in tree_util.tree_leaves(out):  # results are concrete again
            if isinstance(leaf, _Traced):
                leaf.__class__ = Array
        donor = [leaf for i in self.donate for leaf in tree_util.tree_leaves(args[i]) if isinstance(leaf, Array)]
        for leaf in tree_util.tree_leaves(out):
            for k, d in enumerate(donor):
                if isinstance(leaf, Array) and d.nbytes == leaf.nbytes:
                    if not _bfc[0]:
                        _cuda.cuMemFree_v2(ctypes.c_uint64(leaf._ptr))
                    leaf._ptr = d._give()
                    del donor[k]
                    break
        for d in donor:  # donated, taken by no output: deleted all the same
            p = d._give()
            if p is not None and not _bfc[0]:
                _cuda.cuMemFree_v2(ctypes.c_uint64(p))
        return out

    def lower(self, *args):
        return "lowered"


def jit(fun, donate_argnums=(), **kw):
    return _Jit(fun, donate_argnums)


def grad(fun):
    def g(params, *a):
        return tree_util.tree_map(zeros_like, params)
    return g


def value_and_grad(fun):
    def vg(params, *a):
        return Array(4), tree_util.tree_map(zeros_like, params)
    return vg
