#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# PyTorch's blocks through its allocator trace tracker (issue 23), on the GPU machine:
#   bash tests/gpu/tracker.sh            all cases (~6 min)
#   QUICK=1 bash tests/gpu/tracker.sh    BERT fp32 (+ per-tensor), GPT-2 bf16, overhead
# Each case runs tracker_train.py under `vramtrace run` (default caching allocator, blocks
# traced by default) and checks with tracker_check.py: mode "blocks"; weights, gradients
# and optimizer_state at the peak within 1% of the model's byte counts; the segments at
# the peak (blocks + idle) == torch.cuda.max_memory_reserved(); activations within 2% of
# the same run under --per-tensor (where run). torch.compile cases print their categories
# and `top --by layer` (--torch-modules); gradient checkpointing: `diff` against the run
# without. Overhead: blocks_overhead.sh (bench_steps.py, BERT-base fp16 batch 16 seq 128,
# recording on and paused in alternating blocks of one pinned process, ROUNDS rounds; and
# untraced).
# Prints a table (pass/FAIL per row); traces and reports under $OUT/tracker.
set -u
. "$(dirname "$0")/env.sh"
T=$OUT/tracker
mkdir -p "$T"
train=$root/tests/gpu/tracker_train.py
check=$root/tests/gpu/tracker_check.py
table=$T/table.txt
: > "$table"
fail=0
run_case() { # NAME [--per-tensor] [--torch-modules] -- TRAIN ARGS
  local name=$1; shift
  local vtargs=()
  while [ "$1" != "--" ]; do vtargs+=("$1"); shift; done
  shift
  rm -f "$T/$name".vtrace*
  "$VT" run --no-summary "${vtargs[@]}" -o "$T/$name.vtrace" -- $PY "$train" "$@" > "$T/$name.out" 2> "$T/$name.err"
  local tr; tr=$(ls "$T/$name".vtrace* 2>/dev/null | head -1)
  if [ -z "$tr" ]; then echo "$name: no trace" | tee -a "$table"; tail -3 "$T/$name.err"; fail=1; return 1; fi
  "$VT" report --json "$tr" > "$T/$name.json" 2>> "$T/$name.err"
  "$VT" report "$tr" > "$T/$name.txt" 2>> "$T/$name.err"
  grep -h "vramtrace:" "$T/$name.err" | head -3
}
checked() { # NAME [CHECK ARGS]
  local name=$1; shift
  $PY "$check" "$name" "$T/$name.out" "$T/$name.json" "$@" >> "$table" 2>> "$T/check.err" || fail=1
}

# The layout libvramtrace_torch.so mirrors, from this torch's headers (needs g++).
tl=$($PY -c "import os, torch; print(os.path.dirname(torch.__file__))")
cudainc=$(ls -d /usr/local/cuda*/include 2>/dev/null | head -1)
want="slot 44 action 0 device 4 addr 8 stream 32 size 40 mempool 48 sizeof 136"
if g++ -std=c++17 -I"$tl/include" -I"$cudainc" "$root/tests/gpu/tracker_abi.cc" -o "$W/tracker_abi" 2> "$T/abi.err"; then
  got=$("$W/tracker_abi")
  printf "%-22s %-44s %s\n" abi "$got" "$([ "$got" = "$want" ] && echo pass || echo "FAIL (want $want)")" >> "$table"
  [ "$got" = "$want" ] || fail=1
else
  echo "abi: g++ failed: $(tail -2 "$T/abi.err")" >> "$table"
fi

run_case bert-fp32 -- --model bert --amp fp32
run_case bert-fp32-pt --per-tensor -- --model bert --amp fp32
checked bert-fp32 --per-tensor-report "$T/bert-fp32-pt.json"
run_case gpt2-bf16 -- --model gpt2 --amp bf16
if [ -z "${QUICK:-}" ]; then
  run_case gpt2-bf16-pt --per-tensor -- --model gpt2 --amp bf16
  checked gpt2-bf16 --per-tensor-report "$T/gpt2-bf16-pt.json"
  run_case bert-bf16 -- --model bert --amp bf16 && checked bert-bf16
  run_case gpt2-fp32 -- --model gpt2 --amp fp32 && checked gpt2-fp32
  PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True run_case bert-fp32-exp -- --model bert --amp fp32 && checked bert-fp32-exp
  run_case gpt2-compile-default-pt --per-tensor --torch-modules -- --model gpt2 --amp bf16 --compile default
  # reduce-overhead (CUDA graphs): set_to_none, since a .grad kept across steps is a graph
  # output the next replay overwrites (PyTorch refuses it)
  for c in gpt2:default gpt2:reduce-overhead bert:reduce-overhead; do
    model=${c%%:*} mode=${c#*:}
    pt=(); [ $mode = default ] && pt=(--per-tensor-report "$T/gpt2-compile-default-pt.json")
    ro=(); [ $mode = reduce-overhead ] && ro=(--set-to-none)
    run_case $model-compile-$mode --torch-modules -- --model $model --amp bf16 --compile $mode "${ro[@]}" \
      && checked $model-compile-$mode "${pt[@]}"
    "$VT" top --by layer --top 8 "$T"/$model-compile-$mode.vtrace* > "$T/$model-compile-$mode.layers.txt" 2>&1
    echo "== $model compile $mode: top --by layer"; head -14 "$T/$model-compile-$mode.layers.txt"
  done
  run_case bert-bf16-ckpt -- --model bert --amp bf16 --checkpoint && checked bert-bf16-ckpt --no-exact
  "$VT" diff "$T"/bert-bf16.vtrace* "$T"/bert-bf16-ckpt.vtrace* > "$T/ckpt.diff.txt" 2>&1
  echo "== diff without -> with gradient checkpointing"; head -30 "$T/ckpt.diff.txt"
else
  checked gpt2-bf16
fi

# Overhead: blocks_overhead.sh (pinned rounds of one process each, recording on and paused
# in alternating blocks; and untraced); ROUNDS=1 here unless given.
# NO_OVERHEAD=1: leave it out (run blocks_overhead.sh by itself).
if [ -z "${NO_OVERHEAD:-}" ]; then
ROUNDS=${ROUNDS:-1} bash "$root/tests/gpu/blocks_overhead.sh" > "$T/overhead.txt" 2>&1 || fail=1
cat "$T/overhead.txt"
$PY - "$OUT/blocks-overhead.json" >> "$table" <<'PY' || fail=1
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except (OSError, ValueError):
    print("%-22s %-44s %16s %16s  %s" % ("overhead", "recording vs paused, same process (<=3%)", "-", "-", "FAIL (no result)"))
    sys.exit(1)
print("%-22s %-44s %16.2f %16.2f  %s" % ("overhead", "recording vs paused, same process (<=3%%), %+.1f%%" % ((d["ratio"] - 1) * 100),
                                         d["recording_ms"], d["paused_ms"], "pass" if d["pass"] else "FAIL"))
print("%-22s %-44s %16.2f %16.2f  %s" % ("overhead", "recording vs untraced process (info)", d["recording_ms"], d["untraced_ms"], "info"))
sys.exit(0 if d["pass"] else 1)
PY
fi
echo "== table (case, check, got, want, result)"
cat "$table"
[ $fail = 0 ] && echo "tracker: all passed" || echo "tracker: FAILED"
exit $fail
