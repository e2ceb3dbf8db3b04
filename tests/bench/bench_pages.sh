#!/bin/sh
# SPDX-License-Identifier: MIT
# bench_pages.sh BLOCKS_LIB PYTHON LIB - how many distinct 4 KiB pages the recorder's
# handling of one block touches (code and data, by mapping), recording and paused: a few
# steps of bench_blocks.py --mark (blocks from Python only) under valgrind's lackey, which
# reports every memory access, counted by bench_pages.py. In a program whose working set
# keeps the TLB cold (PyTorch's), each page is a likely page walk (docs/benchmarks.md,
# section 7). Env: STEPS (default 2), EXTRA (more bench_blocks.py options). Slow: minutes.
set -eu
blocks=$1 py=$2 lib=$3
src=$(cd "$(dirname "$0")" && pwd)
W=$(mktemp -d "${TMPDIR:-/tmp}/vt-bench-pages.XXXXXX")
trap 'rm -rf "$W"' EXIT
valgrind --tool=lackey --trace-mem=yes --trace-children=yes --log-fd=3 \
    env LD_PRELOAD="$lib" VRAMTRACE_OUTPUT="$W/t-%p.vtrace" PYTHONDONTWRITEBYTECODE=1 \
    "$py" "$src/bench_blocks.py" --lib "$blocks" --steps "${STEPS:-2}" --warmup 1 --block 1 --native 0 \
    --mark --maps "$W/maps.txt" ${EXTRA:-} 3>&1 1>"$W/out.txt" 2>"$W/err.txt" \
  | "$py" "$src/bench_pages.py" --maps "$W/maps.txt"
