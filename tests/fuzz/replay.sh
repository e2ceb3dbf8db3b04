#!/bin/sh
# SPDX-License-Identifier: MIT
# replay.sh - the seed corpus through every command under ASan+UBSan (vt_fuzz_afl): the
# traces of tests/data, every vt_gen scenario, the hostile traces (bomb, control bytes,
# devices past 127 and sizes near 2^64, many stacks, a cut chunk, a FIFO module), and
# the findings kept in tests/fuzz/found. Any sanitizer report or odd exit fails.
set -u
: "${VT_FUZZ_AFL:?}" "${VT_GEN:?}" "${VT_GEN_HOSTILE:?}" "${SRC_DIR:?}"
work=$(mktemp -d "${TMPDIR:-/tmp}/vt-fuzz-replay.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
cd "$work" || exit 2
mkdir seeds
for s in simple vmm oom leak batch-small pinned nvml multi-a python compat nostack truncated notrailer \
         corrupt-magic corrupt-zstd header-cut version2; do
    "$VT_GEN" "$s" "seeds/gen-$s.vtrace" || exit 2
done
for s in bomb ctrl ub cut; do "$VT_GEN_HOSTILE" "$s" "seeds/hostile-$s.vtrace" || exit 2; done
"$VT_GEN_HOSTILE" stacks 2000 seeds/hostile-stacks.vtrace || exit 2
mkfifo m.so && "$VT_GEN_HOSTILE" fifo "$PWD/m.so" seeds/hostile-fifo.vtrace || exit 2
set -- seeds "$SRC_DIR"/tests/data/*.vtrace
[ -d "$SRC_DIR/tests/fuzz/found" ] && set -- "$@" "$SRC_DIR/tests/fuzz/found"
ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 VT_FUZZ_ALL=1 \
    timeout 600 "$VT_FUZZ_AFL" "$@"
