# SPDX-License-Identifier: MIT
# _tensor.py - stub of torch._tensor: Tensor with grad_fn and hooks, grad mode, no_grad.
import threading

_grad = threading.local()


def is_grad_enabled():
    return getattr(_grad, "on", True)


class no_grad(object):
    def __enter__(self):
        self.prev = is_grad_enabled()
        _grad.on = False

    def __exit__(self, *a):
        _grad.on = self.prev


class _Node(object):
    """What produced a tensor; backward calls it after the tensor's hooks."""

    def __init__(self, backward_fn):
        self.backward_fn = backward_fn


class Tensor(object):
    """A tensor: requires_grad, grad_fn (set for results of operations), hooks. The
    tape of all tensors made with grad_fn is what backward walks, newest first."""
    tape = []

    def __init__(self, requires_grad=False, backward_fn=None):
        self.requires_grad = requires_grad
        self.grad_fn = _Node(backward_fn) if requires_grad and backward_fn and is_grad_enabled() else None
        self._hooks = []
        if self.grad_fn is not None:
            Tensor.tape.append(self)

    def register_hook(self, hook):
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        self._hooks.append(hook)
        return hook
