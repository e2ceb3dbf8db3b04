#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# fuzz.sh [SECONDS] [libFuzzer options...] - builds the libFuzzer target of tests/fuzz
# with clang (ASan + UBSan) in $VT_FUZZ_BUILD (default build-fuzz), makes a seed corpus
# (tests/data's traces, every vt_gen scenario, the hostile traces of vt_gen_hostile) and
# fuzzes every command for SECONDS (default 60) on one core. Exit 0 when no crash, leak
# of the sanitizers, timeout or out-of-memory was found; the findings are in
# $VT_FUZZ_BUILD/fuzz-out/artifacts. docs/fuzzing.md says more.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
shift || true
build=${VT_FUZZ_BUILD:-build-fuzz}
cc=${VT_FUZZ_CC:-clang}
command -v "$cc" >/dev/null || { echo "fuzz.sh: $cc not found (scripts/setup-deps.sh installs clang)" >&2; exit 2; }
if [ ! -f "$build/CMakeCache.txt" ]; then
  CC="$cc" CXX="${cc/clang/clang++}" cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
cmake --build "$build" -j"$(nproc)" --target vt_fuzz_lf vt_gen vt_gen_hostile >/dev/null
out=$build/fuzz-out
mkdir -p "$out/seeds" "$out/corpus" "$out/artifacts"
for s in simple vmm oom leak batch-small pinned nvml multi-a python compat nostack truncated notrailer; do
  "$build/bin/vt_gen" "$s" "$out/seeds/gen-$s.vtrace"
done
for s in bomb ctrl ub; do "$build/bin/vt_gen_hostile" "$s" "$out/seeds/hostile-$s.vtrace"; done
"$build/bin/vt_gen_hostile" stacks 50 "$out/seeds/hostile-stacks.vtrace"
cp tests/data/*.vtrace "$out/seeds/"
# -timeout: one input through every command takes well under a second; -rss_limit_mb:
# a trace must not make the analyzer grow past this; -max_len: traces that large only
# slow the search down. Leaks on error paths are not looked for (ASAN_OPTIONS).
rc=0
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0} \
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
"$build/bin/vt_fuzz_lf" -max_total_time="$secs" -timeout=30 -rss_limit_mb=2048 -max_len=16384 \
  -close_fd_mask=3 -print_final_stats=1 -artifact_prefix="$out/artifacts/" "$@" \
  "$out/corpus" "$out/seeds" > "$out/fuzz.log" 2>&1 || rc=$?
grep -E "^(#[0-9]+ +DONE|stat::|==[0-9]+==ERROR|SUMMARY)" "$out/fuzz.log" || tail -n 20 "$out/fuzz.log"
found=$(find "$out/artifacts" -type f | wc -l)
echo "fuzz.sh: ${secs}s, exit $rc, $found finding(s) in $out/artifacts"
[ "$rc" = 0 ] && [ "$found" = 0 ]
