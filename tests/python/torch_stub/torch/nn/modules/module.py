# SPDX-License-Identifier: MIT
"""nn.Module's hook machinery, as PyTorch has it (register_module_forward_pre_hook,
register_module_forward_hook with always_call, named_modules)."""
from collections import OrderedDict

_global_forward_pre_hooks = []
_global_forward_hooks = []   # (hook, always_call)


def register_module_forward_pre_hook(hook):
    _global_forward_pre_hooks.append(hook)
    return hook


def register_module_forward_hook(hook, *, with_kwargs=False, always_call=False):
    _global_forward_hooks.append((hook, always_call))
    return hook


class Module(object):
    def __init__(self):
        object.__setattr__(self, "_modules", OrderedDict())

    def __setattr__(self, name, value):
        if isinstance(value, Module):
            self._modules[name] = value
        object.__setattr__(self, name, value)

    def named_modules(self, memo=None, prefix=""):
        if memo is None:
            memo = set()
        if id(self) in memo:
            return
        memo.add(id(self))
        yield prefix, self
        for name, m in self._modules.items():
            yield from m.named_modules(memo, prefix + ("." if prefix else "") + name)

    def __call__(self, *args):
        for h in list(_global_forward_pre_hooks):
            h(self, args)
        try:
            out = self.forward(*args)
        except BaseException:
            for h, always in list(_global_forward_hooks):
                if always:
                    h(self, args, None)
            raise
        for h, _ in list(_global_forward_hooks):
            h(self, args, out)
        return out


class ModuleList(Module):
    def __init__(self, mods):
        Module.__init__(self)
        for i, m in enumerate(mods):
            setattr(self, str(i), m)

    def __iter__(self):
        return iter(self._modules.values())

    def __getitem__(self, i):
        return list(self._modules.values())[i]
