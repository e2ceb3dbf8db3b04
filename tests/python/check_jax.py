# SPDX-License-Identifier: MIT
"""Checks a trace of jax_roles.py: at the peak, weights and optimizer_state are the
pytrees' bytes (times the sets live: inputs and outputs of a step without donation),
all from annotations; gradients as expected; `top --by layer` names the flax module
path of the largest parameter.

    check_jax.py VRAMTRACE TRACE EXPECT [--bfc]
--bfc: the buffers live in one preallocated block: the report must say caching mode and
name the pytrees' bytes inside it."""
import json
import subprocess
import sys

from vtcheck import check, done

vt, trace, expect = sys.argv[1:4]
e = json.load(open(expect))
r = json.loads(subprocess.run([vt, "report", "--json", trace], check=True, stdout=subprocess.PIPE).stdout)
cats = {c["category"]: c for c in r["devices"][0]["by_category"]}


def at_peak(cat):
    """Bytes the annotations decided (lifetimes and rules may add what JAX's pytrees do
    not hold: the stand-in's optax allocates its updates in Python)."""
    return cats.get(cat, {}).get("annotated_bytes", 0)


if "--bfc" in sys.argv:
    # one block: caching mode, and the annotations name the pytrees inside it
    info = r["devices"][0]["categories"]
    seg = info.get("annotated_in_segments", {})
    check(info["mode"] == "caching", "mode %s, not caching" % info["mode"])
    check(seg.get("weights") == e["params"], "weights in the block %s, want %d" % (seg.get("weights"), e["params"]))
    check(seg.get("optimizer_state") == e["opt_state"],
          "optimizer_state in the block %s, want %d" % (seg.get("optimizer_state"), e["opt_state"]))
    text = subprocess.run([vt, "report", trace], check=True, stdout=subprocess.PIPE).stdout.decode()
    check("inside the segments, the program's annotations name" in text, "the report does not say:\n" + text)
    done("check_jax")
k = e["sets"]
check(at_peak("weights") == k * e["params"], "weights at the peak %d, want %d x %d" % (at_peak("weights"), k, e["params"]))
check(at_peak("optimizer_state") == k * e["opt_state"],
      "optimizer_state at the peak %d, want %d x %d" % (at_peak("optimizer_state"), k, e["opt_state"]))
check(at_peak("gradients") == e["gradients"], "gradients at the peak %d, want %d" % (at_peak("gradients"), e["gradients"]))
top = subprocess.run([vt, "top", "--by", "layer", trace], check=True, stdout=subprocess.PIPE).stdout.decode()
check(e["layer"] in top, "top --by layer does not name %s:\n%s" % (e["layer"], top))
done("check_jax")
