# SPDX-License-Identifier: MIT
"""vramtrace's JAX hook: names the role of every device buffer a jitted call takes and
returns (weights, optimizer_state, gradients), and its flax module, with no change to the
program.

Installed as <build>/lib/vramtrace_py/vramtrace_jax.py; the start-up hook
(sitecustomize.py, from preload/vt_torch_hook.py) calls install(jax) once the program's
own `import jax` has finished. docs/python.md says what it does; in short:

- jax.jit is replaced by a function that jits as before and wraps the result: the
  wrapper calls the jitted function unchanged and then, for its results (with
  donate_argnums: at its first two calls and every 64th, the donated buffers keeping
  their role) and (at its first two calls and every 64th: they are mostly the results
  of the call before) its arguments (before the call: donated ones are gone after it),
  writes one annotation per
  device buffer with a role: address (jax.Array.unsafe_buffer_pointer(), per addressable
  shard), size, role and layer, through vramtrace_annotate in the recorder (ctypes).
  The analyzer joins them with the allocations by address and time.
- Roles come from the pytree's structure, worked out once per tree structure (treedef)
  and cached: under a `params` key or attribute (flax variables, TrainState.params):
  weights; `batch_stats` too; inside an optax state object (its type's module is optax:
  ScaleByAdamState.mu/nu/count, TraceState, ...) or under `opt_state`: optimizer_state;
  a top-level argument or result with the tree structure of an optax state's moments
  (mu, nu, trace...) of the same call: weights (plain `params` dicts); the results of
  a function made by jax.grad (for value_and_grad: the gradients part), jitted or
  called eagerly: gradients. The outermost marker on a leaf's path decides.
- The layer of a leaf is its flax module path: the dict keys on its path, less the
  collection ("params") and the parameter's own name ("kernel"): "Block_3/Dense_0".

Cost per jitted call (docs/python.md, measured): one tree_flatten of the arguments and
results, a dict lookup of each treedef, and for each leaf with a role one
unsafe_buffer_pointer() call; one ctypes call per pytree. Leaves without a role cost the
flatten only. Never changes what a function computes or returns; any error in the hook
turns it off with one warning.
"""
import ctypes
import functools
import os
import sys

ROLE_WEIGHTS, ROLE_GRADIENTS, ROLE_OPTIMIZER_STATE = 1, 3, 4   # vt_role (preload/vt_format.h)
# Weights by tree structure alone (a part shaped like the optax moments): gradients have
# that shape too, so a buffer last named gradients keeps its role (update(params, opt, g)).
_ROLE_SHAPED = 0x81
_WEIGHT_KEYS = ("params", "batch_stats")   # flax collections that are model state
_OPT_KEYS = ("opt_state",)
_NOT_LAYER = set(_WEIGHT_KEYS) | set(_OPT_KEYS)
# The installed hook, for measuring it: HOOK.on = False turns annotations off
# (tests/gpu/jax_roles.py alternates blocks of steps with and without).
HOOK = None


def _warn(msg):
    try:
        sys.stderr.write("vramtrace: jax hook: %s\n" % msg)
    except Exception:
        pass


class _Hook(object):
    def __init__(self, jax, lib):
        self.tu = jax.tree_util
        self.annotate = lib.vramtrace_annotate
        self.annotate.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                                  ctypes.c_void_p, ctypes.c_int]
        self.annotate.restype = ctypes.c_uint64
        self.intern = lib.vramtrace_intern
        self.intern.argtypes, self.intern.restype = [ctypes.c_char_p], ctypes.c_uint32
        self.plans = {}        # (treedef, context) -> tuple of (leaf index, role, layer id), or ()
        self.grad_ptrs = set() # buffers of the latest gradients written
        self.layer_ids = {}    # layer name -> STRING id
        self.on = True
        core = getattr(jax, "core", None)
        self.tracer = getattr(core, "Tracer", None) or type(None)

    # -- roles ------------------------------------------------------------------------
    def layer_id(self, keys):
        name = "/".join(keys)
        i = self.layer_ids.get(name)
        if i is None:
            i = self.intern(name.encode("utf-8", "replace")) if name else 0
            if i:  # 0: recording paused; asked again next time
                self.layer_ids[name] = i
        return i

    @staticmethod
    def _key_name(k):
        for a in ("key", "name"):
            v = getattr(k, a, None)
            if v is not None:
                return v if isinstance(v, str) else str(v)
        return None

    @staticmethod
    def _child(obj, k):
        """The object one path entry down (None when it cannot be followed)."""
        try:
            if hasattr(k, "key"):
                return obj[k.key]
            if hasattr(k, "name"):
                return getattr(obj, k.name)
            if hasattr(k, "idx"):
                return obj[k.idx]
        except Exception:
            pass
        return None

    def _moment_defs(self, tree):
        """Tree structures of the moments (mu, nu, trace...) of the optax states in tree:
        a plain params argument has one of them."""
        defs = set()
        stack, seen = [tree], 0
        while stack and seen < 10000:
            o = stack.pop()
            seen += 1
            if _is_optax(o):
                for f in getattr(o, "_fields", ()):
                    v = getattr(o, f, None)
                    try:
                        leaves, td = self.tu.tree_flatten(v)
                    except Exception:
                        continue
                    if len(leaves) > 1:
                        defs.add(td)
            if isinstance(o, dict):
                stack.extend(o.values())
            elif isinstance(o, (tuple, list)):
                stack.extend(o)
        return defs

    def plan(self, tree, parts, grads_part, moments):
        """Roles of tree's leaves: a tuple of (leaf index, role, layer id). parts: the
        tree is a tuple of top-level parts (arguments, results) each judged alone;
        grads_part: the part index that holds gradients (-1: none, -2: all)."""
        out = []
        paths = self.tu.tree_flatten_with_path(tree)[0]
        for i, (path, _leaf) in enumerate(paths):
            role, keys, obj, start = 0, [], tree, 0
            if parts and path:
                part = getattr(path[0], "idx", None)
                obj = self._child(tree, path[0])
                start = 1
                if grads_part == -2 or (part is not None and part == grads_part):
                    role = ROLE_GRADIENTS
                elif obj is not None and moments:
                    try:
                        if self.tu.tree_structure(obj) in moments:
                            role = _ROLE_SHAPED
                    except Exception:
                        pass
            for k in path[start:]:
                name = self._key_name(k)
                if not role:
                    if _is_optax(obj) or name in _OPT_KEYS:
                        role = ROLE_OPTIMIZER_STATE
                    elif name in _WEIGHT_KEYS:
                        role = ROLE_WEIGHTS
                if hasattr(k, "key") and name not in _NOT_LAYER:
                    keys.append(name)
                obj = self._child(obj, k) if obj is not None else None
            if not role and _is_optax(obj):
                role = ROLE_OPTIMIZER_STATE
            if role:
                out.append((i, role, self.layer_id(keys[:-1])))
        return tuple(out)

    # -- writing ----------------------------------------------------------------------
    def write(self, tree, parts=True, grads_part=-1, moments_from=None):
        leaves, td = self.tu.tree_flatten(tree)
        if not leaves:
            return
        key = (td, grads_part)
        p = self.plans.get(key)
        if p is None:
            moments = self._moment_defs(moments_from if moments_from is not None else tree)
            p = self.plans[key] = self.plan(tree, parts, grads_part, moments)
        if not p:
            return
        addrs, sizes, roles, layers = [], [], [], []
        for i, role, layer in p:
            leaf = leaves[i]
            if isinstance(leaf, self.tracer):
                return  # under a trace: nothing on the device yet
            try:
                ptr = leaf.unsafe_buffer_pointer()
                if role == _ROLE_SHAPED:
                    if ptr in self.grad_ptrs:
                        continue
                    role = ROLE_WEIGHTS
                addrs.append(ptr)
                sizes.append(leaf.nbytes)
            except Exception:  # sharded, deleted (donated), or not an array
                if role == _ROLE_SHAPED:
                    role = ROLE_WEIGHTS
                try:
                    shards = leaf.addressable_shards
                except Exception:
                    continue
                for s in shards:
                    try:
                        addrs.append(s.data.unsafe_buffer_pointer())
                        sizes.append(s.data.nbytes)
                    except Exception:
                        continue
                    roles.append(role)
                    layers.append(layer)
                continue
            roles.append(role)
            layers.append(layer)
        n = len(addrs)
        if not n:
            return
        if grads_part != -1:
            self.grad_ptrs = set(a for a, r in zip(addrs, roles) if r == ROLE_GRADIENTS)
        a = (ctypes.c_uint64 * n)(*addrs)
        s = (ctypes.c_uint64 * n)(*sizes)
        r = (ctypes.c_uint8 * n)(*roles)
        l = (ctypes.c_uint32 * n)(*layers)
        self.annotate(n, a, s, r, l, -1)

    def safe(self, fn, *a, **kw):
        if not self.on:
            return
        try:
            fn(*a, **kw)
        except Exception as e:  # never break the program: turn the hook off
            self.on = False
            _warn("turned off: %s: %s" % (type(e).__name__, e))

    # -- the wrappers -----------------------------------------------------------------
    def wrap_jit(self, orig):
        hook = self

        @functools.wraps(orig)
        def jit(fun=None, *args, **kw):
            if fun is None:  # jax.jit(donate_argnums=...) as a decorator factory
                return lambda f: jit(f, *args, **kw)
            donates = bool(kw.get("donate_argnums") or kw.get("donate_argnames"))
            return _Jitted(hook, orig(fun, *args, **kw), fun, donates)

        jit._vramtrace = True
        return jit

    def wrap_grad(self, orig, value_and):
        hook = self

        @functools.wraps(orig)
        def grad(fun, *args, **kw):
            g = orig(fun, *args, **kw)

            @functools.wraps(g)
            def run(*a, **k):
                out = g(*a, **k)
                if hook.on:  # called eagerly, the gradients are on the device now (traced: no-op)
                    grads = out[1] if value_and and isinstance(out, tuple) and len(out) == 2 else out
                    hook.safe(hook.write, (grads,), True, -2)
                return out

            run._vramtrace_grad = 2 if value_and else 1
            return run

        return grad


def _is_optax(o):
    t = type(o)
    m = getattr(t, "__module__", "") or ""
    return m == "optax" or m.startswith("optax.")


class _Jitted(object):
    """A jitted function, called as before; its arguments and results are annotated."""

    # Arguments are mostly the results of the call before (annotated then): they are
    # annotated at the first calls, for the buffers made outside (init, checkpoints),
    # and then at every ARGS_EVERY-th call. So are the results of a function that
    # donates its arguments: XLA writes them into the donated buffers, which keep the
    # role they were given (a result that got a buffer of its own is named at the next
    # such call, and the analyzer moves it as if named when it was made).
    ARGS_FIRST, ARGS_EVERY = 2, 64

    def __init__(self, hook, jitted, fun, donates=False):
        self._hook = hook
        self._calls = 0
        self._donates = donates
        self._jitted = jitted
        self._grad = getattr(fun, "_vramtrace_grad", 0)
        functools.update_wrapper(self, fun if callable(fun) else jitted)

    def __call__(self, *args, **kw):
        hook = self._hook
        self._calls += 1
        now = self._calls <= self.ARGS_FIRST or self._calls % self.ARGS_EVERY == 0
        if hook.on and (args or kw) and now:
            # before the call: the donated ones are deleted by it
            hook.safe(hook.write, args + tuple(kw.values()) if kw else args, True, -1)
        out = self._jitted(*args, **kw)
        if hook.on and (now or not self._donates):
            # a tuple's elements are the parts judged alone, like the arguments
            parts = out if isinstance(out, tuple) else (out,)
            grads = -1
            if self._grad == 1:
                grads = -2
            elif self._grad == 2:
                grads = 1 if isinstance(out, tuple) and len(out) == 2 else -1  # (value, grads)
            hook.safe(hook.write, parts, True, grads, (args, parts))
        return out

    def __get__(self, obj, objtype=None):
        return self if obj is None else functools.partial(self, obj)

    def __getattr__(self, name):  # lower, trace, eval_shape, clear_cache...
        if name.startswith("_jitted"):
            raise AttributeError(name)
        return getattr(self._jitted, name)


def install(jax):
    """Replaces jax.jit, jax.grad and jax.value_and_grad; nothing when the recorder is
    not in the process or VRAMTRACE_JAX=0."""
    if os.environ.get("VRAMTRACE_JAX", "1") == "0" or getattr(jax.jit, "_vramtrace", False):
        return None
    try:
        lib = ctypes.CDLL(None)
        lib.vramtrace_annotate, lib.vramtrace_intern
    except (OSError, AttributeError):
        return None
    global HOOK
    hook = HOOK = _Hook(jax, lib)
    hook.annotate(0, None, None, None, None, -1)  # the announcement: before any buffer
    jax.jit = hook.wrap_jit(jax.jit)
    jax.grad = hook.wrap_grad(jax.grad, False)
    jax.value_and_grad = hook.wrap_grad(jax.value_and_grad, True)
    if os.environ.get("VRAMTRACE_DEBUG") == "1":
        _warn("installed (jax %s)" % getattr(jax, "__version__", "?"))
    return hook
