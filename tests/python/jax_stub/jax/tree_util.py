# SPDX-License-Identifier: MIT
"""Pytrees as JAX flattens them: dicts (sorted keys, DictKey), tuples and lists
(SequenceKey), namedtuples (GetAttrKey), None (no leaves); anything else is a leaf."""


class DictKey(object):
    def __init__(self, key):
        self.key = key


class GetAttrKey(object):
    def __init__(self, name):
        self.name = name


class SequenceKey(object):
    def __init__(self, idx):
        self.idx = idx


def _children(x):
    if isinstance(x, dict):
        ks = sorted(x)
        return "dict", tuple(ks), [(DictKey(k), x[k]) for k in ks]
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return type(x), x._fields, [(GetAttrKey(f), getattr(x, f)) for f in x._fields]
    if isinstance(x, (tuple, list)):
        return type(x).__name__, len(x), [(SequenceKey(i), v) for i, v in enumerate(x)]
    if x is None:
        return "none", None, []
    return None


def _flatten(x, path, out):
    c = _children(x)
    if c is None:
        out.append((tuple(path), x))
        return "*"
    kind, aux, kids = c
    return (kind, aux, tuple(_flatten(v, path + [k], out) for k, v in kids))


class PyTreeDef(object):
    def __init__(self, s):
        self.s = s

    def __eq__(self, o):
        return isinstance(o, PyTreeDef) and o.s == self.s

    def __hash__(self):
        return hash(self.s)


def tree_flatten_with_path(x):
    out = []
    s = _flatten(x, [], out)
    return out, PyTreeDef(s)


def tree_flatten(x):
    out, td = tree_flatten_with_path(x)
    return [v for _, v in out], td


def tree_leaves(x):
    return tree_flatten(x)[0]


def tree_structure(x):
    return tree_flatten(x)[1]


def tree_map(f, x, *rest):
    if isinstance(x, dict):
        return {k: tree_map(f, x[k], *[r[k] for r in rest]) for k in x}
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return type(x)(*[tree_map(f, getattr(x, k), *[getattr(r, k) for r in rest]) for k in x._fields])
    if isinstance(x, (tuple, list)):
        return type(x)(tree_map(f, v, *[r[i] for r in rest]) for i, v in enumerate(x))
    if x is None:
        return None
    return f(x, *rest)
