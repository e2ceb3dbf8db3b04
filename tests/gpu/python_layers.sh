#!/usr/bin/env bash
# Python frames, --torch-modules and `top --by layer` on the GPU machine (docs/python.md).
#   bash tests/gpu/python_layers.sh [vtbert|frames|layers|overhead|all]...
# Uses the bundle in .gpu/ (tests/gpu/bundle.sh; lib/vramtrace_py must be in it), the
# machine's python3 with torch and transformers. Leaves logs, JSON and traces under $OUT.
#   vtbert    the bundled CUDA C workload (NVTX ranges per layer and sub-block, no
#             Python): `top --by layer` names layer.N.attention / layer.N.ffn
#   frames    py_frames_gpu.py: Python functions named in `top --by layer`, frames spliced
#             between native ones in `report --json`, on the machine's python3
#   layers    HF BERT-base (eager attention) trained 2 steps at seq 512 and 128, batch 8,
#             under --per-tensor --torch-modules, fp32 and bf16: check_layers.py top (the
#             attention blocks hold the most at the peak) and growth (quadratic in
#             attention.self, linear in intermediate); diff by layer printed
#   overhead  bench_steps.py (BERT-base, batch 16, seq 128, 20 timed steps) median step
#             time, RUNS times each (default 3, interleaved), AMPS (default "fp32 fp16";
#             fp16 is AMP with a GradScaler, as ../shared/FACTS.md measured):
#             untraced cudaMallocAsync | vramtrace --per-tensor (Python frames on) |
#             the same with VRAMTRACE_PYTHON=0 | --per-tensor --torch-modules |
#             untraced native | native + _record_memory_history(stacks="all")
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
B=${VT_GPU_BUILD:-$root/.gpu}
VT=$B/bin/vramtrace
export OUT=${OUT:-/tmp/vt-out}
W=${VT_GPU_WORK:-/tmp/vt-gpu}
mkdir -p "$OUT" "$W"
PY=${PYTHON:-python3}
RUNS=${RUNS:-3}
export PYTHONUNBUFFERED=1
fail=0

frames() {
  echo "== frames: $($PY --version 2>&1), torch $($PY -c 'import torch; print(torch.__version__)' 2>&1)"
  "$VT" run --per-tensor --no-summary -o "$W/pyframes.vtrace" -- $PY "$root/tests/gpu/py_frames_gpu.py" \
    > "$W/pyframes.out" 2> "$W/pyframes.err" || { echo "FAIL: py_frames_gpu.py"; cat "$W/pyframes.err"; fail=1; return; }
  "$VT" top --by layer --at end "$W/pyframes.vtrace" | tee "$OUT/pyframes-top.txt"
  "$VT" report --json --top 100 "$W/pyframes.vtrace" > "$OUT/pyframes-report.json"
  $PY - "$OUT/pyframes-report.json" <<'PYEOF' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
names, spliced = set(), 0
for t in d["traces"]:
    for dev in t["devices"]:
        for s in dev["sites"]:
            fr = s["frames"]
            kinds = [f["kind"] for f in fr]
            names |= {f["function"] for f in fr if f["kind"] == "python"}
            if "python" in kinds:
                i, j = kinds.index("python"), len(kinds) - 1 - kinds[::-1].index("python")
                if i > 0 and j < len(kinds) - 1 and kinds[0] == "native" and kinds[-1] == "native":
                    spliced += 1
need = {"make_activation", "forward_like", "in_thread", "main", "<module>"}
print("python functions seen:", sorted(names & need), "sites with spliced frames:", spliced)
ok = need <= names and spliced > 0
print("frames:", "ok" if ok else "FAIL (missing %s)" % sorted(need - names))
sys.exit(0 if ok else 1)
PYEOF
}

vtbert() {
  echo "== vtbert: NVTX ranges of vt-bert as layers"
  [ -x "$B/bin/vt-bert" ] || { echo "no vt-bert in $B/bin"; return; }
  "$VT" run --no-summary -o "$W/vtbert-nvtx.vtrace" -- "$B/bin/vt-bert" --model base --seq 512 --batch 8 --steps 2 --quiet \
    > "$W/vtbert-nvtx.out" 2> "$W/vtbert-nvtx.err" || { echo "FAIL: vt-bert"; tail "$W/vtbert-nvtx.err"; fail=1; return; }
  "$VT" top --by layer --top 15 "$W/vtbert-nvtx.vtrace" | tee "$OUT/vtbert-top-layer.txt"
  grep -q 'layer\.[0-9]*\.attention' "$OUT/vtbert-top-layer.txt" || { echo "FAIL: no layer.N.attention scope"; fail=1; }
}

layers() {
  for amp in fp32 bf16; do
    local a=(); [ $amp = bf16 ] && a=(--amp bf16)
    for seq in 512 128; do
      echo "== layers: BERT-base seq $seq batch 8 $amp"
      "$VT" run --per-tensor --torch-modules --no-summary -o "$W/bert-$amp-$seq.vtrace" -- \
        $PY "$root/tests/gpu/bert_layers.py" --seq $seq --batch 8 "${a[@]}" \
        > "$W/bert-$amp-$seq.out" 2> "$W/bert-$amp-$seq.err" || { echo "FAIL: bert_layers.py"; tail "$W/bert-$amp-$seq.err"; fail=1; continue; }
      tail -1 "$W/bert-$amp-$seq.out"
      "$VT" top --by layer --top 1000 --json "$W/bert-$amp-$seq.vtrace" > "$OUT/bert-$amp-$seq-top.json"
    done
    "$VT" top --by layer --top 25 "$W/bert-$amp-512.vtrace" | tee "$OUT/bert-$amp-512-top.txt"
    $PY "$root/tests/gpu/check_layers.py" top "$OUT/bert-$amp-512-top.json" || fail=1
    $PY "$root/tests/gpu/check_layers.py" growth "$OUT/bert-$amp-128-top.json" "$OUT/bert-$amp-512-top.json" || fail=1
    "$VT" diff --top 25 "$W/bert-$amp-128.vtrace" "$W/bert-$amp-512.vtrace" | sed -n '/^by layer/,/^$/p' \
      | tee "$OUT/bert-$amp-diff-layers.txt"
  done
}

overhead() {
  local steps="$root/tests/gpu/bench_steps.py"
  for amp in ${AMPS:-fp32 fp16}; do
    local a=(); [ $amp != fp32 ] && a=(--amp $amp)
    : > "$W/ov-$amp.tsv"
    for ((i = 0; i < RUNS; i++)); do
      for cfg in async traced nopy modules native history; do
        local ms
        case $cfg in
        async) ms=$(PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync $PY "$steps" "${a[@]}" 2>/dev/null | tail -1) ;;
        traced) ms=$("$VT" run --per-tensor --no-summary -o "$W/ov.vtrace" -- $PY "$steps" "${a[@]}" 2>/dev/null | tail -1) ;;
        nopy) ms=$(VRAMTRACE_PYTHON=0 "$VT" run --per-tensor --no-summary -o "$W/ov.vtrace" -- $PY "$steps" "${a[@]}" 2>/dev/null | tail -1) ;;
        modules) ms=$("$VT" run --per-tensor --torch-modules --no-summary -o "$W/ov.vtrace" -- $PY "$steps" "${a[@]}" 2>/dev/null | tail -1) ;;
        native) ms=$(PYTORCH_CUDA_ALLOC_CONF=backend:native $PY "$steps" "${a[@]}" 2>/dev/null | tail -1) ;;
        history) ms=$(PYTORCH_CUDA_ALLOC_CONF=backend:native $PY "$steps" "${a[@]}" --record-history all 2>/dev/null | tail -1) ;;
        esac
        ms=$(echo "$ms" | $PY -c 'import json,sys; print(json.load(sys.stdin)["median_ms"])' 2>/dev/null || echo nan)
        printf '%s\t%s\n' "$cfg" "$ms" >> "$W/ov-$amp.tsv"
      done
    done
    cp "$W/ov-$amp.tsv" "$OUT/"
    $PY - "$W/ov-$amp.tsv" "$amp" <<'PYEOF'
import statistics, sys
rows = [l.split("\t") for l in open(sys.argv[1]).read().split("\n") if l]
med = {}
for cfg in ("async", "traced", "nopy", "modules", "native", "history"):
    v = [float(ms) for c, ms in rows if c == cfg and ms != "nan"]
    med[cfg] = statistics.median(v) if v else float("nan")
pct = lambda a, b: 100.0 * (med[a] / med[b] - 1)
print("overhead %s (median step ms): %s" % (sys.argv[2], ", ".join("%s %.2f" % kv for kv in med.items())))
print("  vramtrace --per-tensor, Python frames : %+.1f%% vs untraced cudaMallocAsync" % pct("traced", "async"))
print("  vramtrace --per-tensor, no Python     : %+.1f%%" % pct("nopy", "async"))
print("  vramtrace --per-tensor --torch-modules: %+.1f%%" % pct("modules", "async"))
print("  PyTorch _record_memory_history(all)   : %+.1f%% vs untraced native" % pct("history", "native"))
PYEOF
  done
}

sections=("$@"); [ ${#sections[@]} -eq 0 ] && sections=(all)
for s in "${sections[@]}"; do
  case $s in
  vtbert) vtbert ;;
  frames) frames ;;
  layers) layers ;;
  overhead) overhead ;;
  all) vtbert; frames; layers; overhead ;;
  *) echo "unknown section $s"; exit 2 ;;
  esac
done
[ $fail = 0 ] && echo "python_layers: all checks passed" || echo "python_layers: FAILED"
exit $fail
