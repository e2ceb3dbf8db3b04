from .module import Module, ModuleList  # noqa: F401
