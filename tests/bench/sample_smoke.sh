#!/bin/sh
# SPDX-License-Identifier: MIT
# sample_smoke.sh LIBVTSAMPLE PYTHON SAMPLE_REPORT - the GPU machine's sampling profiler
# (tests/gpu/vt_sample.c, sample_report.py) still finds where the time goes: a Python
# loop that spends 15 ms in each step tagged 1 and 5 ms in each tagged 2 must come out at
# about three times as many ms a step for tag 1 (2 to 5: a busy machine stretches both).
set -eu
lib=$1 py=$2 rep=$3
W=$(mktemp -d "${TMPDIR:-/tmp}/vt-sample-smoke.XXXXXX")
trap 'rm -rf "$W"' EXIT
VTSAMPLE_DIR=$W VTSAMPLE_CLOCK=wall VTSAMPLE_US=200 LD_PRELOAD=$lib "$py" -c '
import ctypes, time
tag = ctypes.CDLL(None).vtsample_tag
def spin(s):
    t = time.perf_counter()
    while time.perf_counter() - t < s:
        pass
for _ in range(20):
    tag(1); spin(0.015); tag(2); spin(0.005); tag(0)
'
f=$(ls -S "$W"/samples.*.txt | head -1)
"$py" "$rep" "$f" --us 200 --steps 20 --match python > "$W/report.txt"
line=$(grep '^tag 1 against tag 2' "$W/report.txt") || { cat "$W/report.txt"; exit 1; }
echo "$line"
echo "$line" | "$py" -c '
import re, sys
a, b = map(float, re.search(r"all ([0-9.]+) against ([0-9.]+)", sys.stdin.read()).groups())
sys.exit(0 if b > 0 and 2 <= a / b <= 5 else 1)'
