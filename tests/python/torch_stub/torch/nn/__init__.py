from .modules.module import Module, ModuleList  # noqa: F401
from .modules import module as _module  # noqa: F401
