# SPDX-License-Identifier: MIT
"""The JAX hook with the stand-in jax and optax (jax_stub/): a training loop written as
for real JAX, run under `vramtrace run` (which installs the hook by itself).

    jax_roles.py [--donate] [--split] [--vars]

The "model" is 3 blocks of 2 Dense layers (kernel and bias each); adamw's state holds
two moments of the parameters' size and a 4-byte count. --donate: donate_argnums=(0, 1);
--split: gradients from their own jitted value_and_grad, then a jitted update; --vars:
the parameters live under a "params" key (flax variables) and the state in a dict with
an "opt_state" key. Writes to $VT_EXPECT what check_jax.py compares with the report."""
import json
import os
import sys

import jax
import optax

MiB = 1 << 20
args = set(sys.argv[1:])
donate = (0, 1) if "--donate" in args else ()
params = {"block_%d" % i: {"Dense_%d" % j: {"kernel": jax.Array((2 * i + j + 1) * MiB), "bias": jax.Array(4096)}
                           for j in range(2)} for i in range(3)}
P = sum(x.nbytes for x in jax.tree_util.tree_leaves(params))
tx = optax.adamw(1e-3)
opt_state = tx.init(params)
O = sum(x.nbytes for x in jax.tree_util.tree_leaves(opt_state))


def loss_fn(p, batch):
    return jax.Array(4)


batch = jax.Array(3 * MiB + 512)
if "--split" in args:
    grad_fn = jax.jit(jax.value_and_grad(loss_fn))

    def update(p, o, g):
        u, o = tx.update(g, o, p)
        return optax.apply_updates(p, u), o

    upd = jax.jit(update, donate_argnums=donate)
    for _ in range(3):
        loss, g = grad_fn(params, batch)
        params, opt_state = upd(params, opt_state, g)
        del g
elif "--vars" in args:
    def step(state, batch):
        loss, g = jax.value_and_grad(loss_fn)(state["variables"]["params"], batch)
        u, o = tx.update(g, state["opt_state"], state["variables"]["params"])
        return {"variables": {"params": optax.apply_updates(state["variables"]["params"], u)}, "opt_state": o}, loss

    jstep = jax.jit(step, donate_argnums=(0,) if donate else ())
    state = {"variables": {"params": params}, "opt_state": opt_state}
    del params, opt_state
    for _ in range(3):
        state, loss = jstep(state, batch)
else:
    def step(p, o, batch):
        loss, g = jax.value_and_grad(loss_fn)(p, batch)
        u, o = tx.update(g, o, p)
        return optax.apply_updates(p, u), o, loss

    jstep = jax.jit(step, donate_argnums=donate)
    for _ in range(3):
        params, opt_state, loss = jstep(params, opt_state, batch)

with open(os.environ["VT_EXPECT"], "w") as f:
    json.dump({"params": P, "opt_state": O, "sets": 1 if donate else 2, "gradients": P if "--split" in args else 0,
               "layer": "block_2/Dense_1"}, f)
