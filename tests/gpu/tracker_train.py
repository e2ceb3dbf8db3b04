#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A training run for tests/gpu/tracker.sh (issue 23): HF BERT-base or GPT-2 built from
its config (no download), AdamW, fp32 or bf16 autocast, optionally torch.compile'd or
with gradient checkpointing. Prints one JSON line (last on stdout) with what the
categories must come to:
    param_bytes      the model's parameters (weights)
    grad_bytes       their gradients after the last step's optimizer step (kept between steps
                     unless --set-to-none)
    opt_bytes        AdamW's state tensors on the GPU (exp_avg, exp_avg_sq; step is on the CPU)
    max_reserved     torch.cuda.max_memory_reserved()
    max_allocated    torch.cuda.max_memory_allocated()
"""
import argparse
import json
import os
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", choices=["bert", "gpt2"], default="bert")
    ap.add_argument("--amp", choices=["fp32", "bf16"], default="fp32")
    ap.add_argument("--compile", choices=["none", "default", "reduce-overhead"], default="none")
    ap.add_argument("--checkpoint", action="store_true", help="model.gradient_checkpointing_enable()")
    ap.add_argument("--batch", type=int, default=None)
    ap.add_argument("--seq", type=int, default=None)
    ap.add_argument("--steps", type=int, default=4)
    ap.add_argument("--set-to-none", action="store_true",
                    help="opt.zero_grad(set_to_none=True): under CUDA graphs a kept .grad is a graph "
                         "output that the next replay overwrites")
    args = ap.parse_args()
    import torch
    if args.model == "bert":
        from transformers import BertConfig, BertForSequenceClassification
        cfg = BertConfig()
        model = BertForSequenceClassification(cfg)
        batch, seq = args.batch or 32, args.seq or 256
    else:
        from transformers import GPT2Config, GPT2LMHeadModel
        cfg = GPT2Config()
        model = GPT2LMHeadModel(cfg)
        batch, seq = args.batch or 8, args.seq or 512
    dev = torch.device("cuda")
    model.to(dev).train()
    if args.checkpoint:
        model.gradient_checkpointing_enable()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-5)
    run = model if args.compile == "none" else torch.compile(model, mode=None if args.compile == "default" else args.compile)
    g = torch.Generator(device="cpu").manual_seed(0)
    nbytes = lambda t: t.numel() * t.element_size()
    grad_bytes = 0
    for _ in range(args.steps):
        if args.compile == "reduce-overhead":
            # CUDA graphs reuse their outputs' memory at each replay: a new step must say so
            torch.compiler.cudagraph_mark_step_begin()
        ids = torch.randint(0, cfg.vocab_size, (batch, seq), generator=g).to(dev)
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=args.amp == "bf16"):
            if args.model == "bert":
                labels = torch.randint(0, 2, (batch,), generator=g).to(dev)
                loss = run(input_ids=ids, labels=labels).loss
            else:
                loss = run(input_ids=ids, labels=ids).loss
        loss.backward()
        opt.step()
        # what the optimizer step (the peak) held: taken before set_to_none frees them
        grad_bytes = sum(nbytes(p.grad) for p in model.parameters() if p.grad is not None)
        opt.zero_grad(set_to_none=args.set_to_none)
    torch.cuda.synchronize()
    params = list(model.parameters())
    opt_bytes = sum(nbytes(v) for st in opt.state.values() for v in st.values()
                    if torch.is_tensor(v) and v.is_cuda)
    print(json.dumps({
        "model": args.model, "amp": args.amp, "compile": args.compile, "checkpoint": args.checkpoint,
        "set_to_none": args.set_to_none,
        "param_bytes": sum(nbytes(p) for p in params),
        "grad_bytes": grad_bytes,
        "opt_bytes": opt_bytes,
        "max_reserved": torch.cuda.max_memory_reserved(),
        "max_allocated": torch.cuda.max_memory_allocated(),
        "backend": torch.cuda.get_allocator_backend(),
    }))


if __name__ == "__main__":
    sys.exit(main())
