#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 22 on two GPUs (the nvidia-h200-x2 machine): NCCL DDP and FSDP2 (fully_shard) on HF
# GPT-2 built from its config, two ranks, one GPU each, AdamW, 10 steps; rank 1 takes 3x the
# batch.  bash tests/gpu/multigpu.sh   (the bundle in .gpu/; about 3 minutes)
# NVLink multicast stays off (NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
# NVSHMEM_DISABLE_NVLS=1: the device README says why). Checks (PASS/FAIL lines):
#   ddp, fsdp  (`vramtrace run --per-tensor -o run-%r-%p.vtrace -- torchrun ...`) per rank:
#              PyTorch's bytes at the rank's peak within 1% of its max_memory_allocated, the
#              peak at least that; highest rank 1, the peaks' gap within 5% of max_memory_allocated's;
#              NCCL's bytes named: communication > 0 at each rank's peak or end
#   shards     FSDP's weights and optimizer_state at each rank's peak 0.4..0.65 of DDP's
#              (about half: two shards)
#   overhead   median step time traced / untraced (DDP, rank 0) at most 1.10
# Leaves traces, reports and the ranks' rank-R.json under $OUT/multigpu/.
set -u
. "$(dirname "$0")/env.sh"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
M=$OUT/multigpu
rm -rf "$M"
mkdir -p "$M"
fail=0
train=$root/tests/gpu/ddp_train.py
job() { # DIR WRAP [vramtrace run args, or "untraced"]
  local dir=$1 wrap=$2; shift 2
  mkdir -p "$dir"
  local launch=($PY -m torch.distributed.run --standalone --nproc_per_node 2 "$train" --model gpt2
                --backend nccl --wrap "$wrap" --steps 10 --out "$dir")
  if [ "${1:-}" = untraced ]; then PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync "${launch[@]}" > "$dir/job.out" 2> "$dir/job.err"
  else "$VT" run "$@" -o "$dir/run-%r-%p.vtrace" -- "${launch[@]}" > "$dir/job.out" 2> "$dir/job.err"; fi
}
nvidia-smi -L 2>/dev/null
for wrap in ddp fsdp; do
  d=$M/$wrap
  start=$(date +%s)
  job "$d" $wrap --per-tensor || { echo "FAIL $wrap: the job failed"; tail -20 "$d/job.err"; fail=1; continue; }
  echo "== $wrap: $(( $(date +%s) - start )) s; traces: $(cd "$d" && ls run-*.vtrace | tr '\n' ' ')"
  "$VT" report "$d"/run-*.vtrace > "$d/report.txt" 2> "$d/report.err" || { echo "FAIL $wrap: report"; fail=1; }
  "$VT" report --json "$d"/run-*.vtrace > "$d/report.json" 2>> "$d/report.err" || { echo "FAIL $wrap: report --json"; fail=1; }
  sed -n '1,/^== .*vtrace: pid/p' "$d/report.txt" | head -30
  $PY "$root/tests/gpu/ddp_check.py" "$wrap" per-tensor "$d/report.json" "$d" || fail=1
done
$PY - "$M" <<'PY' || fail=1
import json, sys
M = sys.argv[1]
bad = 0
def say(ok, what):
    global bad
    print(("PASS " if ok else "FAIL ") + what)
    bad += not ok
rep = {}
for w in ("ddp", "fsdp"):
    try:
        rep[w] = json.load(open("%s/%s/report.json" % (M, w)))
    except Exception as e:
        say(False, "%s: no report (%s)" % (w, e))
for w, r in rep.items():
    for t in r["traces"]:
        comm = 0
        for d in t["devices"]:
            for key in ("by_category", "by_category_at_end"):
                comm = max(comm, sum(c["bytes"] for c in d[key] if c["category"] == "communication"))
        say(comm > 0, "%s rank %d: NCCL's bytes named: communication %d" % (w, t["rank"], comm))
if len(rep) == 2:
    by = {w: {e["rank"]: e["by_category"] for e in rep[w]["ranks"]["list"]} for w in rep}
    for rank in sorted(by["ddp"]):
        for cat in ("weights", "optimizer_state"):
            d, f = by["ddp"][rank][cat], by["fsdp"].get(rank, {}).get(cat, 0)
            ratio = f / d if d else 0
            say(0.4 <= ratio <= 0.65, "rank %d: FSDP %s %d / DDP's %d = %.3f (about half)" % (rank, cat, f, d, ratio))
sys.exit(1 if bad else 0)
PY
# overhead: the DDP job untraced, against the traced run's step times
job "$M/untraced" ddp untraced || { echo "FAIL untraced job"; tail -5 "$M/untraced/job.err"; fail=1; }
$PY - "$M" <<'PY' || fail=1
import json, sys
M = sys.argv[1]
t = json.load(open(M + "/ddp/rank-0.json"))["step_ms"]
u = json.load(open(M + "/untraced/rank-0.json"))["step_ms"]
ok = t <= 1.10 * u
print("%s overhead: DDP rank 0 median step %.2f ms traced (--per-tensor), %.2f ms untraced: %+.1f%%"
      % ("PASS" if ok else "FAIL", t, u, 100 * (t / u - 1)))
sys.exit(0 if ok else 1)
PY
[ $fail = 0 ] && echo "multigpu.sh: PASS" || echo "multigpu.sh: FAIL"
exit $fail
