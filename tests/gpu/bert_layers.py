#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""HF BERT-base training steps for the layer checks (tests/gpu/python_layers.sh):
BertForSequenceClassification(BertConfig()) from the config (no download), random token
ids, AdamW, eager attention by default (the S x S attention scores are materialized, as
the issue's test case needs; --attn sdpa for PyTorch's fused kernels).

    vramtrace run --per-tensor --torch-modules -o bert512.vtrace -- \\
        python3 bert_layers.py --seq 512 --batch 8

Prints one JSON line: {"seq", "batch", "attn", "amp", "max_allocated", "max_reserved"}."""
import argparse
import json
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seq", type=int, default=512)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--steps", type=int, default=2)
    ap.add_argument("--attn", choices=["eager", "sdpa"], default="eager")
    ap.add_argument("--amp", choices=["bf16", "fp16"], default=None)
    a = ap.parse_args()
    import torch
    from transformers import BertConfig, BertForSequenceClassification

    if not torch.cuda.is_available():
        print("bert_layers.py: no CUDA device", file=sys.stderr)
        return 1
    torch.manual_seed(0)
    dev = torch.device("cuda")
    cfg = BertConfig(max_position_embeddings=max(512, a.seq))
    try:
        model = BertForSequenceClassification._from_config(cfg, attn_implementation=a.attn)
    except (TypeError, AttributeError, ValueError):
        cfg._attn_implementation = a.attn
        model = BertForSequenceClassification(cfg)
    model = model.to(dev).train()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    dt = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(a.amp)

    def train_step():
        ids = torch.randint(0, cfg.vocab_size, (a.batch, a.seq), device=dev)
        labels = torch.randint(0, cfg.num_labels, (a.batch,), device=dev)
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=dt, enabled=dt is not None):
            loss = model(input_ids=ids, attention_mask=torch.ones_like(ids), labels=labels).loss
        loss.backward()
        opt.step()

    for _ in range(a.steps):
        train_step()
    torch.cuda.synchronize()
    print(json.dumps({"seq": a.seq, "batch": a.batch, "attn": a.attn, "amp": a.amp,
                      "max_allocated": torch.cuda.max_memory_allocated(),
                      "max_reserved": torch.cuda.max_memory_reserved()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
