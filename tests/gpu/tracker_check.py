#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks one traced run of tracker_train.py (tests/gpu/tracker.sh): reads the train
script's JSON line and `vramtrace report --json` of its trace (and, with --per-tensor-report,
that of the same run under --per-tensor), prints one table row per check:
    NAME  CHECK  GOT  WANT  pass|FAIL
and exits 1 when a check failed."""
import argparse
import json
import sys


def cats(dev, key="by_category"):
    return {r["category"]: r["bytes"] for r in dev.get(key) or []}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("name")
    ap.add_argument("train_json")
    ap.add_argument("report_json")
    ap.add_argument("--per-tensor-report", default=None)
    ap.add_argument("--no-exact", action="store_true", help="skip the weights/gradients/optimizer checks")
    a = ap.parse_args()
    t = json.loads(open(a.train_json).read().strip().splitlines()[-1])
    r = json.load(open(a.report_json))
    dev = [d for d in r["devices"] if d["device"] == 0][0]
    c = cats(dev)
    kinds = {k["kind"]: k["bytes"] for k in dev["by_kind"]}
    rows, ok = [], True

    def check(what, got, want, tol):
        nonlocal ok
        if tol is None:  # at most
            good = got <= want
        else:
            good = want == got if tol == 0 else abs(got - want) <= tol * max(want, 1)
        ok &= good
        rows.append((a.name, what, got, want, "pass" if good else "FAIL"))

    check("mode is blocks", int(dev["categories"]["mode"] == "blocks"), 1, 0)
    if not a.no_exact:
        check("weights ~ params (1%)", c.get("weights", 0), t["param_bytes"], 0.01)
        check("gradients ~ grads (1%)", c.get("gradients", 0), t["grad_bytes"], 0.01)
        check("optimizer_state ~ AdamW (1%)", c.get("optimizer_state", 0), t["opt_bytes"], 0.01)
    seg = kinds.get("torch_block", 0) + kinds.get("idle_in_segments", 0) + kinds.get("idle_in_graph_pools", 0)
    check("segments at peak == max_reserved", seg, t["max_reserved"], 0)
    if a.per_tensor_report:
        p = json.load(open(a.per_tensor_report))
        pd = [d for d in p["devices"] if d["device"] == 0][0]
        check("activations ~ per-tensor (2%)", c.get("activations", 0), cats(pd).get("activations", 0), 0.02)
    if "ckpt" in a.name or "checkpoint" in a.name:  # tracker.sh names the case bert-bf16-ckpt
        check("recomputed not temporary (tmp <= 5% of acts)", c.get("temporary", 0),
              int(0.05 * c.get("activations", 0)), None)
    for row in rows:
        print("%-22s %-44s %16d %16d  %s" % row)
    print("%-22s categories at the peak: %s" % (a.name, json.dumps(c)), file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
