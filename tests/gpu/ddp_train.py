#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A data-parallel job whose ranks differ on purpose, for tests/gpu/ddp.sh and multigpu.sh.

Run under torchrun (RANK, LOCAL_RANK, WORLD_SIZE set). Each rank trains a model with
AdamW for a few steps and writes $OUT_DIR/rank-R.json: its own figures
(torch.cuda.max_memory_allocated / max_memory_reserved, the parameters', gradients' and
AdamW state's bytes on this rank, the batch). Rank 1 takes a bigger batch, so its
activations, and its peak, are larger: the skew the per-rank report must find.

  --model mlp     an MLP (width 1024, 6 layers); --backend gloo; the ranks may share a GPU
  --model gpt2    HF GPT-2 from its config (no download); --backend nccl, one GPU per rank
  --wrap ddp|fsdp DistributedDataParallel, or FSDP2's fully_shard on each block and the model
"""
import argparse
import json
import os
import statistics
import time

import torch
import torch.distributed as dist


def build(kind):
    if kind == "mlp":
        layers = []
        for _ in range(6):
            layers += [torch.nn.Linear(1024, 1024), torch.nn.ReLU()]
        return torch.nn.Sequential(*layers), None
    from transformers import GPT2Config, GPT2LMHeadModel
    cfg = GPT2Config(n_positions=256)
    return GPT2LMHeadModel(cfg), cfg


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="mlp", choices=["mlp", "gpt2"])
    ap.add_argument("--backend", default="gloo")
    ap.add_argument("--wrap", default="ddp", choices=["ddp", "fsdp"])
    ap.add_argument("--batch", type=int, default=0, help="rank 0's batch; rank 1 takes 3x")
    ap.add_argument("--steps", type=int, default=4)
    ap.add_argument("--share-gpu", action="store_true", help="every rank on cuda:0")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()

    rank = int(os.environ["RANK"])
    local = int(os.environ.get("LOCAL_RANK", "0"))
    dev = torch.device("cuda", 0 if a.share_gpu else local)
    torch.cuda.set_device(dev)
    dist.init_process_group(a.backend)
    torch.manual_seed(0)
    model, cfg = build(a.model)
    model = model.to(dev)
    param_bytes_full = sum(p.numel() * p.element_size() for p in model.parameters())
    if a.wrap == "ddp":
        from torch.nn.parallel import DistributedDataParallel
        model = DistributedDataParallel(model, device_ids=[dev.index])
    else:
        from torch.distributed.fsdp import fully_shard
        for block in model.transformer.h:
            fully_shard(block)
        fully_shard(model)
    # the parameters this rank holds (FSDP: its shards)
    local_params = [p.to_local() if hasattr(p, "to_local") else p for p in model.parameters()]
    param_bytes = sum(p.numel() * p.element_size() for p in local_params)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    base = a.batch or (4096 if a.model == "mlp" else 4)
    batch = base * 3 if rank == 1 else base
    times = []
    for _ in range(a.steps):
        torch.cuda.synchronize(dev)
        t0 = time.perf_counter()
        if a.model == "mlp":
            x = torch.randn(batch, 1024, device=dev)
            loss = model(x).square().mean()
        else:
            ids = torch.randint(0, cfg.vocab_size, (batch, 256), device=dev)
            loss = model(input_ids=ids, labels=ids).loss
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=False)
        torch.cuda.synchronize(dev)
        times.append(time.perf_counter() - t0)
    torch.cuda.synchronize(dev)
    grads = [p.grad for p in model.parameters() if p.grad is not None]
    grads = [g.to_local() if hasattr(g, "to_local") else g for g in grads]
    opt_bytes = 0
    for st in opt.state.values():
        for v in st.values():
            if torch.is_tensor(v) and v.is_cuda:
                v = v.to_local() if hasattr(v, "to_local") else v
                opt_bytes += v.numel() * v.element_size()
    rec = {
        "rank": rank, "local_rank": local, "world": dist.get_world_size(), "pid": os.getpid(),
        "device": dev.index, "model": a.model, "wrap": a.wrap, "batch": batch,
        "max_allocated": torch.cuda.max_memory_allocated(dev),
        "max_reserved": torch.cuda.max_memory_reserved(dev),
        "param_bytes": param_bytes, "param_bytes_full": param_bytes_full,
        "step_ms": 1000 * statistics.median(times[1:] or times),
        "grad_bytes": sum(g.numel() * g.element_size() for g in grads), "opt_bytes": opt_bytes,
    }
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "rank-%d.json" % rank), "w") as f:
        json.dump(rec, f)
    print(json.dumps(rec), flush=True)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
