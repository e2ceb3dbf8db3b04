#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds everything and runs every test that needs no GPU (what CI runs): the native
# suite (ctest; arguments go to it), then the aarch64 build's tests under qemu-user
# (scripts/test-aarch64.sh; VT_NO_AARCH64=1 leaves them out).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-deps.sh
build=${VT_BUILD_DIR:-build}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j"$(nproc)"
(cd "$build" && ctest --output-on-failure -j"$(nproc)" "$@")
[ "${VT_NO_AARCH64:-0}" = 1 ] || bash scripts/test-aarch64.sh
