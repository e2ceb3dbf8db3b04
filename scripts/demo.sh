#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The main job. With a GPU: build, trace the bundled BERT workload and report it.
# Without one: report a bundled real trace recorded on an NVIDIA H200.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-deps.sh
build=${VT_BUILD_DIR:-build}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j"$(nproc)" > "$build/build.log" 2>&1 || { tail -30 "$build/build.log"; exit 1; }
vt="$build/bin/vramtrace"
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1 && [ -x "$build/bin/vt-bert" ]; then
  out=${TMPDIR:-/tmp}/vramtrace-demo.vtrace
  "$vt" run -o "$out" -- "$build/bin/vt-bert" --model base --batch 16 --seq 128 --steps 10
  "$vt" report "$out"
else
  echo "demo: no GPU here; reporting the bundled H200 trace tests/data/bert-tiny-h200.vtrace" >&2
  # its binary is not here: its symbols are (tests/data/README.md)
  VRAMTRACE_SYM_PATH=tests/cat/sym "$vt" report tests/data/bert-tiny-h200.vtrace
fi
