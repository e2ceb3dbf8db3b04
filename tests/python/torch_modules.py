# SPDX-License-Identifier: MIT
"""--torch-modules with the stand-in torch package (torch_stub/): a small BERT-shaped model
whose modules allocate through the fake libcuda.so.1 in forward, and whose gradients
allocate on the stand-in's autograd worker thread in backward.

Writes what each allocation's scopes must be to $VT_EXPECT (JSON: a list of
{"mib": N, "scopes": [outermost first]}); check_scopes.py compares with the trace.
Every allocation has its own size in MiB.
"""
import builtins
import ctypes
import gc
import importlib.util
import json
import os
import weakref

# Libraries probe for torch before importing it (transformers does): the hook must
# still see the import that follows.
assert importlib.util.find_spec("torch") is not None
import torch  # noqa: E402  the stand-in (PYTHONPATH), imported after the hook is in place

MiB = 1 << 20
cuda = ctypes.CDLL("libcuda.so.1")
assert cuda.cuInit(0) == 0
expect = []
_next = [1]


def alloc(scopes):
    """Allocates a new size; records the scopes it must have."""
    n = _next[0]
    _next[0] += 1
    p = ctypes.c_uint64()
    assert cuda.cuMemAlloc_v2(ctypes.byref(p), ctypes.c_size_t(n * MiB)) == 0
    expect.append({"mib": n, "scopes": list(scopes)})
    return p.value


class Linear(torch.nn.Module):
    def __init__(self, name):
        torch.nn.Module.__init__(self)
        self.qname = name

    def forward(self, x, chain):
        alloc(chain + [self.qname])
        # its gradient is computed on the autograd thread, in this module's backward scope
        return torch.Tensor(True, lambda: alloc([self.qname]))


class SelfAttention(torch.nn.Module):
    def __init__(self, p):
        torch.nn.Module.__init__(self)
        self.qname = p
        self.query = Linear(p + ".query")
        self.key = Linear(p + ".key")

    def forward(self, x, chain):
        c = chain + [self.qname]
        q = self.query(x, c)
        self.key(x, c)
        alloc(c)  # the attention scores: in self, outside any submodule
        return q


class Attention(torch.nn.Module):
    def __init__(self, p):
        torch.nn.Module.__init__(self)
        self.qname = p
        self.self = SelfAttention(p + ".self")
        self.output = Linear(p + ".output")

    def forward(self, x, chain):
        c = chain + [self.qname]
        self.self(x, c)
        return self.output(x, c)


class Layer(torch.nn.Module):
    def __init__(self, p):
        torch.nn.Module.__init__(self)
        self.qname = p
        self.attention = Attention(p + ".attention")
        self.ffn = Linear(p + ".ffn")

    def forward(self, x, chain):
        c = chain + [self.qname]
        self.attention(x, c)
        return self.ffn(x, c)  # the layer outputs its ffn's tensor: ffn stays the scope


class Model(torch.nn.Module):
    def __init__(self):
        torch.nn.Module.__init__(self)
        self.encoder = Encoder()

    def forward(self, x):
        c = ["Model"]
        out = self.encoder(x, c)
        alloc(c)  # the loss, in the model itself
        return out


class Encoder(torch.nn.Module):
    def __init__(self):
        torch.nn.Module.__init__(self)
        self.qname = "encoder"
        self.layer = torch.nn.ModuleList([Layer("encoder.layer.%d" % i) for i in range(2)])

    def forward(self, x, chain):
        c = chain + [self.qname]
        for m in self.layer:
            x = m(x, c)
        return x


class Net(torch.nn.Module):
    """A submodule its owner calls from a method, not from its forward."""
    def __init__(self):
        torch.nn.Module.__init__(self)
        setattr(self, "0", Linear("net.0"))

    def forward(self, x, chain):
        c = chain + ["net"]
        alloc(c)
        return self._modules["0"](x, c)


class LitModel(torch.nn.Module):
    """Lightning's shape: training_step calls self.net; the root's forward never runs."""
    def __init__(self):
        torch.nn.Module.__init__(self)
        self.net = Net()

    def training_step(self):
        return self.net(None, [])


class Wrapped(torch.nn.Module):
    def __init__(self):
        torch.nn.Module.__init__(self)
        self.head = Linear("head")

    def forward(self, x):
        c = ["Wrapped"]
        alloc(c)
        return self.head(x, c)


class OptimizedModule(torch.nn.Module):
    """torch.compile's wrapper (by its class name): it and the model it wraps are one
    scope, named by the model's class."""
    def __init__(self, mod):
        torch.nn.Module.__init__(self)
        self._orig_mod = mod

    def forward(self, x):
        alloc(["Wrapped"])  # the wrapper's own (a compiled graph's buffers)
        return self._orig_mod(x)


def main():
    assert getattr(builtins, "__vt_other_site__", False), "the other sitecustomize did not run"
    alloc([])  # before any module: no scope
    model = Model()
    model(None)
    torch.autograd.backward()
    # after backward ended, the autograd thread has no scope any more
    torch.autograd.Variable._execution_engine.run_on_worker(lambda: alloc([]))
    with torch.no_grad():  # forward without grad: scopes, no backward hooks
        model(None)
        lit = LitModel()
        lit.training_step()  # qualified from LitModel: net, net.0
        del lit
        OptimizedModule(Wrapped())(None)
    # the hook keeps no model alive
    ref = weakref.ref(model)
    del model
    gc.collect()
    assert ref() is None, "the model was kept alive after its last use"
    with open(os.environ["VT_EXPECT"], "w") as f:
        json.dump(expect, f)


if __name__ == "__main__":
    main()
