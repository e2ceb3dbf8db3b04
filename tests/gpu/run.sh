#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The checks that need a GPU, in one script for the device machine (tests/gpu/README.md).
#   bash tests/gpu/run.sh [all|probe|frameworks|steps|workloads]...
# Uses the binaries in .gpu/ (made here by tests/gpu/bundle.sh and carried), prints a
# short table at the end and leaves logs, JSON and small traces under $OUT.
set -u
. "$(dirname "$0")/env.sh"
RES=$OUT/results.tsv
: > "$RES"
row() { printf '%s\t%s\t%s\t%s\t%s\n' "$@" | tee -a "$RES"; }

# vt_peak TRACE KEY: one figure from `vramtrace report --json`.
vt_json() { "$VT" report --json "$1" 2>>"$W/report.err"; }
vt_peak() { vt_json "$1" | $PY -c 'import json,sys; d=json.load(sys.stdin); print(d.get("peak_bytes",-1))' 2>/dev/null || echo -1; }
mib() { awk -v b="$1" 'BEGIN{ if (b<0) print "n/a"; else printf "%.1f", b/1048576 }'; }
traced() { local out=$1; shift; "$VT" run --no-summary -o "$out" -- "$@"; }

# ---------------------------------------------------------------------------------
probe() {
  echo "== probe: which lookups do frameworks make, and do we wrap them?"
  for mode in default platform; do
    local env=()
    [ $mode = platform ] && env=(XLA_PYTHON_CLIENT_ALLOCATOR=platform)
    env "${env[@]}" VRAMTRACE_DEBUG=1 JAX_STEPS=3 JAX_DEPTH=2 JAX_WIDTH=1024 \
      "$VT" run --no-summary -o "$W/jax-probe-$mode.vtrace" -- $PY "$root/tests/gpu/jax_train.py" \
      > "$W/jax-probe-$mode.out" 2> "$W/jax-probe-$mode.err"
    echo "-- jax $mode: rc=$? $(tail -1 "$W/jax-probe-$mode.out")"
    grep 'vramtrace: lookup' "$W/jax-probe-$mode.err" | grep -E 'Mem|Array|GetProc' \
      | sed -E 's/ptr=0x[0-9a-f]+//' | sort | uniq -c | sort -rn | head -40
    grep -v 'vramtrace: lookup' "$W/jax-probe-$mode.err" | tail -5
    "$VT" report "$W/jax-probe-$mode.vtrace" 2>&1 | head -40
    cp "$W/jax-probe-$mode.err" "$OUT/" 2>/dev/null
  done
}

# ---------------------------------------------------------------------------------
jax() {
  for mode in default platform; do
    local env=()
    [ $mode = platform ] && env=(XLA_PYTHON_CLIENT_ALLOCATOR=platform)
    env "${env[@]}" "$VT" run --no-summary -o "$W/jax-$mode.vtrace" -- $PY "$root/tests/gpu/jax_train.py" > "$W/jax-$mode.json" 2> "$W/jax-$mode.err"
    local j; j=$(tail -1 "$W/jax-$mode.json")
    local ref key
    if [ $mode = default ]; then key=bytes_limit; else key=peak_bytes_in_use; fi
    ref=$(echo "$j" | $PY -c "import json,sys; print(json.load(sys.stdin)['$key'])" 2>/dev/null || echo -1)
    row jax "mlp $mode" "$(mib "$(vt_peak "$W/jax-$mode.vtrace")")" "$(mib "$ref")" "$key"
    echo "$j"
  done
}

frameworks() {
  echo "== frameworks: traced peak next to each framework's own figure"
  # CUDA C: the bundled workload's own bookkeeping is the reference.
  if [ -x "$B/bin/vt-bert" ]; then
    traced "$W/cuda-bert.vtrace" "$B/bin/vt-bert" --model tiny --batch 8 --seq 128 --steps 5 > "$W/cuda-bert.json" 2> "$W/cuda-bert.err"
    row cuda-c vt-bert-tiny "$(mib "$(vt_peak "$W/cuda-bert.vtrace")")" "$(mib "$($PY -c 'import json,sys; print(json.loads(open(sys.argv[1]).read().strip().splitlines()[-1]).get("peak_bytes",-1))' "$W/cuda-bert.json" 2>/dev/null || echo -1)")" "workload bookkeeping"
  fi
  for be in default expandable cudaMallocAsync; do
    local conf=""
    case $be in expandable) conf=expandable_segments:True ;; cudaMallocAsync) conf=backend:cudaMallocAsync ;; esac
    PYTORCH_CUDA_ALLOC_CONF=$conf traced "$W/torch-$be.vtrace" $PY "$root/tests/gpu/bench_steps.py" --steps 7 --warmup 2 \
      > "$W/torch-$be.json" 2> "$W/torch-$be.err"
    local j; j=$(tail -1 "$W/torch-$be.json")
    local res alc; res=$(echo "$j" | $PY -c 'import json,sys; print(json.load(sys.stdin)["max_reserved"])' 2>/dev/null || echo -1)
    alc=$(echo "$j" | $PY -c 'import json,sys; print(json.load(sys.stdin)["max_allocated"])' 2>/dev/null || echo -1)
    row torch "bert-base $be" "$(mib "$(vt_peak "$W/torch-$be.vtrace")")" "$(mib "$res")" "max_reserved (max_allocated $(mib "$alc"))"
  done
  jax
  traced "$W/cupy.vtrace" $PY "$root/tests/gpu/cupy_alloc.py" > "$W/cupy.json" 2> "$W/cupy.err"
  local ref; ref=$(tail -1 "$W/cupy.json" | $PY -c 'import json,sys; print(json.load(sys.stdin)["pool_peak_total_bytes"])' 2>/dev/null || echo -1)
  row cupy matmuls "$(mib "$(vt_peak "$W/cupy.vtrace")")" "$(mib "$ref")" "pool total_bytes"
  for f in "$W"/*.err; do [ -s "$f" ] && { echo "--- $f"; tail -3 "$f"; }; done
}

# ---------------------------------------------------------------------------------
steps() {
  echo "== steps: training step time, traced vs untraced (median of 20)"
  for be in default cudaMallocAsync; do
    local conf=""; [ $be = cudaMallocAsync ] && conf=backend:cudaMallocAsync
    local u t
    u=$(PYTORCH_CUDA_ALLOC_CONF=$conf $PY "$root/tests/gpu/bench_steps.py" 2>/dev/null | tail -1)
    t=$(PYTORCH_CUDA_ALLOC_CONF=$conf traced "$W/steps-$be.vtrace" $PY "$root/tests/gpu/bench_steps.py" 2>/dev/null | tail -1)
    echo "untraced $be: $u"; echo "traced   $be: $t"
    local mu mt
    mu=$(echo "$u" | $PY -c 'import json,sys; print(json.load(sys.stdin)["median_ms"])' 2>/dev/null || echo -1)
    mt=$(echo "$t" | $PY -c 'import json,sys; print(json.load(sys.stdin)["median_ms"])' 2>/dev/null || echo -1)
    row steps "$be" "$mt" "$mu" "ms traced vs untraced ($(awk -v a="$mt" -v b="$mu" 'BEGIN{ if (b>0) printf "%+.1f%%", (a/b-1)*100; else print "n/a"}'))"
  done
}

# ---------------------------------------------------------------------------------
workloads() {
  echo "== workloads"
  [ -x "$B/bin/vt-bert" ] || { echo "no vt-bert"; return; }
  if [ -f "$root/workloads/gpu_checks.sh" ]; then bash "$root/workloads/gpu_checks.sh" "$B" "$VT" "$W" "$RES"; fi
}

findings() {
  echo "== findings: vt-bert matrix, traced, next to --plan"
  [ -x "$B/bin/vt-bert" ] && bash "$root/tests/gpu/findings.sh" "$B/bin" "$VT" "$W"
}

edge() {
  echo "== edge: the small workloads traced, next to their own figures"
  for w in vt-leak vt-frag vt-oom vt-threads vt-vmm "vt-vmm --via entry-point" vt-async vt-pinned; do
    local tag=${w// /_}
    traced "$W/edge-$tag.vtrace" $B/bin/$w > "$W/edge-$tag.json" 2> "$W/edge-$tag.err"
    local rc=$?
    local ref; ref=$(tail -1 "$W/edge-$tag.json" | $PY -c 'import json,sys; print(json.load(sys.stdin).get("peak_bytes",-1))' 2>/dev/null || echo -1)
    row edge "$w (rc $rc)" "$(mib "$(vt_peak "$W/edge-$tag.vtrace")")" "$(mib "$ref")" "workload's own peak"
  done
  "$VT" report "$W/edge-vt-oom.vtrace" 2>&1 | grep -iA4 "out of memory" | head -12
  "$VT" report "$W/edge-vt-pinned.vtrace" 2>&1 | grep -i "pinned\|host" | head -5
}

pack() {
  # Small real traces come back for tests/data and the README picture.
  (cd "$W" && ls -S *.vtrace 2>/dev/null | tac | head -60 | tar -cf "$OUT/traces.tar" -T - 2>/dev/null)
  (cd "$W" && tar -czf "$OUT/logs.tgz" *.err *.json *.out 2>/dev/null)
}

sections=("$@"); [ ${#sections[@]} -eq 0 ] && sections=(all)
for s in "${sections[@]}"; do
  case $s in
    all) frameworks; findings; steps; workloads; probe ;;
    probe|frameworks|steps|workloads|findings|edge|pack|jax) $s ;;
    *) echo "run.sh: unknown section $s" >&2; exit 2 ;;
  esac
done
pack
echo
echo "== summary (what, case, traced, reference, reference is)"
column -t -s $'\t' "$RES" 2>/dev/null || cat "$RES"
