# SPDX-License-Identifier: MIT
"""vramtrace's Python start-up hook: `vramtrace run --torch-modules`, and the JAX hook
(vramtrace_jax.py beside this file) that `vramtrace run` turns on by itself.

Installed as <build>/lib/vramtrace_py/sitecustomize.py; `vramtrace run --torch-modules`
puts that folder first on PYTHONPATH, so Python's `site` module runs this file at start-up
(docs/python.md says exactly what it does). In short:

1. It runs the sitecustomize that would have run without it (the next one on sys.path),
   so a site's or a virtual environment's own start-up code still runs.
2. It imports nothing heavy. It adds a finder to sys.meta_path that notices when the
   program itself imports `torch`; once torch's import has finished, it registers global
   nn.Module hooks (torch.nn.modules.module.register_module_forward_pre_hook and
   register_module_forward_hook) and removes the finder. A program that never imports
   torch is not touched further.
3. The hooks name every module by its qualified name in the model (the path
   named_modules() gives it from the outermost module that owns the one called, e.g.
   "bert.encoder.layer.3.attention.self"; the outermost module is named by its class).
   The owner is found also when its own forward never runs (Lightning's training_step,
   HF Trainer's compute_loss calling a submodule): the first time a module nobody named
   is called outside any other, the modules whose _modules hold it are looked up
   (gc.get_referrers), up to the outermost, so `self.net(x)` names `net.0`, not `0`.
   and, while the module's forward runs, hold that name as a scope of the calling thread
   in the recorder (vramtrace_scope_push / vramtrace_scope_pop in libvramtrace.so,
   through ctypes). Every allocation the thread makes meanwhile gets the scope frame.
4. Backward: in the forward hook, each output tensor that requires grad gets a tensor
   hook (Tensor.register_hook); when autograd computes that gradient, on whatever
   thread runs it, the hook makes the module the thread's backward scope
   (vramtrace_scope_backward), which lasts until the next module's output gradient is
   computed on that thread or the backward pass ends (a callback queued on autograd's
   engine, vramtrace_scope_backward_end). When several modules output one tensor (a
   module returning its last submodule's output), the innermost one is kept. Full
   backward hooks are deliberately not used: they wrap outputs in a custom autograd
   function, which makes in-place operations on module outputs fail.
5. JAX (unless VRAMTRACE_PY_HOOKS leaves "jax" out): the same kind of finder waits for
   the program's `import jax` and then calls vramtrace_jax.install(jax) (roles of the
   buffers of jitted calls: preload/vt_jax_hook.py).
`vramtrace run` says which hooks to install in VRAMTRACE_PY_HOOKS ("torch,jax", "jax");
without it (the folder put on PYTHONPATH by hand) both are.
It never changes what a module computes or returns. Under torch.compile the hooks do
nothing while dynamo traces (torch.compiler.is_compiling()), so they add no graph breaks.
If the recorder is not loaded in the process, nothing is registered.
VRAMTRACE_DEBUG=1 prints one line when the hooks are installed.
"""
import os
import sys

_DIR = os.path.dirname(os.path.abspath(__file__))


def _warn(msg):
    try:
        sys.stderr.write("vramtrace: python hook: %s\n" % msg)
    except Exception:
        pass


# ---------------------------------------------------------------------------
#  1. Chain to the next sitecustomize on the path
# ---------------------------------------------------------------------------
def _chain():
    import importlib.machinery
    import importlib.util

    def same(p):
        try:
            return os.path.samefile(p or os.getcwd(), _DIR)
        except OSError:
            return False

    path = [p for p in sys.path if not same(p)]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", path)
    if spec is None or spec.loader is None:
        return
    mod = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(mod)
    except Exception as e:  # what site.py does with a failing sitecustomize
        if os.environ.get("PYTHONVERBOSE"):
            import traceback

            traceback.print_exc()
        else:
            sys.stderr.write("Error in sitecustomize; set PYTHONVERBOSE for traceback:\n"
                             "%s: %s\n" % (type(e).__name__, e))
    globals()["_chained"] = mod  # kept alive, like sys.modules would keep it


# ---------------------------------------------------------------------------
#  3, 4. The module hooks
# ---------------------------------------------------------------------------
# Wrappers whose first path component is theirs, not the model's.
_WRAPPERS = {"DistributedDataParallel": "module.", "DataParallel": "module.",
             "FullyShardedDataParallel": "_fsdp_wrapped_module.", "OptimizedModule": "_orig_mod."}


def _blocks(torch):
    """PyTorch's blocks (vt_torch_blocks.py, beside this file)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("_vramtrace_torch_blocks",
                                                  os.path.join(_DIR, "vt_torch_blocks.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.attach(torch, os.path.dirname(_DIR))


def _install(torch):
    try:
        _blocks(torch)
    except Exception as e:
        _warn("PyTorch's blocks: %s: %s" % (type(e).__name__, e))
    if os.environ.get("VRAMTRACE_TORCH_MODULES", "1") == "0":
        return  # `vramtrace run` without --torch-modules
    import ctypes
    import threading
    import weakref

    try:
        lib = ctypes.PyDLL(None)
        push, pop = lib.vramtrace_scope_push, lib.vramtrace_scope_pop
        backward, backward_end = lib.vramtrace_scope_backward, lib.vramtrace_scope_backward_end
    except (OSError, AttributeError):
        return  # the recorder is not in this process
    push.argtypes, push.restype = [ctypes.c_char_p], ctypes.c_int
    pop.argtypes, pop.restype = [], ctypes.c_int
    backward.argtypes, backward.restype = [ctypes.c_char_p], None
    backward_end.argtypes, backward_end.restype = [], None

    if getattr(lib, "vramtrace_source_layer", None) is not None:  # torch.compile's buffers
        # Inductor's wrapper codegen imports its code cache: once it has run, both are whole
        w = "torch._inductor.codegen.wrapper"
        if w in sys.modules:
            _install_inductor(lib)
        else:
            sys.meta_path.insert(0, _TorchFinder(w, lambda m: _install_inductor(lib)))

    from torch.nn.modules import module as M

    compiling = getattr(getattr(torch, "compiler", None), "is_compiling", None)
    if compiling is None:  # PyTorch < 2.3: dynamo's own, once dynamo is loaded
        def compiling():
            d = sys.modules.get("torch._dynamo")
            return bool(d is not None and d.is_compiling())

    names = weakref.WeakKeyDictionary()   # module -> name (bytes)
    roots = weakref.WeakKeyDictionary()   # module -> weak reference to the module it was named from
    tls = threading.local()               # .parents: modules whose forward runs here
    state = {"gen": 0, "in_backward": False}
    grad_hooks = {}                       # name -> its tensor hook

    def root_of(m):
        r = roots.get(m)
        return r() if r is not None else None

    def name_tree(root, prefix):
        members = list(root.named_modules())
        ids = {id(m) for _, m in members}
        strip = _WRAPPERS.get(type(root).__name__)
        # a wrapper (torch.compile's OptimizedModule, DDP...) and the model it wraps are
        # both named by the model's class: what the user built, not what wrapped it
        inner = getattr(root, strip[:-1], None) if strip else None
        root_name = type(inner).__name__ if isinstance(inner, M.Module) else None
        root_ref = weakref.ref(root)
        for path, m in members:
            old = root_of(m)
            if m in names and old is not None and id(old) not in ids:
                continue  # named from a larger model already
            if strip and (path.startswith(strip) or path == strip[:-1]):
                path = path[len(strip):]
            if not path:
                n = prefix or root_name or type(m).__name__
            else:
                n = prefix + "." + path if prefix else path
            names[m] = n.encode("utf-8", "replace")
            roots[m] = root_ref

    def owner_of(m):
        """The module whose _modules holds m, or None (once per unnamed root)."""
        import gc
        for d in gc.get_referrers(m):
            if not isinstance(d, dict):
                continue
            for p in gc.get_referrers(d):
                if isinstance(p, M.Module) and p.__dict__.get("_modules") is d:
                    return p
                if isinstance(p, dict) and p.get("_modules") is d:  # the owner's __dict__
                    for q in gc.get_referrers(p):
                        if isinstance(q, M.Module) and getattr(q, "__dict__", None) is p:
                            return q
        return None

    def outermost(m):
        seen = {id(m)}
        for _ in range(64):
            p = owner_of(m)
            if p is None or id(p) in seen:
                break
            seen.add(id(p))
            m = p
        return m

    def name_of(module):
        n = names.get(module)
        if n is not None and root_of(module) is not None:
            return n
        parents = getattr(tls, "parents", None)
        if parents:  # called inside another module without being its child
            prefix = names.get(parents[-1], b"?").decode("utf-8", "replace") + "." + type(module).__name__
            name_tree(module, prefix)
        else:
            try:
                root = outermost(module)
            except Exception:
                root = module
            name_tree(root, None)
        return names.get(module, type(module).__name__.encode())

    def end_backward():
        state["gen"] += 1
        state["in_backward"] = False
        backward_end()

    def grad_hook_for(name, outermost):
        h = grad_hooks.get(name)
        if h is not None:
            return h
        inner = b"" if outermost else name + b"."  # the outermost module holds every other

        def h(grad):
            cur = getattr(tls, "bwd", None)
            if cur is not None and cur[0] == state["gen"] and cur[1].startswith(inner):
                return None  # an inner module of this one output the same tensor
            tls.bwd = (state["gen"], name)
            backward(name)
            if not state["in_backward"]:
                try:
                    torch.autograd.Variable._execution_engine.queue_callback(end_backward)
                    state["in_backward"] = True
                except Exception:
                    pass
            return None

        grad_hooks[name] = h
        return h

    def tensors(out, depth=0):
        if isinstance(out, torch.Tensor):
            yield out
        elif depth < 2 and isinstance(out, (tuple, list)):
            for o in out:
                yield from tensors(o, depth + 1)
        elif depth < 2 and isinstance(out, dict):
            for o in out.values():
                yield from tensors(o, depth + 1)

    def pre(module, args):
        if compiling():
            return None
        parents = getattr(tls, "parents", None)
        if parents is None:
            parents = tls.parents = []
            tls.pushed = []       # per parent: whether its pre-hook pushed a scope
        if not parents:  # an outermost call: a new forward pass
            tls.bwd = None
        name = name_of(module)
        # a wrapper calling the model it wraps has the model's name: one scope for both
        same = bool(parents) and names.get(parents[-1]) == name
        parents.append(module)
        tls.pushed.append(not same)
        if not same:
            push(name)
        return None

    def post(module, args, output):
        if compiling():
            return None
        parents = getattr(tls, "parents", None)
        if not parents or parents[-1] is not module:
            return None  # its pre-hook did not run (the hooks were added mid-call)
        parents.pop()
        if tls.pushed.pop():
            pop()
        name = names.get(module)
        if name is not None and torch.is_grad_enabled():
            h = None
            for i, t in enumerate(tensors(output)):
                if i >= 64:
                    break
                if t.requires_grad and t.grad_fn is not None:
                    h = h or grad_hook_for(name, root_of(module) is module)
                    t.register_hook(h)
        return None

    M.register_module_forward_pre_hook(pre)
    try:
        M.register_module_forward_hook(post, always_call=True)
    except TypeError:  # PyTorch < 2.1: no always_call
        M.register_module_forward_hook(post)
    if os.environ.get("VRAMTRACE_DEBUG") == "1":
        _warn("module hooks installed (torch %s)" % getattr(torch, "__version__", "?"))


# ---------------------------------------------------------------------------
#  2. Waiting for torch
# ---------------------------------------------------------------------------
class _Loader(object):
    """Runs the package's own loader, then installs the hooks; otherwise it is that loader."""

    def __init__(self, inner, finder):
        self._inner = inner
        self._finder = finder

    def create_module(self, spec):
        return self._inner.create_module(spec)

    def exec_module(self, module):
        self._inner.exec_module(module)
        if self._finder in sys.meta_path:
            sys.meta_path.remove(self._finder)
        module.__loader__ = self._inner
        if getattr(module, "__spec__", None) is not None:
            module.__spec__.loader = self._inner
        try:
            self._finder.install(module)
        except Exception as e:  # never break the program's import of torch
            _warn("not installed: %s: %s" % (type(e).__name__, e))

    def __getattr__(self, name):
        if name == "_inner":
            raise AttributeError(name)
        return getattr(self._inner, name)


class _TorchFinder(object):
    """Finds torch (or `name`) with the finders after it and wraps its loader. Stays in
    place until torch's import has run (importlib.util.find_spec("torch"), which
    libraries use to probe for torch, finds it too without importing it)."""

    def __init__(self, name="torch", install=None):
        self.name = name
        self.install = install or _install

    def find_spec(self, name, path=None, target=None):
        if name != self.name:
            return None
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            if find is None or isinstance(finder, _TorchFinder):
                continue
            spec = find(name, path, target)
            if spec is not None:
                break
        else:
            return None
        if spec.loader is not None and hasattr(spec.loader, "exec_module"):
            spec.loader = _Loader(spec.loader, self)
        return spec


def _install_inductor(lib):
    """Layers of torch.compile's buffers (vt_inductor_hook.py, beside this file)."""
    import importlib
    import importlib.util

    codecache = importlib.import_module("torch._inductor.codecache")

    spec = importlib.util.spec_from_file_location("_vramtrace_inductor",
                                                  os.path.join(_DIR, "vt_inductor_hook.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.install(codecache, lib, _warn)


# ---------------------------------------------------------------------------
#  5. JAX
# ---------------------------------------------------------------------------
def _install_jax(jax):
    import importlib.util

    spec = importlib.util.spec_from_file_location("vramtrace_jax", os.path.join(_DIR, "vramtrace_jax.py"))
    if spec is None:
        return
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    sys.modules.setdefault("vramtrace_jax", mod)
    mod.install(jax)


def _main():
    hooks = os.environ.get("VRAMTRACE_PY_HOOKS", "torch,jax").split(",")
    try:
        _chain()
    finally:
        for name, install in (("torch", _install), ("jax", _install_jax)):
            if name not in hooks:
                continue
            if name in sys.modules:
                try:
                    install(sys.modules[name])
                except Exception as e:
                    _warn("not installed: %s: %s" % (type(e).__name__, e))
            else:
                sys.meta_path.insert(0, _TorchFinder(name, install))


_main()
