#!/bin/sh
# SPDX-License-Identifier: MIT
# run_data.sh TRACE - a real trace from tests/data: `report`, `report --json` and
# `dump` must read it without error (exit 0, no "ends early" warning unless the trace
# name says "cut"); if golden/data-NAME.report exists, the report must match it (the
# first screen of each: the form a site takes on real PyTorch, JAX and CuPy stacks).
set -u
trace=$1
name=$(basename "$trace" .vtrace)
work=$(mktemp -d "${TMPDIR:-/tmp}/vt-data-$name.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
status=0
"$VRAMTRACE" report "$trace" > "$work/report.raw" 2> "$work/report.err" || { echo "report failed: $?"; status=1; }
# the trace's path holds the source tree's
sed -e "s#${SRC_DIR:-/nonexistent}#\$SRC#g" "$work/report.raw" > "$work/report"
"$VRAMTRACE" report --json "$trace" > "$work/json" 2>/dev/null || { echo "report --json failed"; status=1; }
"$VRAMTRACE" dump "$trace" > "$work/dump" 2>/dev/null || { echo "dump failed"; status=1; }
grep -q '"schema": "vramtrace-report/1"' "$work/json" || { echo "no schema in JSON"; status=1; }
case $name in
    *cut*) ;;
    *) if grep -q "ends early" "$work/report.err"; then cat "$work/report.err"; status=1; fi ;;
esac
golden="$GOLDEN_DIR/data-$name.report"
if [ "${VT_UPDATE_GOLDEN:-0}" = 1 ]; then
    cp "$work/report" "$golden"
elif [ -f "$golden" ] && ! diff -u "$golden" "$work/report"; then
    echo "FAIL: report differs from $golden"
    status=1
fi
[ $status = 0 ] && echo "ok: $name" && head -20 "$work/report"
exit $status
