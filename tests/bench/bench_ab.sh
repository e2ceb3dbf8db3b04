#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench_ab.sh - two builds against each other, in alternating rounds: the recorder
# (bench_alloc, traced), the replay (bench_replay) and the analyzer (vramtrace report).
#   tests/bench/bench_ab.sh OLD_BUILD NEW_BUILD
# Env: ROUNDS (default 7); PAIRS (default 1000000) bench_alloc pairs; DEPTH (default 32);
#      EVENTS (default 5000000) events of the gen_trace trace both analyzers read.
# Each round runs OLD then NEW (then NEW then OLD in the next round, so that a drift of
# the machine's speed hits both alike); prints the median of each and NEW/OLD.
set -eu
old=$1
new=$2
ROUNDS=${ROUNDS:-7}
PAIRS=${PAIRS:-1000000}
DEPTH=${DEPTH:-32}
EVENTS=${EVENTS:-5000000}
W=$(mktemp -d "${TMPDIR:-/tmp}/vt-bench-ab.XXXXXX")
trap 'rm -rf "$W"' EXIT
kv() { tr ' ' '\n' <<< "$1" | sed -n "s/^$2=//p"; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

"$old/bin/gen_trace" -n "$EVENTS" -o "$W/gen.vtrace" > /dev/null
alloc() {  # BUILD: traced ns per alloc+free pair
    local line
    line=$(env LD_PRELOAD="$1/lib/libvramtrace.so" VRAMTRACE_DEPTH="$DEPTH" VRAMTRACE_OUTPUT="$W/t.vtrace" \
        "$1/bin/bench_alloc" -m cuda -t 1 -d "$DEPTH" -n "$PAIRS" 2> /dev/null | grep '^mode=')
    kv "$line" ns_per_pair
}
replay() {  # BUILD: median thread-CPU ns per event of the replay
    "$1/bin/bench_replay" "$W/gen.vtrace" -r 3 | tr ' ' '\n' | sed -n "s/^median_ns=//p"
}
report() {  # BUILD: wall seconds of `vramtrace report`
    local t0 t1
    t0=$(date +%s.%N)
    VRAMTRACE_NO_PROGRESS=1 "$1/bin/vramtrace" report "$W/gen.vtrace" > /dev/null 2>&1
    t1=$(date +%s.%N)
    echo "$t1 - $t0" | bc -l
}
for ((i = 0; i < ROUNDS; i++)); do
    if ((i % 2)); then order="new old"; else order="old new"; fi
    for side in $order; do
        b=${!side}
        alloc "$b" >> "$W/alloc.$side"
        replay "$b" >> "$W/replay.$side"
        report "$b" >> "$W/report.$side"
    done
done
echo "# bench_ab: $(date -u '+%F %H:%M') UTC, $(nproc) cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# ROUNDS=$ROUNDS PAIRS=$PAIRS DEPTH=$DEPTH EVENTS=$EVENTS; OLD=$old NEW=$new"
echo "| benchmark | old (median) | new (median) | new/old |"
echo "|---|---:|---:|---:|"
for m in alloc replay report; do
    o=$(median < "$W/$m.old"); n=$(median < "$W/$m.new")
    case $m in
        alloc) what="bench_alloc, traced, ns per pair";;
        replay) what="bench_replay, ns per event";;
        report) what="vramtrace report, wall s";;
    esac
    echo "| $what | $o | $n | $(echo "scale=3; $n / $o" | bc -l) |"
done
echo "# every run: $(for m in alloc replay report; do echo "$m old: $(tr '\n' ' ' < "$W/$m.old")new: $(tr '\n' ' ' < "$W/$m.new")"; done)"
