#!/bin/sh
# SPDX-License-Identifier: MIT
# Smoke test of the benchmark programs (ctest bench_smoke): they build, and they still
# work with the recorder and the analyzer. Quick, small sizes; measures nothing.
#   smoke.sh BIN_DIR [VRAMTRACE_CLI|-] [LIBVRAMTRACE|-] [BENCH_ALLOC|-]
# A "-" skips the part that needs that binary (CMake passes "-" for targets not built).
set -eu
bin=$1
cli=${2:--}
lib=${3:--}
alloc=${4:--}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vt-bench-smoke.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "bench_smoke: FAIL: $*" >&2; exit 1; }
# kv LINE KEY: the value of KEY in a key=value line
kv() { printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
expect() { [ "$(kv "$1" "$2")" = "$3" ] || fail "$4: $2=$(kv "$1" "$2"), expected $3 ($1)"; }

# 1. The generator writes a 10k-event trace that an independent reader accepts whole.
"$bin/gen_trace" -n 10000 -k 500 -l 2000 -o "$tmp/gen.vtrace" > "$tmp/gen.out"
st=$("$bin/bench_tracestat" "$tmp/gen.vtrace") || fail "bench_tracestat rejects the generated trace"
for k in events:10000 trailer:1 clean:1 truncated:0 unmatched_frees:0 dup_allocs:0 lost:0; do
  expect "$st" "${k%%:*}" "${k#*:}" "generated trace"
done
[ "$(kv "$st" depth_min)" -ge 20 ] && [ "$(kv "$st" depth_max)" -le 40 ] || fail "stack depths out of 20..40: $st"
"$bin/gen_trace" -n 10000 -k 500 -l 2000 -o "$tmp/gen2.vtrace" > /dev/null
cmp -s "$tmp/gen.vtrace" "$tmp/gen2.vtrace" || fail "gen_trace is not deterministic"

# 2. The replay alone (bench_replay) finds the peak the generator made.
rep=$("$bin/bench_replay" "$tmp/gen.vtrace" -r 2) || fail "bench_replay"
expect "$rep" peak "$(kv "$(tail -1 "$tmp/gen.out")" peak_bytes)" "bench_replay"
expect "$rep" events 10000 "bench_replay"

# 3. The analyzer reads it.
if [ "$cli" != - ]; then
  "$cli" report "$tmp/gen.vtrace" > "$tmp/report.txt" 2> "$tmp/report.err" || fail "vramtrace report: $(cat "$tmp/report.err")"
  [ -s "$tmp/report.txt" ] || fail "vramtrace report printed nothing"
  "$cli" top "$tmp/gen.vtrace" > "$tmp/top.txt" 2> "$tmp/top.err" || fail "vramtrace top: $(cat "$tmp/top.err")"
  [ -s "$tmp/top.txt" ] || fail "vramtrace top printed nothing"
fi

# 4. bench_alloc runs untraced and traced, and the traced run recorded every pair at the
#    requested depth without losing events.
if [ "$alloc" != - ]; then
  out=$("$alloc" -m cuda -d 16 -n 2000 -w 100) || fail "bench_alloc untraced"
  [ -n "$(kv "$out" ns_per_pair)" ] || fail "bench_alloc printed no ns_per_pair: $out"
  "$alloc" -m malloc -d 16 -n 2000 -w 100 > /dev/null || fail "bench_alloc -m malloc"
  if [ "$lib" != - ]; then
    LD_PRELOAD=$lib VRAMTRACE_OUTPUT="$tmp/alloc.vtrace" VRAMTRACE_DEPTH=16 \
      "$alloc" -m cuda -d 16 -n 2000 -w 100 > /dev/null || fail "bench_alloc traced"
    st=$("$bin/bench_tracestat" "$tmp/alloc.vtrace") || fail "bench_tracestat rejects the recorded trace"
    for k in events:4200 lost:0 trailer:1 truncated:0 unmatched_frees:0 depth_max:16; do
      expect "$st" "${k%%:*}" "${k#*:}" "recorded trace"
    done
  fi
fi
echo "bench_smoke: ok"
