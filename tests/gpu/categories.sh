#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Category accuracy on the GPU machine (docs/categories.md, "PyTorch" and "JAX").
#   bash tests/gpu/categories.sh [torch|jax|all]...
# Uses the bundle in .gpu/ (tests/gpu/bundle.sh) and the machine's python3 with torch,
# transformers and jax. Leaves JSON, text reports, per-event CSVs and the traces in $OUT.
#   torch  HF BERT-base, AdamW, batch 16, seq 128, 4 steps, fp32, AMP fp16 (GradScaler)
#          and bf16: once untraced under torch.profiler (profile_memory) on the native
#          allocator, once under `vramtrace run --per-tensor` (no profiler);
#          torch_categories.py --compare, with the default rules and with lifetimes
#          alone (--no-default-rules)
#   jax    jax_train.py under XLA_PYTHON_CLIENT_ALLOCATOR=platform: jax_categories.py
#          (the two sets of parameters + Adam moments at the peak)
set -u
. "$(dirname "$0")/env.sh"
fail=0

# keep NAME TRACE: what a closer look needs afterwards, without the GPU machine's libraries
keep() {
  "$VT" report --top 15 "$2" > "$OUT/$1-report.txt" 2>&1
  "$VT" export --format csv "$2" 2>/dev/null | gzip > "$OUT/$1-events.csv.gz"
  cp "$2" "$OUT/"
}

# PyTorch's profiler sees allocations only through the native caching allocator's
# reports: under cudaMallocAsync (what --per-tensor selects) its raw timeline has no
# CREATE or DESTROY event, every tensor is "pre-existing" and never freed (measured
# 2026-11-29: a 7.0 GB "peak" for 2.69 GB allocated). So the reference is the same
# script, untraced, on the native allocator; vramtrace traces it per tensor.
torch_cats() {
  for p in fp32 fp16 bf16; do
    local a=(); [ $p != fp32 ] && a=(--amp $p)
    echo "== categories: PyTorch BERT-base $p"
    PYTORCH_CUDA_ALLOC_CONF=backend:native $PY "$root/tests/gpu/torch_categories.py" "${a[@]}" \
      --out "$OUT/torch-cat-$p.json" --raw-out "$OUT/torch-cat-$p-raw.json.gz" > /dev/null 2> "$W/torch-ref-$p.err" \
      || { echo "FAIL: torch_categories.py $p (native, untraced)"; tail -20 "$W/torch-ref-$p.err"; fail=1; continue; }
    "$VT" run --per-tensor --no-summary -o "$W/torch-cat-$p.vtrace" -- \
      $PY "$root/tests/gpu/torch_categories.py" "${a[@]}" --no-profile --out "$OUT/torch-cat-$p-traced.json" \
      > "$W/torch-cat-$p.out" 2> "$W/torch-cat-$p.err" \
      || { echo "FAIL: torch_categories.py $p (traced)"; tail -20 "$W/torch-cat-$p.err"; fail=1; continue; }
    "$VT" report --json --top 60 "$W/torch-cat-$p.vtrace" > "$OUT/vt-cat-$p.json" 2> "$W/vt-cat-$p.err"
    "$VT" report --json --top 60 --no-default-rules "$W/torch-cat-$p.vtrace" > "$OUT/vt-cat-$p-lifetimes.json" 2>/dev/null
    keep "torch-cat-$p" "$W/torch-cat-$p.vtrace"
    $PY "$root/tests/gpu/torch_categories.py" --compare "$OUT/torch-cat-$p.json" "$OUT/vt-cat-$p.json" \
      | tee "$OUT/compare-$p.txt" || fail=1
    $PY "$root/tests/gpu/torch_categories.py" --detail "$OUT/torch-cat-$p-raw.json.gz" "$OUT/torch-cat-$p-events.csv.gz" \
      | tee "$OUT/detail-$p.txt"
    echo "-- lifetimes alone:"
    $PY "$root/tests/gpu/torch_categories.py" --compare "$OUT/torch-cat-$p.json" "$OUT/vt-cat-$p-lifetimes.json" \
      | tee "$OUT/compare-$p-lifetimes.txt"
  done
}

jax_cats() {
  echo "== categories: JAX MLP + Adam, platform allocator"
  XLA_PYTHON_CLIENT_ALLOCATOR=platform "$VT" run --no-summary -o "$W/jax-cat.vtrace" -- \
    $PY "$root/tests/gpu/jax_train.py" > "$OUT/jax-cat.json" 2> "$W/jax-cat.err" \
    || { echo "FAIL: jax_train.py"; tail -20 "$W/jax-cat.err"; fail=1; return; }
  "$VT" report --json --top 20 "$W/jax-cat.vtrace" > "$OUT/vt-jax-cat.json" 2>/dev/null
  keep jax-cat "$W/jax-cat.vtrace"
  $PY "$root/tests/gpu/jax_categories.py" "$OUT/jax-cat.json" "$OUT/vt-jax-cat.json" | tee "$OUT/compare-jax.txt" || fail=1
}

sections=("$@"); [ ${#sections[@]} -eq 0 ] && sections=(all)
for s in "${sections[@]}"; do
  case $s in
  torch) torch_cats ;;
  jax) jax_cats ;;
  all) torch_cats; jax_cats ;;
  *) echo "unknown section $s"; exit 2 ;;
  esac
done
[ $fail = 0 ] && echo "categories: all checks passed" || echo "categories: some checks FAILED"
exit $fail
