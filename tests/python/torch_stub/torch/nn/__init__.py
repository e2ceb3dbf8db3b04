# SPDX-License-Identifier: MIT
# nn/__init__.py - stub of torch.nn: Module and ModuleList.
from .modules.module import Module, ModuleList  # noqa: F401
from .modules import module as _module  # noqa: F401
