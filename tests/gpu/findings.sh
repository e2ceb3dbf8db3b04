#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The findings matrix (docs/findings.md): vt-bert traced under each configuration users
# ask about, next to its --plan ground truth. One JSON line per run in $OUT/findings.jsonl:
#   {"args": [...], "plan": <vt-bert --plan>, "run": <vt-bert's own bookkeeping>,
#    "top": <vramtrace top --by function --json at the peak>}
# Usage: bash tests/gpu/findings.sh BIN_DIR VRAMTRACE WORK_DIR
set -u
BIN=$1; VT=$2; W=$3
PY=${PYTHON:-python3}
mkdir -p "$W"
J=${OUT:-$W}/findings.jsonl
: > "$J"
one() {
  local tag=$1; shift
  local tr="$W/f-$tag.vtrace"
  "$VT" run --no-summary -o "$tr" -- "$BIN/vt-bert" --quiet --steps 3 "$@" > "$W/f-$tag.run" 2> "$W/f-$tag.err"
  local rc=$?
  "$BIN/vt-bert" --plan --steps 3 "$@" > "$W/f-$tag.plan" 2>/dev/null
  "$VT" top "$tr" --by function --top 40 --json > "$W/f-$tag.top" 2>> "$W/f-$tag.err"
  $PY - "$tag" "$rc" "$W/f-$tag.plan" "$W/f-$tag.run" "$W/f-$tag.top" "$@" >> "$J" <<'PYEOF'
import json, sys
tag, rc, plan, run, top = sys.argv[1:6]
def last(p):
    try:
        return json.loads(open(p).read().strip().splitlines()[-1])
    except Exception as e:
        return {"error": str(e)}
print(json.dumps({"tag": tag, "rc": int(rc), "args": sys.argv[6:], "plan": last(plan),
                  "run": last(run), "top": last(top) if False else json.load(open(top)) if open(top).read().strip() else {}}))
PYEOF
  echo "findings: $tag rc=$rc $(du -k "$tr" 2>/dev/null | cut -f1) KiB"
}
for b in 1 4 8 16 32 64; do one "batch$b" --model base --batch $b --seq 128; done
for s in 64 256 512; do one "seq$s" --model base --batch 16 --seq $s; done
for p in fp16 bf16; do one "prec-$p" --model base --batch 16 --seq 128 --precision $p; done
one recompute --model base --batch 16 --seq 128 --recompute
one sgd --model base --batch 16 --seq 128 --optimizer sgd
one momentum --model base --batch 16 --seq 128 --optimizer momentum
one distil --model distil --batch 16 --seq 128
one tiny --model tiny --batch 16 --seq 128
one large-bf16 --model large --batch 16 --seq 128 --precision bf16
