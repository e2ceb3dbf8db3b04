#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Training step time of BERT-base, for the "GPU: training step time" benchmark
(docs/benchmarks.md): the same script runs untraced, under `vramtrace run`, and under
PyTorch's own recorder (--record-history), once per allocator backend.

    PYTORCH_CUDA_ALLOC_CONF=backend:native         python3 bench_steps.py
    PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync vramtrace run -- python3 bench_steps.py
    PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True python3 bench_steps.py --record-history python

The model is HF BertForSequenceClassification(BertConfig()) built from the config (no
download), trained on random token ids with AdamW, fp32 unless --amp. After --warmup
steps it times --steps steps, each between two torch.cuda.synchronize() calls, and
prints one JSON line (the last line on stdout):
    {"backend": ..., "median_ms": ..., "max_reserved": ..., "max_allocated": ..., ...}
max_reserved / max_allocated are torch.cuda.max_memory_reserved() /
max_memory_allocated() over the whole run, in bytes. The allocator backend is the
caller's choice, through PYTORCH_CUDA_ALLOC_CONF; this script only reports it.
"""
import argparse
import json
import os
import statistics
import sys
import time


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=20, help="timed steps (default 20)")
    ap.add_argument("--warmup", type=int, default=5, help="untimed steps first (default 5)")
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--seq", type=int, default=128)
    ap.add_argument("--amp", nargs="?", const="bf16", choices=["bf16", "fp16"], default=None,
                    help="autocast to bf16 (default when given) or fp16 (with a GradScaler)")
    ap.add_argument("--record-history", choices=["python", "all"], default=None,
                    help="wrap warm-up and timed steps in torch.cuda.memory._record_memory_history(stacks=...)")
    ap.add_argument("--snapshot", default=None,
                    help="with --record-history: write torch.cuda.memory._dump_snapshot() here")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--ab", default=None, metavar="MODES",
                    help="comma-separated modes timed in alternating blocks of --block steps in this "
                         "one process, e.g. fp32,fp16,fp32+history,fp16+history (history: "
                         "_record_memory_history(stacks='all') on for that block; paused: under "
                         "vramtrace, recording paused for that block, vramtrace_set_recording(0)); a "
                         "process-to-process drift then hits every mode alike. Adds \"modes\" to the JSON line")
    ap.add_argument("--block", type=int, default=10, help="steps per block with --ab (default 10)")
    return ap.parse_args()


def allocator_backend(torch):
    try:
        return torch.cuda.memory.get_allocator_backend()
    except Exception:  # older PyTorch: read what the caller asked for
        conf = os.environ.get("PYTORCH_CUDA_ALLOC_CONF", "")
        for item in conf.split(","):
            k, _, v = item.partition(":")
            if k.strip() == "backend":
                return v.strip()
        return "native"


def start_history(torch, stacks):
    """Starts PyTorch's allocator history; returns an error string or None."""
    rec = torch.cuda.memory._record_memory_history
    try:
        rec(enabled="all", context="all", stacks=stacks)
        return None
    except TypeError:
        pass  # PyTorch < 2.1: the older signature has no stacks= (Python stacks only)
    except Exception as e:  # e.g. a backend that does not support it
        return f"{type(e).__name__}: {e}"
    try:
        rec(True, trace_alloc_max_entries=sys.maxsize, trace_alloc_record_context=True)
        return None if stacks == "python" else "this PyTorch records Python stacks only"
    except Exception as e:
        return f"{type(e).__name__}: {e}"


def stop_history(torch):
    try:
        torch.cuda.memory._record_memory_history(enabled=None)
    except TypeError:
        torch.cuda.memory._record_memory_history(False)


def set_recording(on):
    """vramtrace's pause switch (docs/configuration.md); fails when not under vramtrace."""
    import ctypes
    f = getattr(ctypes.CDLL(None), "vramtrace_set_recording", None)
    if f is None or f(1 if on else 0) < 0:
        raise SystemExit("bench_steps.py: +paused needs vramtrace run (vramtrace_set_recording not found)")


def sample_tagger():
    """tests/gpu/vt_sample.c's vtsample_tag when that profiler is preloaded, else a no-op."""
    import ctypes
    f = getattr(ctypes.CDLL(None), "vtsample_tag", None) if os.environ.get("VTSAMPLE_DIR") else None
    return f if f is not None else (lambda t: None)


def ab_blocks(torch, args, step):
    """Times each mode of --ab in turn, --block steps at a time, until each has had
    --steps steps; returns {mode: {"median_ms", "min_ms", "steps"}}. Under
    tests/gpu/vt_sample.c the timed steps of mode i (from 0) are tagged i + 1."""
    modes = [m.strip() for m in args.ab.split(",") if m.strip()]
    tag = sample_tagger()
    times = {m: [] for m in modes}
    for m in modes:  # one untimed step each: autocast caches, scaler, history buffers
        amp, _, flag = m.partition("+")
        if flag not in ("", "history", "paused"):
            raise SystemExit(f"bench_steps.py: unknown mode {m}")
        if flag == "history":
            start_history(torch, "all")
        if flag == "paused":
            set_recording(False)
        step(None if amp == "fp32" else amp)
        if flag == "history":
            stop_history(torch)
        if flag == "paused":
            set_recording(True)
    while any(len(v) < args.steps for v in times.values()):
        for m in modes:
            amp, _, flag = m.partition("+")
            if flag == "history":
                err = start_history(torch, "all")
                if err:
                    raise SystemExit(f"bench_steps.py: _record_memory_history failed: {err}")
            if flag == "paused":
                set_recording(False)
            for _ in range(args.block):
                torch.cuda.synchronize()
                tag(modes.index(m) + 1)
                t0 = time.perf_counter()
                step(None if amp == "fp32" else amp)
                torch.cuda.synchronize()
                times[m].append((time.perf_counter() - t0) * 1e3)
                tag(0)
            if flag == "history":
                stop_history(torch)
            if flag == "paused":
                set_recording(True)
    return {m: {"median_ms": round(statistics.median(v), 3), "min_ms": round(min(v), 3), "steps": len(v)}
            for m, v in times.items()}


def main():
    args = parse_args()
    import torch
    from transformers import BertConfig, BertForSequenceClassification

    if not torch.cuda.is_available():
        print("bench_steps.py: no CUDA device", file=sys.stderr)
        return 1
    torch.manual_seed(args.seed)
    dev = torch.device("cuda")
    cfg = BertConfig()  # bert-base: 12 layers, hidden 768, vocab 30522
    model = BertForSequenceClassification(cfg).to(dev)
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    amp_dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(args.amp)
    scaler = None
    if args.amp == "fp16" or (args.ab and "fp16" in args.ab):
        scaler = torch.amp.GradScaler("cuda") if hasattr(torch.amp, "GradScaler") else torch.cuda.amp.GradScaler()

    def step(amp=args.amp):
        amp_dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(amp)
        ids = torch.randint(0, cfg.vocab_size, (args.batch, args.seq), device=dev)
        mask = torch.ones_like(ids)
        labels = torch.randint(0, cfg.num_labels, (args.batch,), device=dev)
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=amp_dtype, enabled=amp_dtype is not None):
            loss = model(input_ids=ids, attention_mask=mask, labels=labels).loss
        if amp == "fp16":
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
        else:
            loss.backward()
            opt.step()
        return loss

    history_error = None
    if args.record_history:
        history_error = start_history(torch, args.record_history)
        if history_error:
            print(f"bench_steps.py: _record_memory_history failed: {history_error}", file=sys.stderr)

    for _ in range(args.warmup):
        step()
    torch.cuda.synchronize()
    times = []
    loss = None
    for _ in range(0 if args.ab else args.steps):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        loss = step()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - t0) * 1e3)

    modes = ab_blocks(torch, args, step) if args.ab else None

    snapshot = None
    if args.record_history and not history_error:
        if args.snapshot:
            torch.cuda.memory._dump_snapshot(args.snapshot)
            snapshot = args.snapshot
        try:
            torch.cuda.memory._record_memory_history(enabled=None)
        except TypeError:
            torch.cuda.memory._record_memory_history(False)

    preload = os.environ.get("LD_PRELOAD", "")
    out = {
        "backend": allocator_backend(torch),
        "median_ms": round(statistics.median(times), 3) if times else None,
        "max_reserved": torch.cuda.max_memory_reserved(),
        "max_allocated": torch.cuda.max_memory_allocated(),
        "mean_ms": round(statistics.fmean(times), 3) if times else None,
        "min_ms": round(min(times), 3) if times else None,
        "max_ms": round(max(times), 3) if times else None,
        "steps": args.steps,
        "warmup": args.warmup,
        "batch": args.batch,
        "seq": args.seq,
        "amp": args.amp or "fp32",
        "record_history": args.record_history,
        "record_history_error": history_error,
        "snapshot": snapshot,
        "vramtrace": "libvramtrace" in preload,
        "alloc_conf": os.environ.get("PYTORCH_CUDA_ALLOC_CONF", ""),
        "torch": torch.__version__,
        "device": torch.cuda.get_device_name(),
        "final_loss": float(loss.detach()) if loss is not None else None,
    }
    if modes is not None:
        out["modes"] = modes
    print(json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
