#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 17 on the GPU machine: the recorder keeps every event and touches only its own file
# under PyTorch and the real driver (docs/design-recorder.md, "Trust").
#   bash tests/gpu/trust.sh [crash|threads|closefds|all]...
#   crash     2000 tensors of 1 MiB + i*512 B (--per-tensor: one driver allocation each),
#             then a segfault (ctypes.string_at(0)): exit 139, the trace holds all 2000
#             (their sizes counted in `vramtrace dump`), and it is mode 0600
#   threads   16 Python threads x 5000 tensor alloc/free pairs under --per-tensor:
#             `report` says lost 0, and at least 80000 allocations
#   closefds  os.closerange(3, 65536) first (close_range/closefrom: the recorder's trace fd
#             among them; CUDA's own fds would break CUDA if closed later), 1000 tensors, the
#             script's own file written after: the file holds only the script's line, the
#             trace all 1000 tensors, and `report` reads it without "ends early"
# Prints one PASS/FAIL line per check; results and logs under $OUT/trust.
set -u
. "$(dirname "$0")/env.sh"
mkdir -p "$OUT/trust"
fail=0
ok() { echo "PASS: $*"; }
bad() { echo "FAIL: $*"; fail=1; }
lost_of() { sed -n 's/.*events: allocs \([0-9]*\), frees \([0-9]*\).* lost \([0-9]*\);.*/\1 \2 \3/p' "$1" | head -1; }

crash() {
  local t=$W/crash.vtrace
  rm -f "$t"*
  "$VT" run --per-tensor --no-summary -o "$t" -- $PY - > "$OUT/trust/crash.out" 2> "$OUT/trust/crash.err" <<'PYEOF'
import ctypes, torch
keep = [torch.empty(1048576 + i * 512, dtype=torch.uint8, device="cuda") for i in range(2000)]
torch.cuda.synchronize()
print("allocated", len(keep), flush=True)
ctypes.string_at(0)
PYEOF
  local rc=$?
  [ $rc = 139 ] && ok "crash: exit $rc" || bad "crash: exit $rc, expected 139"
  local n
  n=$("$VT" dump "$t" 2> /dev/null | awk '/^alloc / { for (i = 1; i <= NF; i++) if ($i ~ /^size=/) { s = substr($i, 6) + 0; if (s >= 1048576 && s < 1048576 + 2000 * 512 && (s - 1048576) % 512 == 0) seen[s] = 1 } } END { print length(seen) }')
  [ "$n" = 2000 ] && ok "crash: all 2000 tensors in the trace" || bad "crash: $n of 2000 tensors in the trace"
  [ "$(stat -c %a "$t")" = 600 ] && ok "crash: trace mode 0600" || bad "crash: trace mode $(stat -c %a "$t")"
}

threads() {
  local t=$W/threads.vtrace
  rm -f "$t"*
  "$VT" run --per-tensor --no-summary -o "$t" -- $PY - > "$OUT/trust/threads.out" 2> "$OUT/trust/threads.err" <<'PYEOF' || bad "threads: the script failed"
import threading, torch
torch.cuda.init()
def work(k):
    for i in range(5000):
        x = torch.empty(4096 + k * 64, dtype=torch.uint8, device="cuda")
        del x
ts = [threading.Thread(target=work, args=(k,)) for k in range(16)]
for t in ts: t.start()
for t in ts: t.join()
torch.cuda.synchronize()
PYEOF
  "$VT" report "$t" > "$OUT/trust/threads-report.txt" 2>&1
  read -r a f l <<< "$(lost_of "$OUT/trust/threads-report.txt")"
  [ "${l:-x}" = 0 ] && [ "${a:-0}" -ge 80000 ] && ok "threads: $a allocations, $f frees, lost 0" \
    || bad "threads: allocs ${a:-?}, frees ${f:-?}, lost ${l:-?}"
}

closefds() {
  local t=$W/closefds.vtrace own=$W/own.txt
  rm -f "$t"* "$own"
  "$VT" run --per-tensor --no-summary -o "$t" -- $PY - "$own" > "$OUT/trust/closefds.out" 2> "$OUT/trust/closefds.err" <<'PYEOF' || bad "closefds: the script failed"
import os, sys
os.closerange(3, 65536)  # as a daemon does, before CUDA (after, it would close the driver's own fds)
import torch
a = [torch.empty(2097152 + i * 512, dtype=torch.uint8, device="cuda") for i in range(500)]
torch.cuda.synchronize()
b = [torch.empty(2097152 + (500 + i) * 512, dtype=torch.uint8, device="cuda") for i in range(500)]
torch.cuda.synchronize()
with open(sys.argv[1], "w") as f:
    f.write("the script's own line\n")
PYEOF
  [ "$(cat "$own" 2>/dev/null)" = "the script's own line" ] && ok "closefds: own file clean" || bad "closefds: own file: $(head -c 200 "$own" | od -c | head -3)"
  "$VT" report "$t" > "$OUT/trust/closefds-report.txt" 2>&1
  grep -q "ends early" "$OUT/trust/closefds-report.txt" && bad "closefds: trace cut short"
  local n
  n=$("$VT" dump "$t" 2> /dev/null | awk '/^alloc / { for (i = 1; i <= NF; i++) if ($i ~ /^size=/) { s = substr($i, 6) + 0; if (s >= 2097152 && s < 2097152 + 1000 * 512 && (s - 2097152) % 512 == 0) seen[s] = 1 } } END { print length(seen) }')
  [ "$n" = 1000 ] && ok "closefds: all 1000 tensors in the trace" || bad "closefds: $n of 1000 tensors in the trace"
}

[ $# = 0 ] && set -- all
for s in "$@"; do
  case $s in
  crash|threads|closefds) "$s" ;;
  all) crash; threads; closefds ;;
  *) echo "trust.sh: unknown section $s" >&2; exit 2 ;;
  esac
done
exit $fail
