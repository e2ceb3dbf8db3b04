# SPDX-License-Identifier: MIT
"""A small JAX training loop (an MLP regression with Adam written by hand, so it needs
no optax) that reports JAX's own memory figures as one JSON line on stdout.

Used by tests/gpu/run.sh to compare vramtrace's traced peak with JAX's memory_stats()
under XLA's default preallocation and under XLA_PYTHON_CLIENT_ALLOCATOR=platform."""
import json, os, sys, time
import jax, jax.numpy as jnp

def main():
    width = int(os.environ.get("JAX_WIDTH", "4096"))
    depth = int(os.environ.get("JAX_DEPTH", "8"))
    batch = int(os.environ.get("JAX_BATCH", "1024"))
    steps = int(os.environ.get("JAX_STEPS", "20"))
    key = jax.random.PRNGKey(0)
    keys = jax.random.split(key, depth + 2)
    params = [jax.random.normal(k, (width, width), jnp.float32) / jnp.sqrt(width) for k in keys[:depth]]
    x = jax.random.normal(keys[-2], (batch, width), jnp.float32)
    y = jax.random.normal(keys[-1], (batch, width), jnp.float32)

    def loss_fn(ps, x, y):
        h = x
        for w in ps:
            h = jnp.tanh(h @ w)
        return jnp.mean((h - y) ** 2)

    @jax.jit
    def step(ps, m, v, t, x, y):
        loss, g = jax.value_and_grad(loss_fn)(ps, x, y)
        b1, b2, lr, eps = 0.9, 0.999, 1e-3, 1e-8
        m = [b1 * mi + (1 - b1) * gi for mi, gi in zip(m, g)]
        v = [b2 * vi + (1 - b2) * gi * gi for vi, gi in zip(v, g)]
        ps = [p - lr * (mi / (1 - b1 ** t)) / (jnp.sqrt(vi / (1 - b2 ** t)) + eps)
              for p, mi, vi in zip(ps, m, v)]
        return ps, m, v, loss

    m = [jnp.zeros_like(p) for p in params]
    v = [jnp.zeros_like(p) for p in params]
    losses = []
    for t in range(1, steps + 1):
        params, m, v, loss = step(params, m, v, float(t), x, y)
        losses.append(float(loss))
    jax.block_until_ready(params)
    stats = jax.devices()[0].memory_stats() or {}
    param_bytes = sum(p.size * p.dtype.itemsize for p in params)
    out = {
        "framework": "jax",
        "allocator": os.environ.get("XLA_PYTHON_CLIENT_ALLOCATOR", "default"),
        "preallocate": os.environ.get("XLA_PYTHON_CLIENT_PREALLOCATE", "true"),
        "param_bytes": int(param_bytes),
        "adam_state_bytes": int(2 * param_bytes),
        "peak_bytes_in_use": int(stats.get("peak_bytes_in_use", -1)),
        "bytes_limit": int(stats.get("bytes_limit", -1)),
        "bytes_reserved": int(stats.get("bytes_reserved", -1)),
        "pool_bytes": int(stats.get("pool_bytes", -1)),
        "peak_pool_bytes": int(stats.get("peak_pool_bytes", -1)),
        "loss_first": losses[0], "loss_last": losses[-1],
    }
    print(json.dumps(out), flush=True)

if __name__ == "__main__":
    main()
