#!/bin/sh
# SPDX-License-Identifier: MIT
# golden.sh CASE VRAMTRACE VT_LAYERGEN DIR - runs one layer case on traces written by
# vt_layergen and compares its output with golden/CASE.out (VT_UPDATE_GOLDEN=1 rewrites
# it). Only the layer sections of report and diff are compared, so that other sections
# may change without touching these files.
set -u
case=$1 vt=$2 gen=$3 dir=$4
src=$(cd "$(dirname "$0")" && pwd)
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 2
"$gen" 128 s128.vtrace && "$gen" 512 s512.vtrace || exit 2
case $case in
top_layer) "$vt" top --by layer s512.vtrace ;;
top_layer_end) "$vt" top --by layer --at end --top 3 s512.vtrace ;;
top_layer_json) "$vt" top --by layer --json s512.vtrace ;;
report_layer) "$vt" report s512.vtrace | sed -n '/by layer at the peak/,/top sites at the peak/p' ;;
diff_layer) "$vt" diff s128.vtrace s512.vtrace | sed -n '/^by layer at the peak/,/^$/p' ;;
diff_layer_json) "$vt" diff --json s128.vtrace s512.vtrace | sed -n '/"by_layer"/,/^  \]/p' ;;
*) echo "golden.sh: unknown case $case" >&2; exit 2 ;;
esac > out.txt 2> err.txt
rc=$?
[ $rc = 0 ] || { echo "golden.sh: $case exited $rc"; cat err.txt; exit 1; }
[ -s err.txt ] && { echo "golden.sh: $case wrote to stderr:"; cat err.txt; exit 1; }
[ -s out.txt ] || { echo "golden.sh: $case printed nothing"; exit 1; }
if [ "${VT_UPDATE_GOLDEN:-0}" = 1 ]; then
    cp out.txt "$src/golden/$case.out"
    echo "golden.sh: $case: golden/$case.out rewritten"
    exit 0
fi
diff -u "$src/golden/$case.out" out.txt || { echo "golden.sh: $case differs from golden/$case.out"; exit 1; }
echo "golden.sh: $case: ok"
