#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds everything and runs every test that needs no GPU (what CI runs).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-deps.sh
build=${VT_BUILD_DIR:-build}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j"$(nproc)"
cd "$build" && ctest --output-on-failure -j"$(nproc)" "$@"
