#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks one traced run of jax_roles.py (tests/gpu/jax_roles.sh): prints one table row.

    jax_roles_check.py NAME EXPECT.json REPORT.json LAYERS.txt [--caching]

At the device's peak (report --json, by_category), the bytes the annotations decided:
weights and optimizer_state must be k times the pytrees' byte counts JAX reported,
within 1%, the same k for both: 1 with donation (one set lives), a whole number without
(the step's inputs and outputs, and with JAX's asynchronous dispatch the next step's
outputs too); with --split, gradients within 1% of the parameters' bytes. Shown, not
checked: the bytes left unnamed (activations, temporary, other by lifetimes) against
XLA's temp buffer of the step (its memory analysis), where a fused step's activations
and gradients live (the peak is not always inside a step). `top --by layer` must name
flax module paths (block_N/Dense_M, LMBlock_N/..., Embed_0) and no XLA compiler range.
--caching (the default BFC allocator): the report must say caching mode and name the
annotated pytrees inside the block (within 1%).
Exit 1 when a check fails.
"""
import json
import re
import sys


def main():
    name, exp_p, rep_p, lay_p = sys.argv[1:5]
    caching = "--caching" in sys.argv
    e = json.load(open(exp_p))
    r = json.load(open(rep_p))
    dev = max(r["devices"], key=lambda d: d["peak_bytes"])
    cats = {c["category"]: c for c in dev["by_category"]}
    b = {k: cats.get(k, {}).get("bytes", 0) for k in ("weights", "optimizer_state", "gradients", "activations",
                                                      "temporary", "other", "workspace")}
    ann = {k: cats.get(k, {}).get("annotated_bytes", 0) for k in b}
    P, O = e["param_bytes"], e["opt_bytes"]
    fails = []
    layers = open(lay_p).read()
    if caching:
        info = dev["categories"]
        seg = info.get("annotated_in_segments", {})
        if info["mode"] != "caching":
            fails.append("mode %s, not caching" % info["mode"])
        for k, want in (("weights", P), ("optimizer_state", O)):
            got = seg.get(k, 0)
            if abs(got - want) > 0.01 * want:
                fails.append("%s in segments %d, JAX %d" % (k, got, want))
        print("%-22s %7s  %14s %14s  %s" % (name, "caching", "w %.4f" % (seg.get("weights", 0) / P),
                                             "o %.4f" % (seg.get("optimizer_state", 0) / O),
                                             "FAIL: " + "; ".join(fails) if fails else "pass"))
        return 1 if fails else 0
    # what the annotations named (lifetimes may add the inputs x, y, made before the
    # first step and kept, to weights)
    kw, ko = ann["weights"] / P, ann["optimizer_state"] / O
    k = round(kw)
    # without donation, the inputs and outputs of a step, and with JAX's asynchronous
    # dispatch the next step's outputs too, are live at once: k whole sets
    if k < 1 or (e["donate"] and k != 1) or abs(kw - k) > 0.01:
        fails.append("weights %d = %.4f x params %d" % (ann["weights"], kw, P))
    if round(ko) != k or abs(ko - k) > 0.01:
        fails.append("optimizer_state %d = %.4f x opt_state %d (weights: %d sets)" % (ann["optimizer_state"], ko, O, k))
    note = ""
    if e.get("split"):
        kg = ann["gradients"] / P
        note = "gradients %.4f x params" % kg
        if not ann["gradients"] or abs(kg - round(kg)) > 0.01:
            fails.append("gradients %d = %.4f x params" % (ann["gradients"], kg))
    # a fused step's gradients and activations live in XLA's temp buffer: it must be
    # there at the peak, unnamed (activations, temporary, or other by lifetimes; not the
    # rounding of annotated buffers, which is other by annotation)
    unnamed = b["activations"] + b["temporary"] + b["other"] - ann["other"]
    temp = e.get("xla_temp_bytes")
    if temp:
        # shown, not checked: the peak is not always inside a step
        note = "unnamed %.3f x XLA temp" % (unnamed / temp)
    pat = r"(block_\d+/Dense_\d+|Block_\d+/|LMBlock_\d+/|Embed_0|Dense_\d+)"
    if not re.search(pat, layers):
        fails.append("top --by layer names no flax module path")
    if re.search(r"XlaPass|XlaCompile", layers):
        fails.append("an XLA compiler range is a layer")
    print("%-22s %7d  %14s %14s  %-26s %s" % (name, k, "w %.4f" % kw, "o %.4f" % ko, note,
                                             "FAIL: " + "; ".join(fails) if fails else "pass"))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
