#!/usr/bin/env bash
# `vramtrace fit` and `forecast` against PyTorch on the GPU (docs/fit.md, issue 18).
#   bash tests/gpu/fit.sh [fit|batch|seq]...     (default: all three)
# fit:   HF BERT-base and GPT-2 (from their configs, AdamW), fp32 and bf16 autocast, two
#        steps traced per-tensor; `fit --allocator caching` vs the same program's
#        max_memory_reserved (within 2%) / max_memory_allocated (within 1%) under the
#        default allocator, `fit --allocator expandable` vs expandable_segments:True (2%).
# batch: BERT-base fp32 seq 128 traced at batches 8, 16, 24; `forecast --vary batch
#        --allocator-cap` vs a real search (in one process) of the largest batch on a grid
#        of 8 that trains 2 steps under set_per_process_memory_fraction caps of 16, 24 and
#        40 GiB: on the search's grid (the forecast rounded down to a multiple of 8), equal
#        or one grid step apart; and, in processes of their own, the forecast's batch
#        trains under each cap and the next grid step does not.
# seq:   BERT-base batch 16 traced at seq 128, 256, 384; `forecast --vary seq --at 512`
#        vs the measured max_memory_reserved (2%) / allocated (1%) at 512.
# Prints a table (check, predicted, measured, error, pass) and leaves traces, JSON and
# logs in $OUT/fit/. Needs the bundle (tests/gpu/bundle.sh). About 5 minutes for `fit`,
# as much for `batch seq`: run them as two calls. Exit 1 when a check fails.
set -uo pipefail
source "$(dirname "$0")/env.sh"
O=$OUT/fit
mkdir -p "$O"
H=$root/tests/gpu/fit_train.py
SECTIONS=${*:-fit batch seq}
T=$O/table.tsv
printf 'check\tpredicted\tmeasured\terror\tpass\n' > "$T"
# jget FILE EXPR: EXPR of the JSON in FILE (vramtrace's documents, or a helper's last line)
jget() {
  "$PY" - "$@" <<'PY'
import json, sys
t = open(sys.argv[1]).read().strip()
try:
    d = json.loads(t)
except ValueError:
    d = json.loads(t.splitlines()[-1])
print(eval(sys.argv[2], {}, {"d": d}))
PY
}
row() {  # NAME PREDICTED MEASURED TOLERANCE_PCT
  "$PY" - "$@" >> "$T" <<'PY'
import sys
name, p, m, tol = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
err = 100.0 * (p - m) / m if m else float("inf")
print(f"{name}\t{p / 2**20:.1f} MiB\t{m / 2**20:.1f} MiB\t{err:+.2f}%\t{'pass' if abs(err) <= tol else 'FAIL'}")
PY
}
run_py() {  # LOG VAR=VALUE... -- ARGS...: untraced
  local log=$1 envs=(); shift
  while [ "$1" != -- ]; do envs+=("$1"); shift; done; shift
  env "${envs[@]}" "$PY" "$H" "$@" > "$log" 2> "$log.err" || { echo "failed: $*" >&2; tail -3 "$log.err" >&2; return 1; }
}
trace() {  # OUT.vtrace ARGS...
  local t=$1; shift
  env -u PYTORCH_CUDA_ALLOC_CONF "$VT" run --per-tensor -o "$t" -- "$PY" "$H" "$@" > "$t.log" 2>&1 || { echo "traced run failed: $*" >&2; tail -3 "$t.log" >&2; return 1; }
}

for s in $SECTIONS; do case $s in
fit)
  for m in bert gpt2; do for p in fp32 bf16; do
    amp=(); [ $p = bf16 ] && amp=(--amp bf16)
    if [ $m = bert ]; then args=(--model bert --batch 32 --seq 128 "${amp[@]}"); else args=(--model gpt2 --batch 8 --seq 512 "${amp[@]}"); fi
    n=$m-$p
    run_py "$O/$n-default.json" PYTORCH_CUDA_ALLOC_CONF=backend:native -- "${args[@]}" || continue
    run_py "$O/$n-expandable.json" PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True -- "${args[@]}" || continue
    trace "$O/$n.vtrace" "${args[@]}" || continue
    "$VT" fit "$O/$n.vtrace" --allocator caching --json > "$O/$n-fit-caching.json" 2> "$O/$n-fit.err"
    "$VT" fit "$O/$n.vtrace" --allocator expandable --json > "$O/$n-fit-expandable.json" 2>> "$O/$n-fit.err"
    "$VT" fit "$O/$n.vtrace" > "$O/$n-fit.txt" 2>> "$O/$n-fit.err"
    row "$n reserved (caching)" "$(jget "$O/$n-fit-caching.json" "d['predicted_peak_bytes']")" "$(jget "$O/$n-default.json" "d['max_reserved']")" 2
    row "$n allocated (caching)" "$(jget "$O/$n-fit-caching.json" "d['predicted_allocated_peak_bytes']")" "$(jget "$O/$n-default.json" "d['max_allocated']")" 1
    row "$n reserved (expandable)" "$(jget "$O/$n-fit-expandable.json" "d['predicted_peak_bytes']")" "$(jget "$O/$n-expandable.json" "d['max_reserved']")" 2
  done; done ;;
batch)
  for b in 8 16 24; do trace "$O/batch$b.vtrace" --model bert --batch $b --seq 128; done
  "$VT" forecast --vary batch 8:"$O/batch8.vtrace" 16:"$O/batch16.vtrace" 24:"$O/batch24.vtrace" --allocator-cap \
    --memory 16GiB --memory 24GiB --memory 40GiB --json > "$O/forecast-batch.json" 2> "$O/forecast-batch.err"
  "$VT" forecast --vary batch 8:"$O/batch8.vtrace" 16:"$O/batch16.vtrace" 24:"$O/batch24.vtrace" --allocator-cap \
    --memory 16GiB --memory 24GiB --memory 40GiB > "$O/forecast-batch.txt" 2>> "$O/forecast-batch.err"
  PYTORCH_CUDA_ALLOC_CONF=backend:native "$PY" "$H" --model bert --seq 128 --search 16,24,40 --grid 8 \
    > "$O/search-batch.json" 2> "$O/search-batch.err"
  for i in 0 1 2; do
    g=
    cap=$(echo 16 24 40 | cut -d' ' -f$((i + 1)))
    pred=$(jget "$O/forecast-batch.json" "d['largest'][$i]['value']")
    real=$(jget "$O/search-batch.json" "d['search']['$cap.0']")
    # on the search's grid: the largest multiple of 8 the forecast says fits, against
    # the search's (whose true largest lies in [real, real + 7])
    ok=FAIL; [ -n "$pred" ] && [ -n "$real" ] && g=$(( pred / 8 * 8 )) && [ $(( g >= real ? g - real : real - g )) -le 8 ] && ok=pass
    printf 'largest batch at %s GiB\t%s (grid %s)\t%s\t%s\t%s\n' "$cap" "$pred" "${g:-}" "$real" "grid 8" "$ok" >> "$T"
    # the search tries its batches one after another in one process; alone, the
    # forecast's batch should train and the next grid step not
    [ -n "$g" ] || continue
    for b in $g $((g + 8)); do
      PYTORCH_CUDA_ALLOC_CONF=backend:native "$PY" "$H" --model bert --seq 128 --batch $b --cap $cap \
        > "$O/alone-$cap-$b.json" 2> "$O/alone-$cap-$b.err"
    done
    a=$(jget "$O/alone-$cap-$g.json" "d['fits']") n=$(jget "$O/alone-$cap-$((g + 8)).json" "d['fits']")
    ok=FAIL; [ "$a" = True ] && [ "$n" = False ] && ok=pass
    printf 'alone at %s GiB: %s trains, %s does not\t%s\t%s/%s\t\t%s\n' "$cap" "$g" "$((g + 8))" "$g" "$a" "$n" "$ok" >> "$T"
  done ;;
seq)
  for q in 128 256 384; do trace "$O/seq$q.vtrace" --model bert --batch 16 --seq $q; done
  "$VT" forecast --vary seq 128:"$O/seq128.vtrace" 256:"$O/seq256.vtrace" 384:"$O/seq384.vtrace" --at 512 --json \
    > "$O/forecast-seq.json" 2> "$O/forecast-seq.err"
  "$VT" forecast --vary seq 128:"$O/seq128.vtrace" 256:"$O/seq256.vtrace" 384:"$O/seq384.vtrace" --at 512 \
    > "$O/forecast-seq.txt" 2>> "$O/forecast-seq.err"
  run_py "$O/seq512-default.json" PYTORCH_CUDA_ALLOC_CONF=backend:native -- --model bert --batch 16 --seq 512
  row "bert seq 512 reserved (forecast)" "$(jget "$O/forecast-seq.json" "d['values'][3]['predicted_peak_bytes']")" "$(jget "$O/seq512-default.json" "d['max_reserved']")" 2
  row "bert seq 512 allocated (forecast)" "$(jget "$O/forecast-seq.json" "d['values'][3]['predicted_allocated_peak_bytes']")" "$(jget "$O/seq512-default.json" "d['max_allocated']")" 1 ;;
*) echo "fit.sh: unknown section $s (fit, batch, seq)" >&2; exit 2 ;;
esac; done
{ column -t -s $'\t' "$T" 2>/dev/null || cat "$T"; } | tee "$O/table.txt"
! grep -q 'FAIL' "$T"
