#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 22 on one GPU: a gloo-backend DDP job of two ranks sharing the GPU, traced per rank
# with no change to torchrun, and the per-rank report checked against each rank's own
# figures.  bash tests/gpu/ddp.sh   (the bundle in .gpu/; about 1 minute)
# ddp_train.py: an MLP (width 1024, 6 layers, AdamW, 4 steps); rank 1 takes 3x the batch.
#   pt      `vramtrace run --per-tensor -o run-%r-%p.vtrace -- torchrun --standalone
#           --nproc_per_node 2 ddp_train.py --share-gpu`: per rank, PyTorch's bytes at the
#           rank's traced peak within 1% of its torch.cuda.max_memory_allocated, the peak at
#           least that; the report's highest rank is rank 1, and the gap between the two
#           peaks within 5% of the gap between the two max_memory_allocated
#   blocks  the same job in the default mode (PyTorch's blocks): per rank, segments at the
#           peak == max_memory_reserved, weights and optimizer_state within 1% of its own
#           byte counts
# Prints PASS/FAIL lines and the per-rank report's first screen; leaves traces, reports
# (text and JSON) and each rank's rank-R.json under $OUT/ddp/. Exit 1 on a FAIL.
set -u
. "$(dirname "$0")/env.sh"
D=$OUT/ddp
rm -rf "$D"
mkdir -p "$D"
fail=0
train=$root/tests/gpu/ddp_train.py
for mode in pt blocks; do
  mkdir -p "$D/$mode"
  args=()
  [ $mode = pt ] && args=(--per-tensor)
  start=$(date +%s)
  "$VT" run "${args[@]}" -o "$D/$mode/run-%r-%p.vtrace" -- \
    $PY -m torch.distributed.run --standalone --nproc_per_node 2 "$train" --share-gpu --out "$D/$mode" \
    > "$D/$mode/job.out" 2> "$D/$mode/job.err" || { echo "FAIL $mode: the job failed"; tail -20 "$D/$mode/job.err"; fail=1; continue; }
  echo "== $mode: job took $(( $(date +%s) - start )) s; traces: $(cd "$D/$mode" && ls run-*.vtrace | tr '\n' ' ')"
  "$VT" report "$D/$mode"/run-*.vtrace > "$D/$mode/report.txt" 2> "$D/$mode/report.err" || { echo "FAIL $mode: report"; fail=1; }
  "$VT" report --json "$D/$mode"/run-*.vtrace > "$D/$mode/report.json" 2>> "$D/$mode/report.err" || { echo "FAIL $mode: report --json"; fail=1; }
  sed -n '1,/^== .*vtrace: pid/p' "$D/$mode/report.txt" | head -30
  $PY "$root/tests/gpu/ddp_check.py" "ddp-$mode" "$([ $mode = pt ] && echo per-tensor || echo blocks)" \
    "$D/$mode/report.json" "$D/$mode" || fail=1
done
# diff between the two ranks of the per-tensor job
set -- "$D"/pt/run-0-*.vtrace "$D"/pt/run-1-*.vtrace
if [ -f "$1" ] && [ -f "$2" ]; then
  "$VT" diff "$1" "$2" > "$D/pt/diff-0-1.txt" 2>&1 || { echo "FAIL diff"; fail=1; }
  head -12 "$D/pt/diff-0-1.txt"
  grep -q "(rank 1," "$D/pt/diff-0-1.txt" && echo "PASS diff names rank 1" || { echo "FAIL diff names no rank"; fail=1; }
fi
[ $fail = 0 ] && echo "ddp.sh: PASS" || echo "ddp.sh: FAIL"
exit $fail
