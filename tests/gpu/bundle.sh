#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Prepares .gpu/ (git-ignored) for the GPU machine, which has no libunwind, libdw or protobuf-c and
# no apt: builds here (Debian 12 binaries run on its Ubuntu 24.04) and copies the
# binaries with the libraries it lacks. Pass `.gpu` in the device tool's carry list.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${VT_BUILD_DIR:-build-gpu}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j"$(nproc)" >/dev/null
rm -rf .gpu && mkdir -p .gpu/bin .gpu/lib .gpu/fakecuda
cp -a "$build"/bin/* .gpu/bin/
cp -a "$build"/lib/*.so* .gpu/lib/ 2>/dev/null || true
cp -a "$build"/lib/vramtrace_py .gpu/lib/  # the --torch-modules start-up hook
libdir=/usr/lib/x86_64-linux-gnu
for l in libunwind.so.8 libunwind-x86_64.so.8 libdw.so.1 libprotobuf-c.so.1; do
  cp -L "$libdir/$l" .gpu/lib/
done
du -sh .gpu
