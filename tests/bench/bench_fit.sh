#!/usr/bin/env bash
# `vramtrace fit` against `vramtrace report` on gen_trace's synthetic training trace
# (docs/benchmarks.md, "fit"). The issue's bar: fit takes at most twice report's time.
#   tests/bench/bench_fit.sh [BUILD_DIR]               (default: build)
# Env: EVENTS (default 50000000) alloc+free events; RUNS (default 3) alternating rounds,
#      the medians reported; WORK (default: a new folder under $TMPDIR or /tmp), KEEP=1
#      keeps it, REUSE=1 reuses its trace.
# gen_trace's stacks pass through libc10_cuda.so, which the default rules take for
# PyTorch's caching allocator (a trace fit refuses): both commands run with
# --no-default-rules, so that they do the same category work.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
B=$(cd "${1:-$root/build}" && pwd)
EVENTS=${EVENTS:-50000000}
RUNS=${RUNS:-3}
vt=$B/bin/vramtrace
for f in "$vt" "$B/bin/gen_trace"; do
  [ -x "$f" ] || { echo "bench_fit.sh: $f missing: build first" >&2; exit 1; }
done
command -v /usr/bin/time > /dev/null || { echo "bench_fit.sh: /usr/bin/time missing (apt-get install time)" >&2; exit 1; }
if [ -n "${WORK:-}" ]; then W=$WORK; mkdir -p "$W"; else W=$(mktemp -d "${TMPDIR:-/tmp}/vt-bench-fit.XXXXXX"); fi
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$W"' EXIT
export VRAMTRACE_NO_PROGRESS=1
trace=$W/fit-$EVENTS.vtrace
if [ "${REUSE:-0}" != 1 ] || [ ! -s "$trace" ]; then
  "$B/bin/gen_trace" -n "$EVENTS" -o "$trace" > "$W/gen.out"
fi
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
once() {
  local name=$1; shift
  /usr/bin/time -f "%e %U %S %M" -o "$W/time" "$@" > "$W/$name.out" 2> "$W/$name.err" \
    || [ $? -eq 1 ] || { echo "bench_fit.sh: $name failed" >&2; tail -3 "$W/$name.err" >&2; exit 1; }
  read -r w u s m < "$W/time"
  echo "$w $(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }') $m" >> "$W/r.$name"
}
for ((i = 0; i < RUNS; i++)); do
  once report "$vt" report --no-default-rules "$trace"
  once fit "$vt" fit --no-default-rules "$trace"
done
printf '%-8s %10s %10s %10s\n' command wall_s cpu_s rss_mib
for n in report fit; do
  w=$(awk '{ print $1 }' "$W/r.$n" | median); c=$(awk '{ print $2 }' "$W/r.$n" | median)
  m=$(awk '{ print $3 }' "$W/r.$n" | sort -g | tail -1)
  printf '%-8s %10s %10s %10.0f\n' "$n" "$w" "$c" "$(awk -v m="$m" 'BEGIN { print m / 1024 }')"
  eval "w_$n=$w; c_$n=$c"
done
awk -v a="$w_fit" -v b="$w_report" -v c="$c_fit" -v d="$c_report" -v e="$EVENTS" -v r="$RUNS" \
  'BEGIN { printf "fit / report: %.2fx wall, %.2fx cpu (%d events, median of %d, %s)\n", a / b, c / d, e, r, strftime("%Y-%m-%d %H:%M UTC", systime(), 1) }'
