# SPDX-License-Identifier: MIT
"""Stand-in for torch._inductor.codecache: loads a generated module from its path."""
import importlib.util


class PyCodeCache(object):
    @classmethod
    def load_by_key_path(cls, key, path):
        spec = importlib.util.spec_from_file_location(key, path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod
