#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Analyzer throughput and memory next to heaptrack_print's (docs/benchmarks.md,
# "Analyzer: events per second").
#   tests/bench/bench_analyzer.sh [BUILD_DIR]        (default: build)
# Env: EVENTS (default 50000000) alloc+free events in each trace; RUNS (default 3) runs
#      per row (the readers alternate within each round), the median wall and CPU
#      times and the largest RSS are reported; REAL (default 1)
#      adds a row for a trace whose stacks point into real objects (symbolization work);
#      WORK (default: a new folder under $TMPDIR or /tmp; about 0.7 GB at 50M events);
#      KEEP=1 keeps it; REUSE=1 reuses the traces a KEEP=1 run left in WORK.
# Rows:
#   bench_tracestat   decode + live-set hash only, one thread: a plain reader of the format
#                     (and, its code unchanged, a gauge of how fast the machine is that day)
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
# Steal: time the hypervisor gave this VM's vCPUs to others (/proc/stat's 8th value,
# all CPUs, in clock ticks). A 2-vCPU guest that loses one for a while still runs
# heaptrack_print (one thread) at full speed but not vramtrace's two threads, so the
# wall ratio of such a run says nothing about the machine: each row says how much.
TICK=$(getconf CLK_TCK)
steal() { awk '$1 == "cpu" { print $9; exit }' /proc/stat; }
# once NAME CMD...: one run under /usr/bin/time; appends "wall cpu rss_kib steal_s" to
# $W/r.NAME (cpu = user + system of all threads)
once() {
  local name=$1 s0; shift
  s0=$(steal)
  /usr/bin/time -f "%e %U %S %M" -o "$W/time" "$@" > "$W/$name.out" 2> "$W/$name.err" \
    || { echo "bench_analyzer.sh: $name failed: $*" >&2; tail -5 "$W/$name.err" >&2; exit 1; }
  read -r w u s m < <(tail -1 "$W/time")
  echo "$w $(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }') $m $(awk -v a="$s0" -v b="$(steal)" -v t="$TICK" 'BEGIN { print (b - a) / t }')" >> "$W/r.$name"
}
ROWS=()
# row NAME TOOL WHAT EVENTS: the medians of $W/r.NAME as a table row; sets EPS_, CEPS_, RSS_NAME
row() {
  local name=$1 wall cpu rss st
  wall=$(cut -d' ' -f1 "$W/r.$name" | median)
  cpu=$(cut -d' ' -f2 "$W/r.$name" | median)
  rss=$(cut -d' ' -f3 "$W/r.$name" | sort -n | tail -1)
  st=$(cut -d' ' -f4 "$W/r.$name" | sort -g | tail -1)
  ROWS+=("$(awk -v t="$2" -v w="$3" -v e="$4" -v s="$wall" -v c="$cpu" -v r="$rss" -v st="$st" 'BEGIN {
    printf "| %s | %s | %d | %.2f | %.2f | %.2f | %.2f | %.0f | %.1f |", t, w, e, s, (s > 0 ? e / s / 1e6 : 0), c, (c > 0 ? e / c / 1e6 : 0), r / 1024, st }')")
  eval "EPS_$name=\$(awk -v e=$4 -v s=$wall 'BEGIN { print (s > 0 ? e / s : 0) }')"
  eval "CEPS_$name=\$(awk -v e=$4 -v s=$cpu 'BEGIN { print (s > 0 ? e / s : 0) }')"
  eval "RSS_$name=$rss"
}

echo "# bench_analyzer: $(date -u "+%F %H:%M:%S UTC") $(nproc) cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
echo "# EVENTS=$EVENTS RUNS=$RUNS, work folder $W" >&2

# --- the traces (REUSE=1 keeps those already in WORK) ---------------------------
# since STAMP: seconds since a `date +%s.%N` stamp
since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }
if [ "${REUSE:-0}" = 1 ] && [ -s "$W/gen.txt" ]; then
  echo "# REUSE=1: the traces already in $W" >&2
else
  t0=$(date +%s.%N)
  "$B/bin/gen_trace" -n "$EVENTS" -o "$W/gen.vtrace" > "$W/gen.txt"
  echo "# gen_trace -n $EVENTS: $(since "$t0") s" >&2
  [ "$REAL" = 1 ] && "$B/bin/gen_trace" -r -n "$EVENTS" -o "$W/genr.vtrace" > "$W/genr.txt"
  t0=$(date +%s.%N)
  heaptrack -o "$W/heap" "$B/bin/bench_heapgen" -n $((EVENTS / 2)) > "$W/heaptrack.out" 2>&1 \
    || { echo "bench_analyzer.sh: heaptrack run failed" >&2; tail -5 "$W/heaptrack.out" >&2; exit 1; }
  echo "# heaptrack bench_heapgen -n $((EVENTS / 2)): $(since "$t0") s" >&2
fi
gen=$(cat "$W/gen.txt")
echo "# gen_trace: $gen" >&2
if [ "$REAL" = 1 ]; then genr=$(cat "$W/genr.txt"); echo "# gen_trace -r: $genr" >&2; fi
echo "# heaptrack trace: $(stat -c %s "$W/heap.zst") bytes" >&2

# --- the readers --------------------------------------------------------------
ev=$(kv "$gen" events)
rm -f "$W"/r.*
steal0=$(steal)
# RUNS rounds, each running every reader once in turn, so that other load on the
# machine hits them alike.
for ((i = 0; i < RUNS; i++)); do
  once floor "$B/bin/bench_tracestat" "$W/gen.vtrace"
  once report "$vt" report "$W/gen.vtrace"
  once top "$vt" top "$W/gen.vtrace"
  [ "$REAL" = 1 ] && once reportr "$vt" report "$W/genr.vtrace"
  once hprint heaptrack_print "$W/heap.zst"
done
calls=$(sed -n 's/^calls to allocation functions: \([0-9]*\).*/\1/p' "$W/hprint.out")
[ -n "$calls" ] || { echo "bench_analyzer.sh: no 'calls to allocation functions' in heaptrack_print output" >&2; exit 1; }
row floor bench_tracestat "decode + live set, one thread (plain reader)" "$ev"
row report "vramtrace report" "synthetic trace, fake modules" "$ev"
row top "vramtrace top" "synthetic trace, fake modules" "$ev"
[ "$REAL" = 1 ] && row reportr "vramtrace report" "synthetic trace, real modules (symbolized)" "$(kv "$genr" events)"
row hprint heaptrack_print "bench_heapgen trace, $calls calls" $((2 * calls))

echo
echo "| tool | trace | events | wall s (median of $RUNS) | M events/s (wall) | CPU s (median) | M events/s (CPU) | max RSS MiB | steal s (most in a run) |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|"
printf '%s\n' "${ROWS[@]}"
echo
awk -v r="$EPS_report" -v t="$EPS_top" -v h="$EPS_hprint" -v cr="$CEPS_report" -v ct="$CEPS_top" -v ch="$CEPS_hprint" \
    -v rr="$RSS_report" -v hr="$RSS_hprint" 'BEGIN {
  printf "vramtrace report / heaptrack_print: %.2fx events/s wall, %.2fx per CPU second (target >= 3x); RSS ratio %.2f (target <= 1)\n", r / h, cr / ch, rr / hr
  printf "vramtrace top    / heaptrack_print: %.2fx events/s wall, %.2fx per CPU second\n", t / h, ct / ch }'
echo "trace sizes: vramtrace $(stat -c %s "$W/gen.vtrace") bytes ($(kv "$gen" bytes_per_event) B/event), heaptrack $(stat -c %s "$W/heap.zst") bytes"
echo "$(date -u +%H:%M:%S) UTC, load average at the end: $(cut -d' ' -f1-3 /proc/loadavg); CPU steal over all runs: $(awk -v a="$steal0" -v b="$(steal)" -v t="$TICK" 'BEGIN { printf "%.1f", (b - a) / t }') s"
