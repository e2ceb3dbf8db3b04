#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Recorder overhead next to heaptrack's (docs/benchmarks.md, "Recorder: cost per alloc+free").
#   tests/bench/bench_alloc.sh [BUILD_DIR]        (default: build)
# Env: RUNS (default 5) runs per cell, the median is reported; PAIRS (default 1000000)
#      timed pairs per run; DEPTHS (default "8 32 64"); THREADS (default "1 2");
#      KEEP=1 keeps the work folder.
# For each thread count and depth it runs bench_alloc:
#   cuda untraced   fake libcuda only
#   cuda traced     LD_PRELOAD=libvramtrace.so VRAMTRACE_DEPTH=<depth>
#   malloc          glibc malloc+free, untraced
#   malloc heaptrack  the same under `heaptrack`
# and prints a markdown table: ns per pair, the overhead each tracer adds (traced minus
# untraced), the vramtrace/heaptrack ratio of those overheads and of the traced totals,
# and the recorder's trace size per event (and its LOST events, which must be 0).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
B=$(cd "${1:-$root/build}" && pwd)
RUNS=${RUNS:-5}
PAIRS=${PAIRS:-1000000}
DEPTHS=${DEPTHS:-"8 32 64"}
THREADS=${THREADS:-"1 2"}
alloc=$B/bin/bench_alloc
stat=$B/bin/bench_tracestat
lib=$B/lib/libvramtrace.so
for f in "$alloc" "$stat" "$lib"; do [ -e "$f" ] || { echo "bench_alloc.sh: $f missing: build first" >&2; exit 1; }; done
command -v heaptrack > /dev/null || { echo "bench_alloc.sh: heaptrack not installed (apt-get install heaptrack)" >&2; exit 1; }
W=$(mktemp -d "${TMPDIR:-/tmp}/vt-bench-alloc.XXXXXX")
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$W"' EXIT

kv() { tr ' ' '\n' <<< "$1" | sed -n "s/^$2=//p"; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.1f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# one MODE THREADS DEPTH [PREFIX...]: "wall cpu" ns per pair of one run
one() {
  local mode=$1 t=$2 d=$3; shift 3
  local line
  line=$("$@" "$alloc" -m "$mode" -t "$t" -d "$d" -n "$PAIRS" 2> "$W/err" | grep '^mode=') \
    || { echo "bench_alloc.sh: run failed: $* $alloc -m $mode -t $t -d $d" >&2; cat "$W/err" >&2; exit 1; }
  echo "$(kv "$line" ns_per_pair) $(kv "$line" cpu_ns_per_pair)"
}
# cells THREADS DEPTH: RUNS rounds, each running the four modes once in turn (so that
# other load on the machine hits them alike); leaves "wall cpu" medians in $W/m.{cu,ct,mu,mh}
cells() {
  local t=$1 d=$2 i m
  : > "$W/r.cu"; : > "$W/r.ct"; : > "$W/r.mu"; : > "$W/r.mh"
  for ((i = 0; i < RUNS; i++)); do
    one cuda "$t" "$d" env >> "$W/r.cu"
    one cuda "$t" "$d" env LD_PRELOAD="$lib" VRAMTRACE_DEPTH="$d" VRAMTRACE_OUTPUT="$W/t-$t-$d.vtrace" >> "$W/r.ct"
    one malloc "$t" "$d" env >> "$W/r.mu"
    one malloc "$t" "$d" heaptrack -o "$W/h-$t-$d" >> "$W/r.mh"
    rm -f "$W"/h-"$t"-"$d"*
  done
  for m in cu ct mu mh; do
    echo "$(cut -d' ' -f1 "$W/r.$m" | median) $(cut -d' ' -f2 "$W/r.$m" | median)" > "$W/m.$m"
  done
}

echo "# bench_alloc: $(date -u +%F) $(nproc) cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# PAIRS=$PAIRS RUNS=$RUNS (median; the four modes alternate within each round), heaptrack $(heaptrack --version 2>/dev/null | awk '{print $2}')"
hdr="| threads | depth | cuda untraced | cuda traced | vramtrace adds | malloc | malloc + heaptrack | heaptrack adds | adds ratio vt/ht | total ratio vt/ht |"
sep="|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
fmt='{ va = $4 - $3; ha = $6 - $5
  printf "| %d | %d | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %.2f | %.2f |\n", $1, $2, $3, $4, va, $5, $6, ha, (ha > 0 ? va / ha : 0), ($6 > 0 ? $4 / $6 : 0) }'
: > "$W/wall"; : > "$W/cpu"; : > "$W/size"
for t in $THREADS; do
  for d in $DEPTHS; do
    cells "$t" "$d"
    read -r cuw cuc < "$W/m.cu"; read -r ctw ctc < "$W/m.ct"
    read -r muw muc < "$W/m.mu"; read -r mhw mhc < "$W/m.mh"
    st=$("$stat" "$W/t-$t-$d.vtrace") || { echo "bench_alloc.sh: bad trace $W/t-$t-$d.vtrace: $st" >&2; exit 1; }
    echo "$t $d $cuw $ctw $muw $mhw" >> "$W/wall"
    echo "$t $d $cuc $ctc $muc $mhc" >> "$W/cpu"
    echo "| $t | $d | $(kv "$st" events) | $(kv "$st" bytes) | $(kv "$st" bytes_per_event) | $(kv "$st" depth_mean) | $(kv "$st" lost) |" >> "$W/size"
  done
done
echo
echo "Wall clock, ns per alloc+free pair per thread (median of $RUNS):"
echo
echo "$hdr"; echo "$sep"; awk "$fmt" "$W/wall"
echo
echo "Thread CPU time, ns per pair (the calling thread only; the recorder's writer thread and heaptrack_interpret run elsewhere):"
echo
echo "$hdr"; echo "$sep"; awk "$fmt" "$W/cpu"
echo
echo "Recorder traces (last traced run of each cell; events = allocs + frees):"
echo
echo "| threads | depth | events | file bytes | bytes/event | stack depth recorded | lost |"
echo "|---:|---:|---:|---:|---:|---:|---:|"
cat "$W/size"
echo
echo "# ns per alloc+free pair, per thread; 'adds' = traced minus untraced; ratio target: vramtrace <= 0.5 x heaptrack"
echo "# load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
