#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A flax model trained with optax.adamw, for tests/gpu/jax_roles.sh: the JAX hook's
roles (docs/categories.md, "JAX"). Unchanged JAX code: run it under `vramtrace run`.

    python3 jax_roles.py --model mlp|lm [--bf16] [--donate] [--split] --expect OUT.json
    python3 jax_roles.py --model mlp --ab        # the hook's cost per jitted step

--model mlp: 8 residual blocks of Dense(width) (params a plain dict: model.init(...)["params"]);
--model lm: a small transformer LM (flax TrainState: .params, .opt_state).
--split: gradients from their own jitted function (jax.jit(jax.value_and_grad(loss))),
then a jitted update: the gradients are a jitted call's results.
Writes the pytrees' byte counts as JAX reports them (sum of leaves' nbytes) and XLA's
memory analysis of the step to --expect. --ab: after warm-up, blocks of --block steps
with the hook on and off (vramtrace_jax.HOOK.on), and with recording paused, alternate in
this one process; prints one JSON line of median step times per mode.
"""
import argparse
import json
import statistics
import sys
import time

import jax
import jax.numpy as jnp
import flax.linen as nn
import optax
from flax.training import train_state


def parse_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", choices=["mlp", "lm"], default="mlp")
    ap.add_argument("--bf16", action="store_true")
    ap.add_argument("--donate", action="store_true")
    ap.add_argument("--split", action="store_true")
    ap.add_argument("--steps", type=int, default=6)
    ap.add_argument("--width", type=int, default=2048)
    ap.add_argument("--expect", default=None)
    ap.add_argument("--ab", action="store_true")
    ap.add_argument("--block", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=6)
    return ap.parse_args()


class Block(nn.Module):
    width: int
    dtype: object

    @nn.compact
    def __call__(self, x):
        h = nn.Dense(self.width, dtype=self.dtype, param_dtype=self.dtype)(x)
        h = nn.gelu(h)
        h = nn.Dense(self.width, dtype=self.dtype, param_dtype=self.dtype)(h)
        return x + h


class MLP(nn.Module):
    width: int
    depth: int
    dtype: object

    @nn.compact
    def __call__(self, x):
        for i in range(self.depth):
            x = Block(self.width, self.dtype, name="block_%d" % i)(x)
        return nn.Dense(16, dtype=self.dtype, param_dtype=self.dtype)(x)


class LMBlock(nn.Module):
    d: int
    heads: int
    dtype: object

    @nn.compact
    def __call__(self, x):
        h = nn.LayerNorm(dtype=self.dtype, param_dtype=self.dtype)(x)
        h = nn.SelfAttention(num_heads=self.heads, dtype=self.dtype, param_dtype=self.dtype,
                             deterministic=True)(h, mask=nn.make_causal_mask(x[..., 0]))
        x = x + h
        h = nn.LayerNorm(dtype=self.dtype, param_dtype=self.dtype)(x)
        h = nn.Dense(4 * self.d, dtype=self.dtype, param_dtype=self.dtype)(h)
        h = nn.Dense(self.d, dtype=self.dtype, param_dtype=self.dtype)(nn.gelu(h))
        return x + h


class LM(nn.Module):
    vocab: int
    d: int
    layers: int
    heads: int
    dtype: object

    @nn.compact
    def __call__(self, tok):
        x = nn.Embed(self.vocab, self.d, dtype=self.dtype, param_dtype=self.dtype)(tok)
        for _ in range(self.layers):
            x = LMBlock(self.d, self.heads, self.dtype)(x)
        x = nn.LayerNorm(dtype=self.dtype, param_dtype=self.dtype)(x)
        return nn.Dense(self.vocab, dtype=self.dtype, param_dtype=self.dtype)(x)


def nbytes(tree):
    return sum(int(x.nbytes) for x in jax.tree_util.tree_leaves(tree) if hasattr(x, "nbytes"))


def main():
    a = parse_args()
    dtype = jnp.bfloat16 if a.bf16 else jnp.float32
    key = jax.random.PRNGKey(0)
    tx = optax.adamw(1e-4)
    donate = (0, 1) if a.donate else ()
    if a.model == "mlp":
        model = MLP(a.width, 8, dtype)
        x = jax.random.normal(key, (256, a.width), dtype)
        y = jax.random.normal(key, (256, 16), dtype)
        params = model.init(key, x)["params"]  # a plain dict of modules
        opt_state = tx.init(params)

        def loss_fn(p, x, y):
            return jnp.mean((model.apply({"params": p}, x).astype(jnp.float32) - y.astype(jnp.float32)) ** 2)

        if a.split:
            grad_fn = jax.jit(jax.value_and_grad(loss_fn))

            def update(p, o, g):
                u, o = tx.update(g, o, p)
                return optax.apply_updates(p, u), o

            upd = jax.jit(update, donate_argnums=donate)

            def run(state):
                p, o = state
                loss, g = grad_fn(p, x, y)
                p, o = upd(p, o, g)
                return (p, o), loss

            step_for_analysis = None
        else:
            def step(p, o, x, y):
                loss, g = jax.value_and_grad(loss_fn)(p, x, y)
                u, o = tx.update(g, o, p)
                return optax.apply_updates(p, u), o, loss

            jstep = jax.jit(step, donate_argnums=donate)

            def run(state):
                p, o, loss = jstep(state[0], state[1], x, y)
                return (p, o), loss

            step_for_analysis = (step, (params, opt_state, x, y))
        state = (params, opt_state)
        get_p, get_o = (lambda s: s[0]), (lambda s: s[1])
    else:
        vocab, d, layers, heads, seq, batch = 16384, 512, 4, 8, 256, 16
        model = LM(vocab, d, layers, heads, dtype)
        tok = jax.random.randint(key, (batch, seq), 0, vocab)
        params = model.init(key, tok)["params"]
        ts = train_state.TrainState.create(apply_fn=model.apply, params=params, tx=tx)

        def step(s, tok):
            def loss_fn(p):
                logits = s.apply_fn({"params": p}, tok[:, :-1]).astype(jnp.float32)
                return optax.softmax_cross_entropy_with_integer_labels(logits, tok[:, 1:]).mean()

            loss, g = jax.value_and_grad(loss_fn)(s.params)
            return s.apply_gradients(grads=g), loss

        jstep = jax.jit(step, donate_argnums=(0,) if a.donate else ())

        def run(s):
            return jstep(s, tok)

        step_for_analysis = (step, (ts, tok))
        state = ts
        get_p, get_o = (lambda s: s.params), (lambda s: s.opt_state)

    expect = {"model": a.model, "dtype": "bf16" if a.bf16 else "fp32", "donate": a.donate, "split": a.split,
              "param_bytes": nbytes(get_p(state)), "opt_bytes": nbytes(get_o(state)),
              "param_leaves": len(jax.tree_util.tree_leaves(get_p(state))),
              "jax": jax.__version__}
    if step_for_analysis is not None:
        try:
            fn, args = step_for_analysis
            ma = jax.jit(fn).lower(*args).compile().memory_analysis()
            expect["xla_temp_bytes"] = int(ma.temp_size_in_bytes)
            expect["xla_output_bytes"] = int(ma.output_size_in_bytes)
            expect["xla_argument_bytes"] = int(ma.argument_size_in_bytes)
        except Exception as e:
            expect["xla_error"] = "%s: %s" % (type(e).__name__, e)
    if a.ab:
        import ctypes

        hookmod = sys.modules.get("vramtrace_jax")
        hook = getattr(hookmod, "HOOK", None)
        setrec = getattr(ctypes.CDLL(None), "vramtrace_set_recording", None)
        for _ in range(5):
            state, loss = run(state)
        jax.block_until_ready(loss)
        modes = {"hook": [], "nohook": [], "paused": []}
        for _ in range(a.rounds):
            for m in modes:
                if hook is not None:
                    hook.on = m == "hook"
                if setrec:
                    setrec(0 if m == "paused" else 1)
                for _ in range(a.block):
                    t0 = time.perf_counter()
                    state, loss = run(state)
                    jax.block_until_ready(loss)
                    modes[m].append((time.perf_counter() - t0) * 1e3)
        if setrec:
            setrec(1)
        print(json.dumps({"hook_loaded": hook is not None,
                          "modes": {m: {"median_ms": statistics.median(v), "min_ms": min(v)} for m, v in modes.items()},
                          **expect}))
        return
    for _ in range(a.steps):
        state, loss = run(state)
    jax.block_until_ready(loss)
    print(json.dumps(expect))
    if a.expect:
        with open(a.expect, "w") as f:
            json.dump(expect, f)


if __name__ == "__main__":
    main()
