# SPDX-License-Identifier: MIT
"""AdamW's state and update, allocating new arrays as optax does (no in-place update)."""
from typing import NamedTuple

import jax


class ScaleByAdamState(NamedTuple):
    count: object
    mu: object
    nu: object


class EmptyState(NamedTuple):
    pass


class _Tx(object):
    def init(self, params):
        z = lambda p: jax.Array(p.nbytes)  # noqa: E731
        return (ScaleByAdamState(jax.Array(4), jax.tree_util.tree_map(z, params), jax.tree_util.tree_map(z, params)),
                EmptyState())

    def update(self, grads, state, params):
        adam = state[0]
        new = lambda p: jax.Array(p.nbytes)  # noqa: E731
        st = (ScaleByAdamState(jax.Array(4), jax.tree_util.tree_map(new, adam.mu), jax.tree_util.tree_map(new, adam.nu)),
              EmptyState())
        return jax.tree_util.tree_map(new, grads), st


def adamw(lr):
    return _Tx()


def apply_updates(params, updates):
    return jax.tree_util.tree_map(lambda p, u: jax.Array(p.nbytes), params, updates)
