# SPDX-License-Identifier: MIT
"""Layers under torch.compile: which module of the model each buffer of Inductor's
generated code comes from (docs/python.md, "torch.compile").

Eager, the --torch-modules hooks name the module whose forward runs as a scope of the
allocating thread. A compiled graph runs none of the modules' forwards: its generated
module (/tmp/torchinductor_<user>/xx/c....py) allocates every buffer in one function,
`call()`, and names no module. Inductor knows, though: each buffer's IR node keeps the
FX nodes it was made from, and those keep the module stack dynamo traced them under
(`nn_module_stack` in the forward graph; `fwd_nn_module_stack`, copied from the forward
node, in the backward graph).

So, once torch._inductor.codecache is imported (a program compiling something):
1. PythonWrapperCodegen.make_buffer_allocation and generate_extern_kernel_alloc are
   wrapped to note, per wrapper (one per graph), buffer name -> module path: the module
   most of the buffer's FX nodes were traced under, "transformer.h.3.attn.c_attn" (the
   path in the compiled module, as the eager hooks name it from the outermost module).
2. PyCodeCache.load_by_key_path is wrapped: when a generated module with buffer lines is
   loaded, the wrapper whose notes hold its buffers is found, and each line that makes a
   noted buffer ("buf12 = empty_strided_cuda(...)", "buf3 = extern_kernels...") is
   written to the trace with its module (vramtrace_source_layer: a SOURCE record).
The analyzer gives the allocations made on such a line that layer (docs/python.md).

A graph Inductor loads from its cache (a second run) is not generated again: for it,
the hook reads what the run that generated it noted, which it keeps in a file of its
own per generated module ($XDG_CACHE_HOME or ~/.cache, then vramtrace/inductor/
<module>.py.layers: Inductor names a module by its code's hash, so one name is one
code). It never changes what Inductor generates or runs: the wrappers call the
originals and only read. A version whose internals differ is left alone, with one
warning.
"""
import collections
import re

_BUF_LINE = re.compile(r"^\s*(buf\d+)\s*=")
_KEEP = 8  # wrappers whose notes wait for their module


def _path(key):
    """dynamo's module path "L['self'].transformer.h.0.attn" -> "transformer.h.0.attn"."""
    k = str(key)
    for root in ("L['self']", 'L["self"]', "L['mod']", "self"):
        if k == root:
            return ""
        if k.startswith(root + "."):
            return k[len(root) + 1:]
    return k


def _module_of(buffer):
    """The module most of the buffer's FX nodes were traced under, or None."""
    origins = getattr(buffer, "origins", None)
    if not origins:
        get = getattr(buffer, "get_origins", None)
        origins = get() if get else ()
    votes = collections.Counter()
    for n in origins or ():
        meta = getattr(n, "meta", None) or {}
        stack = meta.get("nn_module_stack") or meta.get("fwd_nn_module_stack")
        if not stack:
            continue
        key, val = list(stack.items())[-1]
        path = val[0] if isinstance(val, tuple) and val and isinstance(val[0], str) else key
        p = _path(path)
        if not p:
            cls = val[1] if isinstance(val, tuple) and len(val) > 1 else None
            p = getattr(cls, "__name__", None) or str(cls or "")
        if p:
            votes[p] += 1
    if not votes:
        return None
    best = max(votes.values())
    return max((p for p, v in votes.items() if v == best), key=len)


def _memory_dir():
    """vramtrace's own folder for what it noted of generated modules."""
    import os
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "vramtrace", "inductor")


def _memory_file(path):
    """The file for a generated module: Inductor names the module by its code's hash, so
    one path is one code, whatever run generated it."""
    import os
    return os.path.join(_memory_dir(), os.path.basename(path) + ".layers")


def _remember(path, found):
    """Keeps (line, module) of a generated module for the runs that load it from
    Inductor's cache instead of generating it. Never a file but its own; a folder it
    cannot write is passed over."""
    import os
    import tempfile
    try:
        os.makedirs(_memory_dir(), exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=_memory_dir(), prefix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write("".join("%d %s\n" % (line, mod) for line, mod in found))
        os.replace(tmp, _memory_file(path))
    except Exception:
        pass


def _recall(path):
    try:
        with open(_memory_file(path), encoding="utf-8") as f:
            return [(int(a), b) for a, b in (l.rstrip("\n").split(" ", 1) for l in f if " " in l)]
    except (OSError, ValueError, UnicodeDecodeError):
        return []


def install(codecache, lib, warn):
    """Wraps Inductor's codegen and module loading (see the module's text)."""
    import ctypes

    try:
        from torch._inductor.codegen import wrapper as W
        cls = W.PythonWrapperCodegen
        mba = cls.make_buffer_allocation
        load = codecache.PyCodeCache.load_by_key_path
    except (ImportError, AttributeError) as e:
        warn("torch.compile layers: not installed (%s)" % e)
        return
    try:
        source_layer = lib.vramtrace_source_layer
    except AttributeError:
        return  # an older recorder
    source_layer.argtypes = [ctypes.c_char_p, ctypes.c_uint, ctypes.c_char_p]
    source_layer.restype = ctypes.c_int
    notes = collections.OrderedDict()  # id(wrapper) -> {buffer name: module path}

    def note(self, buffer):
        try:
            name = buffer.get_name()
            mod = _module_of(buffer)
            if not mod:
                return
            d = notes.get(id(self))
            if d is None:
                d = notes[id(self)] = {}
                while len(notes) > _KEEP:
                    notes.popitem(last=False)
            d[name] = mod
        except Exception:
            pass

    def make_buffer_allocation(self, buffer, *a, **k):
        note(self, buffer)
        return mba(self, buffer, *a, **k)

    cls.make_buffer_allocation = make_buffer_allocation
    ext = getattr(cls, "generate_extern_kernel_alloc", None)
    if ext is not None:
        def generate_extern_kernel_alloc(self, node, *a, **k):
            note(self, node)
            return ext(self, node, *a, **k)
        cls.generate_extern_kernel_alloc = generate_extern_kernel_alloc

    def write(path, found):
        p = path.encode("utf-8", "replace")
        for line, mod in found:
            source_layer(p, line, mod.encode("utf-8", "replace"))

    def emit(path):
        try:
            with open(path, encoding="utf-8") as f:
                lines = [(i + 1, m.group(1)) for i, line in enumerate(f) for m in [_BUF_LINE.match(line)] if m]
        except (OSError, UnicodeDecodeError):
            return
        if not lines:
            return  # a kernel's module, not a graph's
        names = {b for _, b in lines}
        # the newest graph whose buffers are mostly here (lines also name buffers that
        # reuse or view others, which no allocation noted; names repeat across graphs)
        for wid in reversed(list(notes)):
            d = notes[wid]
            hit = sum(1 for b in d if b in names)
            if hit * 2 <= len(d):
                continue  # another graph's buffers
            del notes[wid]
            found = [(line, d[b]) for line, b in lines if b in d]
            write(path, found)
            _remember(path, found)
            return
        # generated by an earlier run and loaded from Inductor's cache: what that run noted
        write(path, _recall(path))

    def load_by_key_path(*a, **k):
        mod = load(*a, **k)
        try:
            path = getattr(mod, "__file__", None)
            if path:
                emit(path)
        except Exception:
            pass
        return mod

    # the same kind of attribute as the original, so calls through the class or an
    # instance pass what they did (load is the original, bound where it was a classmethod)
    kind = type(codecache.PyCodeCache.__dict__.get("load_by_key_path"))
    if kind is classmethod:
        codecache.PyCodeCache.load_by_key_path = classmethod(lambda cls, *a, **k: load_by_key_path(*a, **k))
    else:
        codecache.PyCodeCache.load_by_key_path = staticmethod(load_by_key_path)
