#!/bin/sh
# SPDX-License-Identifier: MIT
# gen_case.sh SCENARIO [N] - writes a trace with vt_gen (tests/cli/vt_gen.c; `big N`
# writes N events) and checks every picture and export of it (check_trace.sh).
set -u
work=$(mktemp -d "${TMPDIR:-/tmp}/vt-html-gen.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
if [ "$1" = big ]; then "$VT_GEN" big "$2" "$work/big.vtrace" || exit 1
else "$VT_GEN" "$1" "$work/$1.vtrace" || exit 1
fi
# Sites with no native frame (no stacks; Python frames only) have no location in a mapping.
case $1 in nostack|python) export VT_PPROF_MAPPED=0 ;; esac
sh "$SRC_DIR/tests/html/check_trace.sh" "$work/$1.vtrace"
