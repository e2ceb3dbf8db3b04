#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Two recorders, one run: the cost per alloc+free pair under an OLD and a NEW
# libvramtrace.so, the runs alternating so that the machine's other load hits both alike
# (docs/benchmarks.md, "Recorder: lossless ring and durable ends").
#   tests/bench/bench_alloc_ab.sh OLD_LIB NEW_LIB [BENCH_ALLOC]
# Env: RUNS (default 11) rounds, PAIRS (default 1000000), THREADS (default 1),
#      DEPTH (default 8).
# Prints the median wall and thread-CPU ns per pair of each, untraced alongside, the
# overhead each recorder adds, and new/old of the overheads. The new recorder's traces must
# have no LOST event (one that drops would look cheaper than it is); the old one's LOST
# counts are summed and printed (recorders before issue 17 dropped under load).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
old=$1 new=$2
alloc=${3:-$root/build/bin/bench_alloc}
RUNS=${RUNS:-11} PAIRS=${PAIRS:-1000000} THREADS=${THREADS:-1} DEPTH=${DEPTH:-8}
stat=$(dirname "$alloc")/bench_tracestat
for f in "$old" "$new" "$alloc"; do [ -e "$f" ] || { echo "bench_alloc_ab.sh: $f missing" >&2; exit 1; }; done
W=$(mktemp -d "${TMPDIR:-/tmp}/vt-bench-ab.XXXXXX")
trap 'rm -rf "$W"' EXIT

kv() { tr ' ' '\n' <<< "$1" | sed -n "s/^$2=//p"; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.1f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
one() {   # one TAG [ENV...]: appends "wall cpu" to $W/TAG
  local tag=$1 line; shift
  rm -f "$W/t.vtrace"*
  line=$(env "$@" "$alloc" -m cuda -t "$THREADS" -d "$DEPTH" -n "$PAIRS" 2> "$W/err" | grep '^mode=') \
    || { echo "bench_alloc_ab.sh: run failed ($tag)" >&2; cat "$W/err" >&2; exit 1; }
  echo "$(kv "$line" ns_per_pair) $(kv "$line" cpu_ns_per_pair)" >> "$W/$tag"
  if [ "$tag" != none ] && [ -x "$stat" ]; then
    local st; st=$("$stat" "$W/t.vtrace")
    echo "$(kv "$st" lost)" >> "$W/lost.$tag"
    [ "$tag" = old ] || [ "$(kv "$st" lost)" = 0 ] || { echo "bench_alloc_ab.sh: $tag lost events: $st" >&2; exit 1; }
  fi
}
echo "# bench_alloc_ab: $(date -u '+%F %H:%M') UTC, $(nproc) cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# PAIRS=$PAIRS RUNS=$RUNS THREADS=$THREADS DEPTH=$DEPTH; old=$old new=$new"
for ((i = 0; i < RUNS; i++)); do
  one none
  one old LD_PRELOAD="$old" VRAMTRACE_DEPTH="$DEPTH" VRAMTRACE_OUTPUT="$W/t.vtrace"
  one new LD_PRELOAD="$new" VRAMTRACE_DEPTH="$DEPTH" VRAMTRACE_OUTPUT="$W/t.vtrace"
done
for m in none old new; do
  echo "$(cut -d' ' -f1 "$W/$m" | median) $(cut -d' ' -f2 "$W/$m" | median)" > "$W/m.$m"
done
read -r nw nc < "$W/m.none"; read -r ow oc < "$W/m.old"; read -r ew ec < "$W/m.new"
echo
echo "| ns per pair (median of $RUNS) | untraced | old | new | old adds | new adds | new/old adds |"
echo "|---|---:|---:|---:|---:|---:|---:|"
awk -v n="$nw" -v o="$ow" -v e="$ew" 'BEGIN { printf "| wall | %.0f | %.0f | %.0f | %.0f | %.0f | %.3f |\n", n, o, e, o - n, e - n, (e - n) / (o - n) }'
awk -v n="$nc" -v o="$oc" -v e="$ec" 'BEGIN { printf "| thread CPU | %.0f | %.0f | %.0f | %.0f | %.0f | %.3f |\n", n, o, e, o - n, e - n, (e - n) / (o - n) }'
echo
for m in old new; do [ -f "$W/lost.$m" ] && echo "LOST events, $m recorder, all runs: $(awk '{ s += $1 } END { print s + 0 }' "$W/lost.$m")"; done
