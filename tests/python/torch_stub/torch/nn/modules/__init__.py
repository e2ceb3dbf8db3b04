# SPDX-License-Identifier: MIT
# nn/modules/__init__.py - stub of torch.nn.modules.
from .module import Module, ModuleList  # noqa: F401
