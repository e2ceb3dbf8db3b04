#!/bin/sh
# SPDX-License-Identifier: MIT
# cross_read.sh EMU LIB FAKEDIR ARM_CLI HOST_CLI DIR PROGRAM... - a trace recorded on
# aarch64 reads on x86-64: each PROGRAM runs under EMU (tests/aarch64/qemu-run.sh) with the
# aarch64 recorder LIB against the fake driver; the trace must say arch=aarch64, and
# `dump`, `report`, `report --json`, `top --by function` and `diff` of it must print the
# same bytes from the aarch64 CLI (under EMU) and from HOST_CLI, the build machine's own.
# Exits 77 when HOST_CLI is not given (a cross build configured without it).
set -u
emu=$1 lib=$2 fakedir=$3 arm=$4 host=$5 dir=$6
shift 6
[ -n "$host" ] && [ -x "$host" ] || { echo "cross_read: no host vramtrace (VT_HOST_VRAMTRACE): skipped"; exit 77; }
rm -rf "$dir" && mkdir -p "$dir" || exit 2
fail=0
i=0
for prog in "$@"; do
    i=$((i + 1))
    t=$dir/t$i.vtrace
    extra=
    case $prog in *bench_alloc) extra="-b 2 -d 12 -n 256 -w 64" ;; esac
    # shellcheck disable=SC2086
    LD_LIBRARY_PATH=$fakedir VT_EMU_PRELOAD=$lib VRAMTRACE_OUTPUT=$t "$emu" "$prog" $extra > "$dir/t$i.out" 2>&1 ||
        { echo "cross_read: $prog failed under the emulator:"; cat "$dir/t$i.out"; fail=1; continue; }
    "$host" dump "$t" | head -1 | grep -q ' arch=aarch64$' || { echo "cross_read: $t does not say arch=aarch64"; fail=1; }
    for cmd in "dump" "report" "report --json" "top --by function" "diff $t"; do
        name=$(echo "$cmd" | tr -c 'a-z\n' '_' | cut -c1-20)
        # shellcheck disable=SC2086
        "$emu" "$arm" $cmd "$t" > "$dir/t$i.$name.arm" 2>&1; rc_arm=$?
        # shellcheck disable=SC2086
        "$host" $cmd "$t" > "$dir/t$i.$name.host" 2>&1; rc_host=$?
        if [ $rc_arm != $rc_host ] || ! cmp -s "$dir/t$i.$name.arm" "$dir/t$i.$name.host"; then
            echo "cross_read: '$cmd' of ${prog##*/}'s trace differs (exit $rc_arm on aarch64, $rc_host here):"
            diff "$dir/t$i.$name.arm" "$dir/t$i.$name.host" | head -10
            fail=1
        fi
    done
    echo "cross_read: ${prog##*/}: $(grep -c '^alloc ' "$dir/t$i.dump.arm") allocations; dump, report, json, top, diff agree"
done
exit $fail
