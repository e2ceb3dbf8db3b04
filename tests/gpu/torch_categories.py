#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""PyTorch's own memory categories at the peak of a training run, to check vramtrace's.

Trains HF BertForSequenceClassification(BertConfig()) (no download: built from the
config) with AdamW, batch 16, seq 128, fp32 or AMP, under
torch.profiler.profile(profile_memory=True, record_shapes=True, with_stack=True), then
reads the profiler's memory timeline (torch.profiler._memory_profiler, the raw export of
export_memory_timeline) and writes, as one JSON object, the bytes of each category at
the moment the total was highest, mapped to vramtrace's categories.

The profiler gets allocation events only from PyTorch's native caching allocator (under
cudaMallocAsync its timeline never sees a tensor freed), so the reference run is
untraced on the native allocator, and vramtrace traces the same steps per tensor
(tests/gpu/categories.sh does all of this, docs/categories.md has the results):

    PYTORCH_CUDA_ALLOC_CONF=backend:native python3 tests/gpu/torch_categories.py --out torch-cat.json
    vramtrace run --per-tensor -o torch-cat.vtrace -- \\
        python3 tests/gpu/torch_categories.py --no-profile --out traced.json
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
    ap.add_argument("--no-profile", action="store_true",
                    help="train the same steps without the profiler (the run vramtrace traces)")
    ap.add_argument("--raw-out", default=None,
                    help="also keep the profiler's raw timeline (gzipped JSON) here, for a closer look")
    ap.add_argument("--detail", nargs=2, metavar=("TORCH_RAW_GZ", "VRAMTRACE_CSV_GZ"),
                    help="count and size the tensors each side holds at its peak, per category: the "
                         "--raw-out timeline against `vramtrace export --format csv` (gzipped) of the traced run")
    ap.add_argument("--compare", nargs=2, metavar=("TORCH_JSON", "VRAMTRACE_JSON"),
                    help="compare this script's output with `vramtrace report --json` of the same run")
    return ap.parse_args()


def profiled_peak(args, prof_steps):
    """Runs the steps under torch.profiler; returns (peak bytes, its time in us, bytes per
    PyTorch category at that moment) from the profiler's raw memory timeline."""
    import torch
    from torch.profiler import ProfilerActivity, profile
    from torch.profiler import _memory_profiler as mp

    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], profile_memory=True,
                 record_shapes=True, with_stack=True) as prof:
        prof_steps()
        torch.cuda.synchronize()

    # The raw timeline: (time_us, action, signed bytes, category index) per event.
    with tempfile.TemporaryDirectory() as d:
        raw = os.path.join(d, "mem.raw.json.gz")
        prof.export_memory_timeline(raw, device="cuda:0")
        with gzip.open(raw, "rt") as f:
            events = json.load(f)
        if args.raw_out:
            import shutil
            shutil.copyfile(raw, args.raw_out)
    destroy = mp._ACTION_TO_INDEX[mp.Action.DESTROY]
    if not any(e[1] == destroy for e in events):
        print("torch_categories.py: the profiler saw no tensor freed: it gets allocation events "
              "only from the native allocator (PYTORCH_CUDA_ALLOC_CONF=backend:native)", file=sys.stderr)
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
    return best, best_t, at_peak


def train(args):
    import torch
    from transformers import BertConfig, BertForSequenceClassification

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

    if args.no_profile:
        for _ in range(args.steps):
            step()
        torch.cuda.synchronize()
        best, best_t, at_peak = None, None, {}
    else:
        best, best_t, at_peak = profiled_peak(args, prof_steps=lambda: [step() for _ in range(args.steps)])
    vt = {c: 0 for c in VT_CATS}
    for name, b in at_peak.items():
        vt[TORCH_TO_VT.get(name, "other")] += b
    # The anchors that need no profiler: what the model and the optimizer hold.
    param_bytes = sum(p.numel() * p.element_size() for p in model.parameters())
    opt_bytes = sum(v.numel() * v.element_size() for st in opt.state.values()
                    for v in st.values() if torch.is_tensor(v) and v.is_cuda)
    return {
        "framework": "torch",
        "param_bytes": param_bytes,
        "optimizer_state_bytes": opt_bytes,
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


def compare(torch_path, vt_path, tolerance=0.05):
    """Prints both breakdowns side by side; returns how many categories that both count
    differ by more than tolerance (workspace and other are vramtrace's alone: PyTorch's
    profiler sees only tensors made by its allocator)."""
    with open(torch_path) as f:
        tj = json.load(f)
    with open(vt_path) as f:
        vj = json.load(f)
    dev = vj["devices"][0] if vj.get("devices") else vj
    got = {r["category"]: r for r in dev.get("by_category", [])}
    print("peak: torch profiler %d bytes, vramtrace %d bytes (max_memory_allocated %d)" %
          (tj["peak_bytes"], dev["peak_bytes"], tj["max_memory_allocated"]))
    print("model: parameters %d bytes, optimizer state %d bytes" %
          (tj.get("param_bytes", 0), tj.get("optimizer_state_bytes", 0)))
    print("%-16s %14s %14s %14s %8s  %s" % ("category", "torch", "vramtrace", "difference", "rel", "how"))
    bad = 0
    rows = {}
    for c in VT_CATS:
        t = tj["at_peak"].get(c, 0)
        r = got.get(c, {})
        v = r.get("bytes", 0)
        rel = (v - t) / t if t else None
        mark = ""
        if c not in ("workspace", "other") and max(t, v) >= (1 << 20):
            ok = rel is not None and abs(rel) <= tolerance
            mark = "ok" if ok else "OFF"
            bad += not ok
        rows[c] = {"torch": t, "vramtrace": v, "how": r.get("how")}
        print("%-16s %14d %14d %+14d %8s  %-9s %s" % (c, t, v, v - t, "%+.1f%%" % (100 * rel) if rel is not None else "-",
                                                      r.get("how") or "-", mark))
    info = dev.get("categories", {})
    print("vramtrace mode: %s; by rule sections: %s" % (info.get("mode"), ", ".join(
        "%s/%s=%d" % (x.get("rules"), x["category"], x["bytes"]) for x in info.get("by_rule", []))))
    print(json.dumps({"compare": tj.get("precision"), "off": bad, "rows": rows,
                      "torch_peak": tj["peak_bytes"], "vramtrace_peak": dev["peak_bytes"]}))
    return bad


def detail(raw_path, csv_path):
    """Live tensors at each side's own peak: count and bytes per category, and the sizes
    (rounded up to 512 bytes, PyTorch's smallest block) where the two disagree. The
    profiler counts the caching allocator's block sizes; vramtrace, per tensor, the exact
    size asked: the counts show whether a byte difference is rounding or a label."""
    import collections
    import csv
    from torch.profiler import _memory_profiler as mp

    names = {i: (c.name if c is not None else None) for c, i in mp._CATEGORY_TO_INDEX.items()}
    with gzip.open(raw_path, "rt") as f:
        events = json.load(f)
    live, total, best, at_t = collections.Counter(), 0, 0, collections.Counter()
    for _t, _a, nbytes, ci in sorted(events, key=lambda e: e[0]):
        live[(abs(nbytes), TORCH_TO_VT.get(names.get(ci), "other"))] += 1 if nbytes > 0 else -1
        total += nbytes
        if total > best:
            best, at_t = total, +live
    live_v, cur, best_v, at_v = {}, 0, 0, {}
    with gzip.open(csv_path, "rt") as f:
        for r in csv.DictReader(f):
            if r["device"] != "0" or r["kind"].startswith("cuMemHost"):
                continue
            if r["event"] == "alloc":
                live_v[r["address"]] = (int(r["size"]), r["category"])
                cur += int(r["size"])
            elif r["event"] == "free" and r["address"] in live_v:
                cur -= live_v.pop(r["address"])[0]
            if cur > best_v:
                best_v, at_v = cur, dict(live_v)
    v = collections.Counter(at_v.values())
    print("live at each side's peak: torch profiler %d bytes, vramtrace %d bytes" % (best, best_v))
    print("%-16s %8s %8s %14s %14s" % ("category", "n torch", "n vt", "bytes torch", "bytes vt"))
    for c in VT_CATS:
        nt = sum(n for (sz, k), n in at_t.items() if k == c)
        nv = sum(n for (sz, k), n in v.items() if k == c)
        print("%-16s %8d %8d %14d %14d" % (c, nt, nv, sum(sz * n for (sz, k), n in at_t.items() if k == c),
                                           sum(sz * n for (sz, k), n in v.items() if k == c)))
    r512 = lambda x: max(512, (x + 511) // 512 * 512)
    by_t, by_v = collections.defaultdict(collections.Counter), collections.defaultdict(collections.Counter)
    for (sz, k), n in at_t.items():
        by_t[r512(sz)][k] += n
    for (sz, k), n in v.items():
        by_v[r512(sz)][k] += n
    print("sizes where the two differ (bytes: torch's categories | vramtrace's):")
    for sz in sorted(set(by_t) | set(by_v), reverse=True):
        if +by_t[sz] != +by_v[sz]:
            print("  %12d  %s | %s" % (sz, dict(+by_t[sz]), dict(+by_v[sz])))
    return 0


def main():
    args = parse_args()
    if args.detail:
        return detail(*args.detail)
    if args.compare:
        return 1 if compare(*args.compare) else 0
    out = train(args)
    text = json.dumps(out, indent=2)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    print(text, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
