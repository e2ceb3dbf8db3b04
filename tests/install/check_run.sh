#!/bin/sh
# SPDX-License-Identifier: MIT
# check_run.sh VRAMTRACE FAKEDIR DIR [PYTHON] - traces alloc.py with `VRAMTRACE run` (an
# installed or packaged CLI, which must find its own recorder) against the fake driver,
# in DIR, and checks the trace: peak 8 MiB, 3 MiB live at the end.
set -eu
vt=$1 fakedir=$2 dir=$3 py=${4:-python3}
here=$(cd "$(dirname "$0")" && pwd)
cd "$dir"
rm -f run.vtrace
LD_LIBRARY_PATH=$fakedir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
    $vt run -o run.vtrace --no-summary -- "$py" "$here/alloc.py" > run.out 2> run.err || {
    echo "FAIL: $vt run failed:"; cat run.out run.err; exit 1; }
grep -q "alloc.py done" run.out || { echo "FAIL: alloc.py did not run"; cat run.out run.err; exit 1; }
grep -q "trace written to run.vtrace" run.err || { echo "FAIL: no trace"; cat run.err; exit 1; }
$vt check run.vtrace --json --max-peak 8MiB --max-leak 3MiB > check.json || {
    echo "FAIL: check"; cat check.json; exit 1; }
grep -q '"peak_bytes": 8388608' check.json && grep -q '"leak_bytes": 3145728' check.json || {
    echo "FAIL: wrong figures"; cat check.json; exit 1; }
echo "ok: $vt traced alloc.py (peak 8 MiB, 3 MiB live at the end)"
