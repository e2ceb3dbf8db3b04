# SPDX-License-Identifier: MIT
"""--torch-modules under torch.compile, with the stand-in Inductor (torch_stub/torch/
_inductor): a "compiled graph" whose buffers come from known modules is generated, loaded
through PyCodeCache and run; its allocations (through the fake libcuda.so.1) must get
those modules as layers, from the SOURCE records the hook writes. One buffer has no
module stack (no layer from the hook), one comes from an extern kernel, and more lines
reuse buffers than allocate them, as in a backward graph. With VT_TEST_CACHED=1 the
same module is loaded as from Inductor's cache (below).

Writes {"layers": {layer: MiB}} to $VT_EXPECT for check_layers_compile.py."""
import ctypes
import json
import os
import tempfile

import torch  # noqa: F401  the stand-in (PYTHONPATH): the hook installs on its import
from torch._inductor import codecache
from torch._inductor.codegen import wrapper

MiB = 1 << 20
cuda = ctypes.CDLL("libcuda.so.1")
assert cuda.cuInit(0) == 0


def empty_strided_cuda(mib):
    p = ctypes.c_uint64()
    assert cuda.cuMemAlloc_v2(ctypes.byref(p), ctypes.c_size_t(mib * MiB)) == 0
    return p.value


class Node(object):
    def __init__(self, name, path):
        self.name = name
        self.meta = {"nn_module_stack": {path: (path, object)}} if path else {}


class Buffer(object):
    def __init__(self, name, mib, *paths):
        self.name, self.mib = name, mib
        self.origins = {Node("n%d" % i, p) for i, p in enumerate(paths)}

    def get_name(self):
        return self.name


# VT_TEST_CACHED=1: a second run, where Inductor loads the graph from its cache and
# generates nothing (here: the wrapper sees buffers without module stacks); the layers
# must come from what the first run's hook kept.
cached = os.environ.get("VT_TEST_CACHED") == "1"
stacks = [["L['self'].transformer.h.0.attn.c_attn", "L['self'].transformer.h.0.attn.c_attn",
           "L['self'].transformer.h.0.ln_1"], ["L['self'].transformer.h.1.mlp.c_fc"], [],
          ["L['self'].lm_head"]]
if cached:
    stacks = [[] for _ in stacks]
bufs = [Buffer("buf0", 3, *stacks[0]), Buffer("buf1", 5, *stacks[1]), Buffer("buf2", 7, *stacks[2])]
ext = Buffer("buf3", 11, *stacks[3])
w = wrapper.PythonWrapperCodegen()
lines = [w.make_buffer_allocation(b) for b in bufs]
w.generate_extern_kernel_alloc(ext, [])
lines += w.lines
# a backward graph's wrapper has more lines that reuse or view buffers than that allocate
lines += ["buf%d = buf%d  # reuse" % (10 + i, i % 3) for i in range(6)]
src = ("def empty_strided_cuda(mib):\n    return ALLOC(mib)\n\n\nclass extern_kernels:\n"
       "    mm = staticmethod(lambda mib: ALLOC(mib))\n\n\ndef call():\n" +
       "".join("    %s\n" % l for l in lines) + "    return [%s]\n" % ", ".join(b.name for b in bufs + [ext]))
d = tempfile.mkdtemp(prefix="torchinductor_test")
path = os.path.join(d, "cabc.py")
with open(path, "w") as f:
    f.write(src)
mod = codecache.PyCodeCache.load_by_key_path("cabc", path)
mod.ALLOC = empty_strided_cuda
mod.call()
with open(os.environ["VT_EXPECT"], "w") as f:
    json.dump({"layers": {"transformer.h.0.attn.c_attn": 3, "transformer.h.1.mlp.c_fc": 5, "lm_head": 11}}, f)
