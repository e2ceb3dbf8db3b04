#!/bin/sh
# SPDX-License-Identifier: MIT
# memo_check.sh CLI LIB BENCH_ALLOC FAKEDIR - the walk memo gives libunwind's stacks.
#
# bench_alloc -b 4 allocates in turn from 4,096 call paths in a tree of four branch
# points, a few more than one thread's memo holds at this depth: the warm-up's paths fill
# it, the timed loop's (other paths: another call site) are refused until it starts over,
# then fill it again and mostly hit (docs/design-recorder.md, "Memo"). The same run, with address-space
# randomization off so that return addresses repeat, is recorded once with the memo and
# once with VRAMTRACE_LIBUNWIND=1 (no memo, no cached walker): the stack trees and the
# stack of every allocation must be the same, and the memo run must have hit and reset.
# VT_EMU (cross builds: tests/aarch64/qemu-run.sh) runs the programs.
set -eu
cli=$1 lib=$2 bench=$3 fakedir=$4
emu=${VT_EMU:-}
pre=LD_PRELOAD
[ -z "$emu" ] || pre=VT_EMU_PRELOAD
W=$(mktemp -d "${TMPDIR:-/tmp}/vt-memo.XXXXXX")
trap 'rm -rf "$W"' EXIT
norand() { setarch "$(uname -m)" -R "$@"; }
norand true 2> /dev/null || { echo "memo_check: setarch -R does not work here: skipped"; exit 77; }
run() { # NAME ENV...: one recorded run
    name=$1; shift
    norand env "$@" LD_LIBRARY_PATH="$fakedir" $pre="$lib" VRAMTRACE_STATS=1 \
        VRAMTRACE_OUTPUT="$W/$name.vtrace" $emu "$bench" -b 4 -d 40 -n 24576 -w 4096 > "$W/$name.out" 2> "$W/$name.err"
    $emu "$cli" dump "$W/$name.vtrace" > "$W/$name.dump"
    # the stack tree, and each allocation's stack in order (times and ids of threads vary)
    grep '^stack ' "$W/$name.dump" > "$W/$name.stacks"
    sed -n 's/^alloc .* size=\([0-9]*\) .*stack=\([0-9]*\) .*/\1 \2/p' "$W/$name.dump" > "$W/$name.allocs"
}
run memo VRAMTRACE_LIBUNWIND=0
run unw VRAMTRACE_LIBUNWIND=1
fail=0
n=$(wc -l < "$W/memo.allocs")
[ "$n" -ge 28672 ] || { echo "memo_check: only $n allocations recorded"; fail=1; }
cmp -s "$W/memo.stacks" "$W/unw.stacks" || { echo "memo_check: the stack trees differ"; diff "$W/memo.stacks" "$W/unw.stacks" | head -5; fail=1; }
cmp -s "$W/memo.allocs" "$W/unw.allocs" || { echo "memo_check: allocations have other stacks"; diff "$W/memo.allocs" "$W/unw.allocs" | head -5; fail=1; }
hits=$(sed -n 's/.* \([0-9]*\) memo hits of .*/\1/p' "$W/memo.err")
resets=$(sed -n 's/.*(memo reset \([0-9]*\) times).*/\1/p' "$W/memo.err")
[ "${hits:-0}" -ge 8192 ] || { echo "memo_check: $hits memo hits, expected at least 8192"; fail=1; }
[ "${resets:-0}" -ge 1 ] || { echo "memo_check: the memo never filled (resets: ${resets:-none}); the test needs deeper stacks"; fail=1; }
echo "memo_check: $n allocations, $(wc -l < "$W/memo.stacks") stack nodes, $hits memo hits, $resets resets"
exit $fail
