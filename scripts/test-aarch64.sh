#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The aarch64 (Grace Hopper) build, tested without the hardware: cross-compiles the
# recorder, the CLI and their tests (cmake/aarch64-linux-gnu.cmake) into build-arm64 and
# runs the tests labelled `aarch64` under qemu-user (tests/aarch64/qemu-run.sh). Run it
# after scripts/test.sh: aarch64_cross_read reads the traces recorded under the emulator
# with that build's own CLI too. docs/design-recorder.md, "Architectures".
set -euo pipefail
cd "$(dirname "$0")/.."
VT_WITH_AARCH64=1 bash scripts/setup-deps.sh
host=$(realpath -m "${VT_BUILD_DIR:-build}/bin/vramtrace")
[ -x "$host" ] || host=""
build=${VT_ARM_BUILD_DIR:-build-arm64}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake \
      -DVT_HOST_VRAMTRACE="$host" >/dev/null
cmake --build "$build" -j"$(nproc)"
cd "$build" && ctest --output-on-failure -j"$(nproc)" -L aarch64 "$@"
