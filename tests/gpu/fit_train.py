#!/usr/bin/env python3
"""Training steps of HF BERT-base or GPT-2 (built from their configs, no download) with
AdamW, for `vramtrace fit` / `forecast` validation (tests/gpu/fit.sh, docs/fit.md).

    python3 fit_train.py --model bert --batch 16 --seq 128 [--amp bf16] [--steps 2]
    python3 fit_train.py --model bert --seq 128 --search 16,24,40 --grid 8

Without --search: trains --steps steps and prints one JSON line (the last on stdout):
    {"ok": true, "max_reserved": ..., "max_allocated": ..., "backend": ...}
(torch.cuda.max_memory_reserved() / max_memory_allocated() over the run, in bytes).
With --search CAPS (GiB): for each cap, torch.cuda.set_per_process_memory_fraction(cap /
total) and a search, in this process, of the largest batch on a --grid that trains
--steps steps without an OOM (doubling, then bisecting); prints {"search": {cap: batch}}.
With --cap GIB: --batch alone under that cap; prints {"fits": ..., "max_reserved": ...}
(a batch that trains alone can fail in the search, after its other batches).
"""
import argparse
import gc
import json
import sys


def build(torch, model, seq):
    import transformers
    if model == "bert":
        cfg = transformers.BertConfig()
        m = transformers.BertForSequenceClassification(cfg)
    else:
        cfg = transformers.GPT2Config(n_positions=max(1024, seq))
        m = transformers.GPT2LMHeadModel(cfg)
    return m.cuda().train(), cfg.vocab_size


def train(torch, model, batch, seq, amp, steps):
    m, vocab = build(torch, model, seq)
    opt = torch.optim.AdamW(m.parameters(), lr=1e-4)
    g = torch.Generator(device="cuda").manual_seed(0)
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(amp)
    try:
        for _ in range(steps):
            ids = torch.randint(0, vocab, (batch, seq), device="cuda", generator=g)
            with torch.autocast("cuda", dtype=dtype, enabled=dtype is not None):
                if model == "bert":
                    labels = torch.randint(0, 2, (batch,), device="cuda", generator=g)
                    loss = m(input_ids=ids, labels=labels).loss
                else:
                    loss = m(input_ids=ids, labels=ids).loss
            loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
        torch.cuda.synchronize()
    finally:
        del m, opt
        gc.collect()


def fits(torch, model, batch, seq, amp, steps):
    try:
        train(torch, model, batch, seq, amp, steps)
        return True
    except torch.OutOfMemoryError:
        return False
    finally:
        gc.collect()
        torch.cuda.empty_cache()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", choices=["bert", "gpt2"], default="bert")
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--seq", type=int, default=128)
    ap.add_argument("--amp", choices=["bf16", "fp16"], default=None)
    ap.add_argument("--steps", type=int, default=2)
    ap.add_argument("--search", default=None, help="caps in GiB, comma-separated")
    ap.add_argument("--grid", type=int, default=8)
    ap.add_argument("--cap", type=float, default=None, help="GiB: --batch alone under this cap")
    a = ap.parse_args()
    import torch
    torch.manual_seed(0)
    if a.cap:
        total = torch.cuda.get_device_properties(0).total_memory
        torch.cuda.set_per_process_memory_fraction(a.cap * 2**30 / total)
        ok = fits(torch, a.model, a.batch, a.seq, a.amp, a.steps)
        print(json.dumps({"cap": a.cap, "batch": a.batch, "fits": ok,
                          "max_reserved": torch.cuda.max_memory_reserved()}))
        return 0
    if not a.search:
        train(torch, a.model, a.batch, a.seq, a.amp, a.steps)
        print(json.dumps({"ok": True, "max_reserved": torch.cuda.max_memory_reserved(),
                          "max_allocated": torch.cuda.max_memory_allocated(),
                          "backend": torch.cuda.memory.get_allocator_backend()}))
        return 0
    total = torch.cuda.get_device_properties(0).total_memory
    out = {}
    for cap in [float(c) for c in a.search.split(",")]:
        torch.cuda.set_per_process_memory_fraction(cap * 2**30 / total)
        lo, hi = 0, a.grid
        while fits(torch, a.model, hi, a.seq, a.amp, a.steps):
            lo, hi = hi, hi * 2
        while hi - lo > a.grid:
            mid = (lo + hi) // 2 // a.grid * a.grid
            if fits(torch, a.model, mid, a.seq, a.amp, a.steps):
                lo = mid
            else:
                hi = mid
        out[str(cap)] = lo
        print(f"cap {cap} GiB: largest batch {lo} (grid {a.grid})", file=sys.stderr)
    torch.cuda.set_per_process_memory_fraction(1.0)
    print(json.dumps({"search": out, "grid": a.grid}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
