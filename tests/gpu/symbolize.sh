#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# symbolize.sh - self-contained traces on the GPU machine (docs/symbols.md): what making
# a trace self-contained costs, measured on GPT-2 and BERT-base training traces.
#
# For each model: trace a few training steps with `vramtrace run --no-symbolize`, copy
# the trace, `vramtrace symbolize` the copy (time, addresses, bytes added), and check
# that `report` of the symbolized copy is the report of the original on this host (the
# same frames: the records say what the binaries say), less the record count line.
# Prints a table and leaves it in $OUT/symbolize.txt, with the symbolized traces.
# Pass: both reports equal ("same report: yes"), every address that resolves here is in
# the records (resolved == addresses - unresolved in the symbolize line), bytes > 0.
set -uo pipefail
source "$(dirname "$0")/env.sh"

cat > "$W/gpt2_train.py" <<'PY'
# GPT-2 (124M, from its config: no download) trained on random tokens, AdamW, 4 steps.
import torch
from transformers import GPT2Config, GPT2LMHeadModel
torch.manual_seed(0)
model = GPT2LMHeadModel(GPT2Config()).cuda()
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
x = torch.randint(0, 50257, (8, 256), device="cuda")
for _ in range(4):
    loss = model(x, labels=x).loss
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
torch.cuda.synchronize()
print("gpt2 done, loss %.3f" % loss.item())
PY

ns() { date +%s%N; }
table="$OUT/symbolize.txt"
printf '%-6s %10s %10s %10s %8s %10s %9s %s\n' model trace_B added_B added_% sym_ms addresses unresolv same_report > "$table"
for m in gpt2 bert; do
  t="$W/sym-$m.vtrace"
  rm -f "$t"
  case $m in
    gpt2) cmd=("$PY" "$W/gpt2_train.py") ;;
    bert) cmd=("$PY" "$root/tests/gpu/bench_steps.py" --steps 3 --warmup 1) ;;
  esac
  echo "== $m: ${cmd[*]}"
  "$VT" run --no-summary --no-symbolize -o "$t" -- "${cmd[@]}" > "$OUT/symbolize-$m.log" 2>&1 ||
    { echo "FAIL: $m run"; tail -5 "$OUT/symbolize-$m.log"; continue; }
  s="$W/sym-$m.self.vtrace"
  cp "$t" "$s"
  size0=$(stat -c %s "$t")
  t0=$(ns)
  line=$("$VT" symbolize "$s" 2>&1 | tail -1)
  t1=$(ns)
  echo "$line"
  size1=$(stat -c %s "$s")
  # "symbolized F: R of A addresses resolved here (+...)"
  resolved=$(echo "$line" | sed -nE 's/.*: ([0-9]+) of ([0-9]+) addresses.*/\1/p')
  addrs=$(echo "$line" | sed -nE 's/.*: ([0-9]+) of ([0-9]+) addresses.*/\2/p')
  "$VT" report "$t" 2>/dev/null | grep -v ' records over ' | sed "s#$t#TRACE#" > "$W/r0.txt"
  "$VT" report "$s" 2>/dev/null | grep -v ' records over ' | sed "s#$s#TRACE#" > "$W/r1.txt"
  same=no; cmp -s "$W/r0.txt" "$W/r1.txt" && same=yes
  [ $same = yes ] || diff "$W/r0.txt" "$W/r1.txt" | head -20
  printf '%-6s %10d %10d %9.2f%% %8d %10s %9s %s\n' $m "$size0" $((size1 - size0)) \
    "$(awk -v a="$size0" -v b="$size1" 'BEGIN { print 100 * (b - a) / a }')" $(((t1 - t0) / 1000000)) "$addrs" \
    "$((addrs - resolved))" "$same" >> "$table"
  [ "$size1" -lt $((64 << 20)) ] && cp "$s" "$OUT/"
done
echo "== self-contained traces ($(date -u +%FT%TZ), $(hostname))"
cat "$table"
