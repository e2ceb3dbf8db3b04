#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Python frames, --torch-modules and `top --by layer` on the GPU machine (docs/python.md).
#   bash tests/gpu/python_layers.sh [vtbert|frames|layers|all]...
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
# The step-time overhead has its own script: tests/gpu/overhead.sh.
set -u
. "$(dirname "$0")/env.sh"
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

sections=("$@"); [ ${#sections[@]} -eq 0 ] && sections=(all)
for s in "${sections[@]}"; do
  case $s in
  vtbert) vtbert ;;
  frames) frames ;;
  layers) layers ;;
  all) vtbert; frames; layers ;;
  *) echo "unknown section $s"; exit 2 ;;
  esac
done
[ $fail = 0 ] && echo "python_layers: all checks passed" || echo "python_layers: FAILED"
exit $fail
