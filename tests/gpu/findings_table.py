# SPDX-License-Identifier: MIT
"""Turns the findings traces (tests/data/findings/*.vtrace, recorded on the GPU by
tests/gpu/findings.sh) into the tables of docs/findings.md: the measured peak and bytes per
category at the peak, from `vramtrace report --json`, next to `vt-bert --plan`.

  python3 tests/gpu/findings_table.py build/bin/vramtrace build/bin/vt-bert > tables.md"""
import json, os, subprocess, sys

VT, BERT = sys.argv[1], sys.argv[2]
D = os.path.join(os.path.dirname(__file__), "..", "data", "findings")
CATS = ["weights", "activations", "gradients", "optimizer_state", "workspace", "temporary"]
MiB = 1 << 20

def manifest():
    for line in open(os.path.join(D, "manifest.tsv")):
        if line.startswith("#") or not line.strip():
            continue
        tag, args = line.rstrip("\n").split("\t")
        yield tag, args.split()

def measure(tag, args):
    rep = json.loads(subprocess.run([VT, "report", "--json", os.path.join(D, tag + ".vtrace")],
                                    capture_output=True, text=True, check=True).stdout)
    plan = json.loads(subprocess.run([BERT, "--plan", "--quiet", "--steps", "3", *args],
                                     capture_output=True, text=True, check=True).stdout.strip().splitlines()[-1])
    got = {c["category"]: c["bytes"] for c in rep["by_category"]}
    return rep, plan, got

rows = {tag: (args, *measure(tag, args)) for tag, args in manifest()}

def table(title, tags, label):
    print(f"### {title}\n")
    print(f"| {label} | traced peak | plan peak | " + " | ".join(c.replace('_', ' ') for c in CATS)
          + " | cuBLAS's own | categories = plan |")
    print("|---|" + "---:|" * (len(CATS) + 3) + "---|")
    for tag, name in tags:
        args, rep, plan, got = rows[tag]
        own = sum(got.get(c, 0) for c in CATS)
        extra = rep["peak_bytes"] - plan["peak_bytes"]
        same = all(got.get(c, 0) - (extra if c == "workspace" else 0) == plan["at_peak"][c] for c in CATS)
        cells = []
        for c in CATS:
            v = got.get(c, 0) - (extra if c == "workspace" else 0)
            cells.append(f"{v / MiB:,.1f}")
        print(f"| {name} | {rep['peak_bytes'] / MiB:,.1f} | {plan['peak_bytes'] / MiB:,.1f} | "
              + " | ".join(cells) + f" | {extra / MiB:,.1f} | {'yes' if same else 'NO'} |")
    print()

table("Batch size (BERT-base, seq 128, fp32, AdamW)",
      [(f"batch{b}", str(b)) for b in (1, 4, 8, 16, 32, 64)], "batch")
table("Sequence length (BERT-base, batch 16, fp32, AdamW)",
      [("seq64", "64"), ("batch16", "128"), ("seq256", "256"), ("seq512", "512")], "seq")
table("Precision (BERT-base, batch 16, seq 128, AdamW)",
      [("batch16", "fp32"), ("prec-fp16", "fp16 mixed"), ("prec-bf16", "bf16 mixed")], "precision")
table("Gradient checkpointing (BERT-base, batch 16, seq 128, fp32, AdamW)",
      [("batch16", "off"), ("recompute", "on")], "recompute")
table("Optimizer (BERT-base, batch 16, seq 128, fp32)",
      [("sgd", "SGD"), ("momentum", "SGD + momentum"), ("batch16", "AdamW")], "optimizer")
table("Model size (batch 16, seq 128, AdamW)",
      [("tiny", "tiny (4 x 312), fp32"), ("distil", "distil (6 x 768), fp32"),
       ("batch16", "base (12 x 768), fp32"), ("large-bf16", "large (24 x 1024), bf16 mixed")], "model")
