#!/usr/bin/env python3
"""PyTorch's own memory categories at the peak of a training run, to check vramtrace's.

Trains HF BertForSequenceClassification(BertConfig()) (no download: built from the
config) with AdamW, batch 16, seq 128, fp32 or AMP, under
torch.profiler.profile(profile_memory=True, record_shapes=True, with_stack=True), then
reads the profiler's memory timeline (torch.profiler._memory_profiler, the raw export of
export_memory_timeline) and writes, as one JSON object, the bytes of each category at
the moment the total was highest, mapped to vramtrace's categories.

Run it under vramtrace with per-tensor allocation, then compare (docs/categories.md):

    vramtrace run --per-tensor -o torch-cat.vtrace -- \\
        python3 tests/gpu/torch_categories.py --out torch-cat.json
    vramtrace report --json torch-cat.vtrace > vt.json
    python3 tests/gpu/torch_categories.py --compare torch-cat.json vt.json

    (the same with --amp fp16 and --amp bf16)

PyTorch's categories -> vramtrace's: PARAMETER -> weights, OPTIMIZER_STATE ->
optimizer_state, GRADIENT -> gradients, ACTIVATION and INPUT -> activations, TEMPORARY
and AUTOGRAD_DETAIL -> temporary, unknown -> other. What PyTorch counts is tensor
storage through its allocator; vramtrace also sees cuBLAS/cuDNN workspaces and the
allocator's own rounding, so compare category by category, not totals."""
import argparse
import gzip
import json
import os
import sys
import tempfile

TORCH_TO_VT = {
    "PARAMETER": "weights",
    "OPTIMIZER_STATE": "optimizer_state",
    "GRADIENT": "gradients",
    "ACTIVATION": "activations",
    "INPUT": "activations",
    "TEMPORARY": "temporary",
    "AUTOGRAD_DETAIL": "temporary",
    None: "other",
}
VT_CATS = ["weights", "activations", "gradients", "optimizer_state", "workspace", "temporary", "other"]


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--amp", choices=["fp16", "bf16"], default=None, help="autocast (fp16 with a GradScaler)")
    ap.add_argument("--steps", type=int, default=4, help="training steps, all profiled (default 4)")
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--seq", type=int, default=128)
    ap.add_argument("--out", default=None, help="write the JSON here (default: stdout)")
    ap.add_argument("--compare", nargs=2, metavar=("TORCH_JSON", "VRAMTRACE_JSON"),
                    help="compare this script's output with `vramtrace report --json` of the same run")
    return ap.parse_args()


def train(args):
    import torch
    from transformers import BertConfig, BertForSequenceClassification
    from torch.profiler import ProfilerActivity, profile
    from torch.profiler import _memory_profiler as mp

    torch.manual_seed(0)
    dev = torch.device("cuda:0")
    model = BertForSequenceClassification(BertConfig()).to(dev)
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    scaler = None
    dtype = None
    if args.amp == "fp16":
        dtype = torch.float16
        scaler = torch.amp.GradScaler("cuda")
    elif args.amp == "bf16":
        dtype = torch.bfloat16
    ids = torch.randint(0, 30522, (args.batch, args.seq), device=dev)
    mask = torch.ones_like(ids)
    labels = torch.randint(0, 2, (args.batch,), device=dev)

    def step():
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=dtype, enabled=dtype is not None):
            loss = model(input_ids=ids, attention_mask=mask, labels=labels).loss
        if scaler is not None:
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
        else:
            loss.backward()
            opt.step()
        return loss.detach()

    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], profile_memory=True,
                 record_shapes=True, with_stack=True) as prof:
        for _ in range(args.steps):
            step()
        torch.cuda.synchronize()

    # The raw timeline: (time_us, action, signed bytes, category index) per event.
    with tempfile.TemporaryDirectory() as d:
        raw = os.path.join(d, "mem.raw.json.gz")
        prof.export_memory_timeline(raw, device="cuda:0")
        with gzip.open(raw, "rt") as f:
            events = json.load(f)
    index_to_cat = {i: c for c, i in mp._CATEGORY_TO_INDEX.items()}
    live = {}
    total = best = 0
    best_t, at_peak = None, {}
    for t, _action, nbytes, ci in sorted(events, key=lambda e: e[0]):
        cat = index_to_cat.get(ci)
        name = cat.name if cat is not None else None
        live[name] = live.get(name, 0) + nbytes
        total += nbytes
        if total > best:
            best, best_t, at_peak = total, t, dict(live)
    vt = {c: 0 for c in VT_CATS}
    for name, b in at_peak.items():
        vt[TORCH_TO_VT.get(name, "other")] += b
    return {
        "framework": "torch",
        "torch_version": torch.__version__,
        "model": "BertForSequenceClassification(BertConfig())",
        "batch": args.batch, "seq": args.seq, "steps": args.steps,
        "precision": args.amp or "fp32",
        "optimizer": "AdamW",
        "allocator_backend": torch.cuda.memory.get_allocator_backend()
        if hasattr(torch.cuda.memory, "get_allocator_backend") else None,
        "peak_bytes": best,
        "peak_time_us": best_t,
        "torch_categories_at_peak": {str(k): v for k, v in sorted(at_peak.items(), key=lambda x: str(x[0])) if v},
        "at_peak": vt,
        "max_memory_allocated": torch.cuda.max_memory_allocated(),
        "max_memory_reserved": torch.cuda.max_memory_reserved(),
    }


def compare(torch_path, vt_path):
    with open(torch_path) as f:
        tj = json.load(f)
    with open(vt_path) as f:
        vj = json.load(f)
    dev = vj["devices"][0] if vj.get("devices") else vj
    got = {r["category"]: r for r in dev.get("by_category", [])}
    print("peak: torch profiler %d bytes, vramtrace %d bytes (max_memory_allocated %d)" %
          (tj["peak_bytes"], dev["peak_bytes"], tj["max_memory_allocated"]))
    print("%-16s %14s %14s %14s  %s" % ("category", "torch", "vramtrace", "difference", "how"))
    for c in VT_CATS:
        t = tj["at_peak"].get(c, 0)
        r = got.get(c, {})
        v = r.get("bytes", 0)
        print("%-16s %14d %14d %+14d  %s" % (c, t, v, v - t, r.get("how") or "-"))
    info = dev.get("categories", {})
    print("vramtrace mode: %s; by rule sections: %s" % (info.get("mode"), ", ".join(
        "%s/%s=%d" % (x.get("rules"), x["category"], x["bytes"]) for x in info.get("by_rule", []))))


def main():
    args = parse_args()
    if args.compare:
        compare(*args.compare)
        return 0
    out = train(args)
    text = json.dumps(out, indent=2)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    print(text, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
