# SPDX-License-Identifier: MIT
"""A stand-in for PyTorch in the tests: only what vramtrace's --torch-modules hook uses
(global module hooks, named_modules, Tensor.register_hook, the autograd engine's
queue_callback, torch.compiler.is_compiling), with the same names and calling
conventions. Backward runs on a worker thread of its own, as PyTorch's autograd runs
CUDA work on per-device threads."""
__version__ = "0.0+vramtrace.stub"

from . import autograd, compiler, nn  # noqa: F401
from ._tensor import Tensor, is_grad_enabled, no_grad  # noqa: F401
