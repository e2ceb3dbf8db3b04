#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""JAX: what vramtrace's categories say of tests/gpu/jax_train.py, against the model's
parameter bytes and the Adam state's size that the script prints.

    XLA_PYTHON_CLIENT_ALLOCATOR=platform vramtrace run -o jax.vtrace -- \\
        python3 tests/gpu/jax_train.py > jax.json
    vramtrace report --json jax.vtrace > vt.json
    python3 tests/gpu/jax_categories.py jax.json vt.json

The step is one jitted function that is not donated: while it runs, the old parameters
and Adam moments (its inputs) and the new ones (its outputs) are both live, so the peak
holds 2 x (param_bytes + adam_state_bytes) plus XLA's scratch. Inputs and outputs come
from the same stack (the executable's output allocation), so neither rules nor
lifetimes can split parameters from optimizer state (docs/categories.md, "JAX"): the
check is that the two sets are there, and how vramtrace labelled them."""
import json
import sys


def main():
    if len(sys.argv) != 3:
        print(__doc__.split("\n\n")[1])
        return 2
    with open(sys.argv[1]) as f:
        jx = json.loads(f.read().strip().splitlines()[-1])
    with open(sys.argv[2]) as f:
        vt = json.load(f)
    dev = vt["devices"][0]
    one_set = jx["param_bytes"] + jx["adam_state_bytes"]
    print("param_bytes %d, adam_state_bytes %d: one set %d, two sets %d" %
          (jx["param_bytes"], jx["adam_state_bytes"], one_set, 2 * one_set))
    print("vramtrace peak %d (%s mode)" % (dev["peak_bytes"], dev["categories"]["mode"]))
    for r in dev["by_category"]:
        if r["bytes"]:
            print("  %-16s %14d  %s" % (r["category"], r["bytes"], r["how"]))
    # the largest sites at the peak: each set is one site
    sets = sorted((s["bytes"] for s in dev["sites"]), reverse=True)[:2]
    ok = len(sets) == 2 and all(one_set <= b <= one_set * 1.05 for b in sets)
    print("two largest sites at the peak: %s -> %s" % (sets, "each one set (+<=5%)" if ok else "NOT two sets"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
