#!/bin/sh
# SPDX-License-Identifier: MIT
# bench_py.sh [--smoke] LIB FAKEDIR PYTHON - what Python frames cost per allocation
# (docs/python.md, "Cost"). For Python call depths 1, 10 and 50 (the Python frames above
# the loop), runs py_bench.py untraced, traced with VRAMTRACE_PYTHON=0 (native stacks
# only) and traced with Python frames, RUNS times each (default 5, interleaved), and
# prints the medians as a markdown table: ns per cuMemAlloc_v2+cuMemFree_v2 pair through
# ctypes, and what the Python frames add. Env: RUNS, PAIRS (default 200000), DEPTHS,
# VRAMTRACE_DEPTH (default 64). --smoke: one short run of each, checks they work.
set -eu
export PYTHONDONTWRITEBYTECODE=1  # no __pycache__ in the source tree
smoke=0
[ "${1:-}" = --smoke ] && { smoke=1; shift; }
lib=$1 fakedir=$2 py=$3
src=$(cd "$(dirname "$0")" && pwd)
RUNS=${RUNS:-5} PAIRS=${PAIRS:-200000} DEPTHS=${DEPTHS:-"1 10 50"}
[ $smoke = 1 ] && { RUNS=1 PAIRS=2000 DEPTHS=10; }
W=$(mktemp -d "${TMPDIR:-/tmp}/vt-bench-py.XXXXXX")
trap 'rm -rf "$W"' EXIT
export LD_LIBRARY_PATH="$fakedir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
one() { # MODE DEPTH: ns per pair
    case $1 in
    untraced) "$py" "$src/py_bench.py" -n "$PAIRS" -d "$2" ;;
    native) LD_PRELOAD="$lib" VRAMTRACE_PYTHON=0 VRAMTRACE_OUTPUT="$W/t.vtrace" "$py" "$src/py_bench.py" -n "$PAIRS" -d "$2" ;;
    python) LD_PRELOAD="$lib" VRAMTRACE_OUTPUT="$W/t.vtrace" "$py" "$src/py_bench.py" -n "$PAIRS" -d "$2" ;;
    esac | sed -n 's/.*ns_per_pair=//p'
}
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.1f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo "# bench_py: $(date -u +%F) $(nproc) cores, $("$py" -c 'import sys; print("Python", sys.version.split()[0])'), PAIRS=$PAIRS RUNS=$RUNS (median), VRAMTRACE_DEPTH=${VRAMTRACE_DEPTH:-64}"
echo "| Python depth | untraced | traced, no Python frames | traced, Python frames | Python frames add |"
echo "|---:|---:|---:|---:|---:|"
for d in $DEPTHS; do
    : > "$W/u"; : > "$W/n"; : > "$W/p"
    i=0
    while [ $i -lt "$RUNS" ]; do
        one untraced "$d" >> "$W/u"; one native "$d" >> "$W/n"; one python "$d" >> "$W/p"
        i=$((i + 1))
    done
    u=$(median < "$W/u"); n=$(median < "$W/n"); p=$(median < "$W/p")
    [ -n "$u" ] && [ -n "$n" ] && [ -n "$p" ] || { echo "bench_py.sh: a run failed" >&2; exit 1; }
    awk -v d="$d" -v u="$u" -v n="$n" -v p="$p" 'BEGIN { printf "| %d | %.0f | %.0f | %.0f | %.0f |\n", d, u, n, p, p - n }'
done
