#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check vt-bert's maths against Hugging Face's BertForSequenceClassification.

    vt-bert --model tiny --precision fp32 --steps 1 --dump-init /tmp/bert-dump
    python3 tests/gpu/check_bert_hf.py /tmp/bert-dump

vt-bert --dump-init DIR writes the initial weights (weights.bin, fp32, in the order and with
the names of HF's named_parameters()), the first batch (input_ids, token_type_ids, labels)
and, after its first forward/backward, the loss and each parameter's gradient norm
(index.json). This script builds the same model in transformers from the dumped config,
loads the dumped weights, runs one forward/backward on the dumped batch and compares the
loss and every gradient norm: |vt-bert - HF| <= rtol * |HF| + atol, rtol 1e-4 by default
and atol 1e-7 times the largest gradient norm. The floor matters for the attention key
biases: softmax ignores a constant added to a row of scores, so their gradient is exactly
zero and what either side computes there is rounding noise (vt-bert's fp32 gives ~1e-11).

The reference runs in float64 on the CPU by default (--device cuda / --dtype float32 to
change that), so the comparison measures vt-bert's fp32 error alone. Dropout is 0 in both
(vt-bert has none); hidden_act is the exact erf 'gelu'; layer_norm_eps is 1e-12; attention
is the eager implementation with an all-ones mask. Exits 0 when everything matches,
1 otherwise, 2 on a usage or setup problem.
"""
import argparse
import json
import os
import sys

import numpy as np


def load_dump(d):
    with open(os.path.join(d, "index.json")) as f:
        idx = json.load(f)
    if idx.get("format") != "vt-bert-dump/1":
        sys.exit(f"check_bert_hf: {d}/index.json is not a vt-bert dump (format {idx.get('format')!r})")
    w = np.fromfile(os.path.join(d, idx["weights"]["file"]), dtype="<f4")
    params = {}
    for p in idx["params"]:
        off = p["offset"] // 4
        n = p["numel"]
        if off + n > w.size:
            sys.exit(f"check_bert_hf: weights.bin is too short for {p['name']}")
        params[p["name"]] = w[off:off + n].reshape(p["shape"])
    batch = {}
    for k, spec in idx["batch"].items():
        a = np.fromfile(os.path.join(d, spec["file"]), dtype="<i4")
        batch[k] = a.reshape(spec["shape"])
    return idx, params, batch


def build_model(cfg, torch):
    from transformers import BertConfig, BertForSequenceClassification

    conf = BertConfig(
        vocab_size=cfg["vocab"],
        hidden_size=cfg["hidden"],
        num_hidden_layers=cfg["layers"],
        num_attention_heads=cfg["heads"],
        intermediate_size=cfg["ffn"],
        hidden_act="gelu",
        hidden_dropout_prob=0.0,
        attention_probs_dropout_prob=0.0,
        max_position_embeddings=cfg["max_position"],
        type_vocab_size=cfg["type_vocab"],
        layer_norm_eps=1e-12,
        initializer_range=0.02,
        num_labels=cfg["num_labels"],
        classifier_dropout=None,
        pad_token_id=0,
    )
    # The eager attention is the plain softmax(QK^T/sqrt(d))V that vt-bert computes.
    conf._attn_implementation = "eager"
    try:
        model = BertForSequenceClassification(conf)
    except TypeError:
        model = BertForSequenceClassification._from_config(conf, attn_implementation="eager")
    return model


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dump", help="the directory vt-bert --dump-init wrote")
    ap.add_argument("--device", default="cpu", help="torch device of the reference (cpu)")
    ap.add_argument("--dtype", default="float64", choices=["float64", "float32"])
    ap.add_argument("--rtol", type=float, default=1e-4)
    ap.add_argument("--atol", type=float, default=None,
                    help="absolute floor (default: 1e-7 x the largest reference gradient norm)")
    ap.add_argument("--json", action="store_true", help="print one JSON summary line at the end")
    args = ap.parse_args()

    try:
        import torch
    except ImportError:
        print("check_bert_hf: needs torch and transformers", file=sys.stderr)
        return 2

    idx, params, batch = load_dump(args.dump)
    cfg = idx["config"]
    if cfg.get("precision") != "fp32":
        print(f"check_bert_hf: note: the dump is from a {cfg.get('precision')} run; the tolerance "
              "is meant for fp32", file=sys.stderr)
    dtype = getattr(torch, args.dtype)
    torch.manual_seed(0)
    model = build_model(cfg, torch)

    # Every HF parameter must come from the dump, with the same shape, and nothing else.
    hf = dict(model.named_parameters())
    missing = sorted(set(hf) - set(params))
    extra = sorted(set(params) - set(hf))
    if missing or extra:
        print(f"check_bert_hf: parameter names differ: missing from dump {missing[:5]}, "
              f"not in HF {extra[:5]}", file=sys.stderr)
        return 1
    n_hf = sum(p.numel() for p in hf.values())
    if n_hf != idx["parameters"]:
        print(f"check_bert_hf: HF has {n_hf} parameters, vt-bert {idx['parameters']}", file=sys.stderr)
        return 1
    with torch.no_grad():
        for name, p in hf.items():
            src = torch.from_numpy(np.ascontiguousarray(params[name]))
            if tuple(src.shape) != tuple(p.shape):
                print(f"check_bert_hf: {name}: dump shape {tuple(src.shape)}, HF {tuple(p.shape)}",
                      file=sys.stderr)
                return 1
            p.copy_(src)
    model.to(device=args.device, dtype=dtype)
    model.train()  # dropout probabilities are all 0, so train and eval agree
    model.zero_grad(set_to_none=True)

    dev = args.device
    ids = torch.from_numpy(batch["input_ids"].astype(np.int64)).to(dev)
    tt = torch.from_numpy(batch["token_type_ids"].astype(np.int64)).to(dev)
    labels = torch.from_numpy(batch["labels"].astype(np.int64)).to(dev)
    out = model(input_ids=ids, token_type_ids=tt, attention_mask=torch.ones_like(ids), labels=labels)
    out.loss.backward()

    failures = []
    ref_loss = float(out.loss.detach().double())
    got_loss = float(idx["loss"])
    rel = abs(got_loss - ref_loss) / max(abs(ref_loss), 1e-30)
    print(f"loss: vt-bert {got_loss:.9g}  HF {ref_loss:.9g}  rel {rel:.2e}")
    if not rel <= args.rtol:
        failures.append(("loss", got_loss, ref_loss, rel))

    refs = {}
    for name, p in hf.items():
        refs[name] = 0.0 if p.grad is None else float(p.grad.detach().double().norm())
    atol = args.atol if args.atol is not None else 1e-7 * max(refs.values())
    print(f"gradient tolerance: rtol {args.rtol:g}, atol {atol:.3g}")
    worst = []
    for p in idx["params"]:
        ref = refs[p["name"]]
        got = float(p["grad_norm"])
        err = abs(got - ref)
        r = err / max(abs(ref), 1e-30)
        # ranked by how close each one comes to its bound (1 = at the limit)
        worst.append((err / (args.rtol * abs(ref) + atol), r, p["name"], got, ref))
        if not err <= args.rtol * abs(ref) + atol:
            failures.append((p["name"], got, ref, r))
    worst.sort(reverse=True)
    print(f"gradient norms: {len(worst)} parameters, closest to their bound (fraction of it, rel. diff):")
    for frac, r, name, got, ref in worst[:8]:
        print(f"  {frac:.3f}  {r:.2e}  {name}: vt-bert {got:.9g}  HF {ref:.9g}")
    graded = [w for w in worst if w[4] > atol / args.rtol]  # norms large enough for rtol to rule
    worst_rel = max(graded)[1] if graded else 0.0
    if failures:
        print(f"FAIL: {len(failures)} value(s) beyond rtol {args.rtol}:")
        for name, got, ref, r in failures[:20]:
            print(f"  {name}: vt-bert {got:.9g}  HF {ref:.9g}  rel {r:.2e}")
    else:
        print(f"OK: loss and {len(worst)} gradient norms agree (rtol {args.rtol:g}, atol {atol:.3g}); "
              f"worst relative difference of a non-negligible norm {worst_rel:.2e}")
    if args.json:
        print(json.dumps({"check": "bert_hf", "ok": not failures, "loss": got_loss, "hf_loss": ref_loss,
                          "loss_rel": rel, "worst_grad_rel": worst_rel,
                          "closest_to_bound": worst[0][2] if worst else None,
                          "failures": len(failures), "rtol": args.rtol, "atol": atol}))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
