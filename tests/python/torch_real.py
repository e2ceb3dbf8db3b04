# SPDX-License-Identifier: MIT
"""--torch-modules with the real PyTorch, on the CPU: modules whose forward and backward
allocate through the fake libcuda.so.1 (ctypes), inside an autograd Function. Registered
only when `import torch` works. Writes the scopes each allocation must have to
$VT_EXPECT for check_scopes.py.

It also checks that the hooks change nothing a module computes: outputs are modified in
place (which PyTorch's full backward hooks would refuse), and the gradients match a run
without hooks."""
import builtins
import ctypes
import json
import os

import torch

MiB = 1 << 20
cuda = ctypes.CDLL("libcuda.so.1")
assert cuda.cuInit(0) == 0
expect = []
_next = [1]


def alloc(scopes):
    n = _next[0]
    _next[0] += 1
    p = ctypes.c_uint64()
    assert cuda.cuMemAlloc_v2(ctypes.byref(p), ctypes.c_size_t(n * MiB)) == 0
    if scopes is not None:
        expect.append({"mib": n, "scopes": list(scopes)})


class Tap(torch.autograd.Function):
    """The identity, allocating in forward and in backward."""

    @staticmethod
    def forward(ctx, x, fwd, bwd):
        ctx.bwd = bwd
        alloc(fwd)
        return x.clone()

    @staticmethod
    def backward(ctx, g):
        alloc(ctx.bwd)
        return g, None, None


class Block(torch.nn.Module):
    def __init__(self, name):
        super().__init__()
        self.qname = name
        self.lin = torch.nn.Linear(4, 4)

    def forward(self, x, chain):
        y = self.lin(x)
        y.relu_()  # in place on a submodule's output
        return Tap.apply(y, chain + [self.qname], [self.qname])


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = Block("a")
        self.b = Block("b")

    def forward(self, x):
        c = ["Net"]
        return self.b(self.a(x, c), c)


def main():
    assert getattr(builtins, "__vt_other_site__", False), "the other sitecustomize did not run"
    torch.manual_seed(0)
    net = Net()
    x = torch.randn(3, 4, requires_grad=True)
    net(x).sum().backward()
    g = x.grad.clone()
    # again: the same scopes, and the same gradients
    x.grad = None
    net(x).sum().backward()
    assert torch.equal(g, x.grad), "the hooks changed a gradient"
    with open(os.environ["VT_EXPECT"], "w") as f:
        json.dump(expect, f)


if __name__ == "__main__":
    main()
