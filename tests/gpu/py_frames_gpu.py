#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Python frames on the GPU machine's own python3: tensors allocated by PyTorch from known
Python functions (main thread), from a Python thread, and in backward (autograd's
thread), under `vramtrace run --per-tensor`. tests/gpu/python_layers.sh checks the trace
with `vramtrace top --by layer` (the functions must be named) and `report --json`
(their frames must be spliced between native frames)."""
import threading

import torch


def make_activation(n):
    return torch.empty(n, device="cuda")  # allocates: caching off with --per-tensor


def forward_like():
    return make_activation(3 << 20)


def in_thread(out):
    out.append(make_activation(5 << 20))


def main():
    keep = [forward_like()]
    t = threading.Thread(target=in_thread, args=(keep,))
    t.start()
    t.join()
    w = torch.randn(1024, 1024, device="cuda", requires_grad=True)
    (w @ w).sum().backward()
    torch.cuda.synchronize()
    print("ok", sum(x.numel() for x in keep))


if __name__ == "__main__":
    main()
