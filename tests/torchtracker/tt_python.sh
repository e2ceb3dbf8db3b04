#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tt_python.sh VRAMTRACE C10_LIB WORK - the Python path of PyTorch's blocks: `vramtrace run`
# puts the start-up hook in place, which attaches the tracker (once, after CUDA's init) to
# the stand-in torch; --no-torch-blocks and an unknown version leave it off, the latter
# with one line on stderr.
set -u
vt=$1 c10=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work"
fail=0
say() { echo "tt_python: FAIL: $*"; fail=1; }
run() { # NAME [vramtrace run options] -- env...
  local name=$1; shift
  env FAKE_C10="$c10" PYTHONPATH="$here/torch_stub" "$@" "$vt" run --no-summary $RUNOPT -o "$work/$name.vtrace" -- \
      python3 "$here/tt_torch.py" > "$work/$name.out" 2> "$work/$name.err"
}
RUNOPT= run on
grep -qx "trackers 1" "$work/on.out" || say "the tracker was not attached once: $(cat "$work/on.out" "$work/on.err")"
"$vt" report "$work"/on.vtrace* > "$work/on.txt" 2>&1
grep -q "PyTorch's blocks (4)" "$work/on.txt" || say "the report has no blocks: $(head -5 "$work/on.txt")"
grep -q "make_weights (tt_torch.py" "$work/on.txt" || say "the blocks have no Python frames"
grep -q "(idle cache)" "$work/on.txt" || say "no idle cache row"
[ -s "$work/on.err" ] && grep -v "trace written" "$work/on.err" | grep -q . && say "stderr: $(cat "$work/on.err")"

RUNOPT=--no-torch-blocks run off
grep -qx "trackers 0" "$work/off.out" || say "--no-torch-blocks attached: $(cat "$work/off.out")"

RUNOPT= run old FAKE_TORCH_VERSION=2.9.1
grep -qx "trackers 0" "$work/old.out" || say "an unknown version was attached"
grep -q "not traced (torch 2.9.1: this PyTorch version's allocator layout is not known" "$work/old.err" ||
    say "no line about the unknown version: $(cat "$work/old.err")"
[ $fail = 0 ] && echo "tt_python: ok"
exit $fail
