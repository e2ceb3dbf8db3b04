#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks `vramtrace report --json` over the ranks of one ddp_train.py job against each
rank's own figures (its rank-R.json), for tests/gpu/ddp.sh and multigpu.sh. Prints one
line per check, "PASS name: got ... want ..." or "FAIL ...", and exits 1 on a FAIL.

  ddp_check.py NAME MODE REPORT.json RANKS_DIR [--fsdp-vs DDP_REPORT.json --ddp-ranks DIR]
MODE per-tensor: at each rank's peak the PyTorch allocator's bytes (cuMemAllocAsync)
  within 1% of its max_memory_allocated, and the rank's peak at least that (the rest:
  cuBLAS, NCCL, the context's allocations); the highest rank is the one whose
  max_memory_allocated is highest, and the gap between the highest and the lowest peak
  within 5% of the gap between their max_memory_allocated.
MODE blocks: each rank's segments at its peak (PyTorch's blocks + idle) equal its
  max_memory_reserved; weights and optimizer_state within 1% of its own byte counts."""
import glob
import json
import os
import sys

fails = 0


def check(ok, what):
    global fails
    print(("PASS " if ok else "FAIL ") + what)
    fails += 0 if ok else 1


def rows(lst, key):
    return {r[key]: r["bytes"] for r in lst or []}


def load(report, ranks_dir):
    rep = json.load(open(report))
    own = {}
    for f in glob.glob(os.path.join(ranks_dir, "rank-*.json")):
        r = json.load(open(f))
        own[r["rank"]] = r
    return rep, own


def per_rank(rep):
    """rank -> (ranks.list entry, the trace's device object at that rank's peak)."""
    out = {}
    for e in rep["ranks"]["list"]:
        tr = rep["traces"][e["trace"]]
        dev = [d for d in tr["devices"] if d["device"] == e["device"]][0]
        out[e["rank"]] = (e, dev)
    return out


def main():
    name, mode, report, ranks_dir = sys.argv[1:5]
    rep, own = load(report, ranks_dir)
    check(rep.get("ranks") is not None, "%s: report has a ranks table" % name)
    if rep.get("ranks") is None:
        return 1
    got = per_rank(rep)
    check(sorted(got) == sorted(own), "%s: ranks in the report %s == ranks that ran %s" % (name, sorted(got), sorted(own)))
    for rank in sorted(own):
        if rank not in got:
            continue
        e, dev = got[rank]
        o = own[rank]
        kinds = rows(dev["by_kind"], "kind")
        cats = e["by_category"]
        print("     %s rank %d: peak %d, by category %s, top site %s" % (
            name, rank, e["peak_bytes"], json.dumps({k: v for k, v in cats.items() if v}),
            (e["top_site"] or {}).get("op") or ((e["top_site"] or {}).get("frames") or [{}])[0].get("function")))
        if mode == "per-tensor":
            ma = o["max_allocated"]
            torch_b = kinds.get("cuMemAllocAsync", 0)
            check(abs(torch_b - ma) <= 0.01 * ma, "%s rank %d: PyTorch's bytes at the peak %d ~ max_memory_allocated %d (1%%)"
                  % (name, rank, torch_b, ma))
            check(e["peak_bytes"] >= ma, "%s rank %d: peak %d >= max_memory_allocated %d (+%d workspaces etc.)"
                  % (name, rank, e["peak_bytes"], ma, e["peak_bytes"] - ma))
        else:
            seg = kinds.get("torch_block", 0) + kinds.get("idle_in_segments", 0)
            check(dev["categories"]["mode"] == "blocks", "%s rank %d: categories mode %s == blocks"
                  % (name, rank, dev["categories"]["mode"]))
            check(seg == o["max_reserved"], "%s rank %d: segments at the peak %d == max_memory_reserved %d"
                  % (name, rank, seg, o["max_reserved"]))
            for cat, key in (("weights", "param_bytes"), ("optimizer_state", "opt_bytes")):
                want = o[key]
                check(abs(cats.get(cat, 0) - want) <= 0.01 * want, "%s rank %d: %s %d ~ %s %d (1%%)"
                      % (name, rank, cat, cats.get(cat, 0), key, want))
    if len(own) >= 2 and mode == "per-tensor":
        want_hi = max(own, key=lambda r: own[r]["max_allocated"])
        want_lo = min(own, key=lambda r: own[r]["max_allocated"])
        sk = rep["ranks"]["skew"]
        check(sk["highest"]["rank"] == want_hi, "%s: highest rank %d == the rank with the most max_memory_allocated %d"
              % (name, sk["highest"]["rank"], want_hi))
        # the gap, not the ratio: the workspaces outside PyTorch's allocator are on both sides
        want_gap = own[want_hi]["max_allocated"] - own[want_lo]["max_allocated"]
        gap = sk["highest"]["peak_bytes"] - sk["lowest"]["peak_bytes"]
        check(abs(gap - want_gap) <= 0.05 * want_gap, "%s: the peaks' gap %d ~ max_memory_allocated's %d (5%%); skew %.3fx "
              "(theirs %.3fx), differs most: %s %+d" % (name, gap, want_gap, sk["ratio"] or 0,
              own[want_hi]["max_allocated"] / own[want_lo]["max_allocated"], sk["category"], sk["category_delta_bytes"]))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
