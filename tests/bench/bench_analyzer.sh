#!/usr/bin/env bash
# Analyzer throughput and memory next to heaptrack_print's (docs/benchmarks.md,
# "Analyzer: events per second").
#   tests/bench/bench_analyzer.sh [BUILD_DIR]        (default: build)
# Env: EVENTS (default 50000000) alloc+free events in each trace; RUNS (default 3) runs
#      per row, the median wall time and the largest RSS are reported; REAL (default 1)
#      adds a row for a trace whose stacks point into real objects (symbolization work);
#      WORK (default: a new folder under $TMPDIR or /tmp; about 1 GB at 50M events);
#      KEEP=1 keeps it.
# Rows:
#   bench_tracestat   decode + live-set hash only: a floor for any reader of the format
#   vramtrace report  the full report on gen_trace's synthetic training trace
#   vramtrace top     the top call sites
#   heaptrack_print   on a heaptrack trace of bench_heapgen with EVENTS/2 malloc+free
#                     pairs, ~10k stacks, ~100k live (events = 2 x its "calls to
#                     allocation functions")
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
B=$(cd "${1:-$root/build}" && pwd)
EVENTS=${EVENTS:-50000000}
RUNS=${RUNS:-3}
REAL=${REAL:-1}
vt=$B/bin/vramtrace
for f in "$vt" "$B/bin/gen_trace" "$B/bin/bench_tracestat" "$B/bin/bench_heapgen"; do
  [ -x "$f" ] || { echo "bench_analyzer.sh: $f missing: build first" >&2; exit 1; }
done
for t in heaptrack heaptrack_print /usr/bin/time; do
  command -v "$t" > /dev/null || { echo "bench_analyzer.sh: $t missing (apt-get install heaptrack time)" >&2; exit 1; }
done
if [ -n "${WORK:-}" ]; then W=$WORK; mkdir -p "$W"; else W=$(mktemp -d "${TMPDIR:-/tmp}/vt-bench-an.XXXXXX"); fi
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$W"' EXIT

kv() { tr ' ' '\n' <<< "$1" | sed -n "s/^$2=//p"; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# measure NAME CMD...: RUNS runs under /usr/bin/time; sets WALL (median s) and RSS (max KiB)
measure() {
  local name=$1; shift
  local i walls="" rss=0
  for ((i = 0; i < RUNS; i++)); do
    /usr/bin/time -f "%e %M" -o "$W/time" "$@" > "$W/$name.out" 2> "$W/$name.err" \
      || { echo "bench_analyzer.sh: $name failed: $*" >&2; tail -5 "$W/$name.err" >&2; exit 1; }
    read -r w m < <(tail -1 "$W/time")
    walls+="$w"$'\n'
    [ "$m" -gt "$rss" ] && rss=$m
  done
  WALL=$(printf '%s' "$walls" | median)
  RSS=$rss
}
ROWS=()
row() { # TOOL WHAT EVENTS
  ROWS+=("$(awk -v t="$1" -v w="$2" -v e="$3" -v s="$WALL" -v r="$RSS" 'BEGIN {
    printf "| %s | %s | %d | %.2f | %.2f | %.0f |", t, w, e, s, (s > 0 ? e / s / 1e6 : 0), r / 1024 }')")
  eval "EPS_$4=\$(awk -v e=$3 -v s=$WALL 'BEGIN { print (s > 0 ? e / s : 0) }')"
  eval "RSS_$4=$RSS"
}

echo "# bench_analyzer: $(date -u +%F) $(nproc) cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)" >&2
echo "# EVENTS=$EVENTS RUNS=$RUNS, work folder $W" >&2

# --- the traces ---------------------------------------------------------------
s0=$(date +%s.%N)
gen=$("$B/bin/gen_trace" -n "$EVENTS" -o "$W/gen.vtrace")
s1=$(date +%s.%N)
echo "# gen_trace: $gen ($(awk -v a="$s0" -v b="$s1" 'BEGIN { printf "%.1f", b - a }') s)" >&2
if [ "$REAL" = 1 ]; then
  genr=$("$B/bin/gen_trace" -r -n "$EVENTS" -o "$W/genr.vtrace")
  echo "# gen_trace -r: $genr" >&2
fi
h0=$(date +%s.%N)
heaptrack -o "$W/heap" "$B/bin/bench_heapgen" -n $((EVENTS / 2)) > "$W/heaptrack.out" 2>&1 \
  || { echo "bench_analyzer.sh: heaptrack run failed" >&2; tail -5 "$W/heaptrack.out" >&2; exit 1; }
h1=$(date +%s.%N)
echo "# heaptrack bench_heapgen -n $((EVENTS / 2)): $(awk -v a="$h0" -v b="$h1" 'BEGIN { printf "%.1f", b - a }') s, $(stat -c %s "$W/heap.zst") bytes" >&2

# --- the readers --------------------------------------------------------------
ev=$(kv "$gen" events)
measure tracestat "$B/bin/bench_tracestat" "$W/gen.vtrace"
row bench_tracestat "decode + live set (floor)" "$ev" floor
measure report "$vt" report "$W/gen.vtrace"
row "vramtrace report" "synthetic trace, fake modules" "$ev" report
measure top "$vt" top "$W/gen.vtrace"
row "vramtrace top" "synthetic trace, fake modules" "$ev" top
if [ "$REAL" = 1 ]; then
  measure reportr "$vt" report "$W/genr.vtrace"
  row "vramtrace report" "synthetic trace, real modules (symbolized)" "$(kv "$genr" events)" reportr
fi
measure hprint heaptrack_print "$W/heap.zst"
calls=$(sed -n 's/^calls to allocation functions: \([0-9]*\).*/\1/p' "$W/hprint.out")
[ -n "$calls" ] || { echo "bench_analyzer.sh: no 'calls to allocation functions' in heaptrack_print output" >&2; exit 1; }
row heaptrack_print "bench_heapgen trace, $calls calls" $((2 * calls)) hprint

echo
echo "| tool | trace | events | wall s (median of $RUNS) | M events/s | max RSS MiB |"
echo "|---|---|---:|---:|---:|---:|"
printf '%s\n' "${ROWS[@]}"
echo
awk -v r="$EPS_report" -v t="$EPS_top" -v h="$EPS_hprint" -v rr="$RSS_report" -v hr="$RSS_hprint" 'BEGIN {
  printf "vramtrace report / heaptrack_print: %.2fx events/s (target >= 3x), RSS ratio %.2f (target <= 1)\n", r / h, rr / hr
  printf "vramtrace top    / heaptrack_print: %.2fx events/s\n", t / h }'
echo "trace sizes: vramtrace $(stat -c %s "$W/gen.vtrace") bytes ($(kv "$gen" bytes_per_event) B/event), heaptrack $(stat -c %s "$W/heap.zst") bytes"
