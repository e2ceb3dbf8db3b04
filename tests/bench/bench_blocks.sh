#!/bin/sh
# SPDX-License-Identifier: MIT
# bench_blocks.sh BLOCKS_LIB PYTHON LIB [LIB2] - the recorder's cost per PyTorch block
# (issue 23's blocks mode; docs/benchmarks.md, section 7) without a GPU: runs
# bench_blocks.py under LD_PRELOAD=LIB (and LIB2, alternated run by run: an A/B of two
# builds in the same minutes of a busy machine), RUNS times each (default 5), cold
# (--thrash 1024: each operator first reads 1 MiB, so the recorder's tables are out of
# L2 as in a real program) and hot (--thrash 0), and prints the medians of each run's
# cost (recording on minus paused, same process) in CPU ns per alloc+free pair: from Python
# (12 frames, 40 native frames below) and from a thread without Python. Env: RUNS, STEPS
# (default 300), CASES (default "1024 0"), EXTRA (more bench_blocks.py options).
set -eu
export PYTHONDONTWRITEBYTECODE=1
blocks=$1 py=$2 lib=$3 lib2=${4:-}
src=$(cd "$(dirname "$0")" && pwd)
RUNS=${RUNS:-5} STEPS=${STEPS:-300} CASES=${CASES:-"1024 0"}
W=$(mktemp -d "${TMPDIR:-/tmp}/vt-bench-blocks.XXXXXX")
trap 'rm -rf "$W"' EXIT
one() { # LIB THRASH -> "py native" cost
    LD_PRELOAD="$1" VRAMTRACE_OUTPUT="$W/t-%p.vtrace" "$py" "$src/bench_blocks.py" --lib "$blocks" \
        --steps "$STEPS" --native 96 --thrash "$2" ${EXTRA:-} | sed -n 's/^cost py_ns_per_pair=\([0-9.-]*\) native_ns_per_pair=\([0-9.-]*\)/\1 \2/p'
    rm -f "$W"/t-*.vtrace*
}
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.1f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo "# bench_blocks: $(date -u '+%F %H:%M') UTC, $(nproc) cores, $("$py" -c 'import sys; print("Python", sys.version.split()[0])'), STEPS=$STEPS RUNS=$RUNS (median of each run's on - paused)"
echo "| thrash KiB | build | from Python, ns/pair | no Python thread, ns/pair |"
echo "|---:|---|---:|---:|"
for t in $CASES; do
    : > "$W/a"; : > "$W/b"
    i=0
    while [ $i -lt "$RUNS" ]; do
        one "$lib" "$t" >> "$W/a"
        [ -n "$lib2" ] && one "$lib2" "$t" >> "$W/b"
        i=$((i + 1))
    done
    for x in a b; do
        [ -s "$W/$x" ] || continue
        [ $x = a ] && name=$lib || name=$lib2
        echo "| $t | $name | $(cut -d' ' -f1 < "$W/$x" | median) | $(cut -d' ' -f2 < "$W/$x" | median) |"
    done
done
