#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs what vramtrace needs to build and test on Debian/Ubuntu. Idempotent: it asks
# apt only for what is missing, so it costs nothing on a machine that has everything.
set -euo pipefail
pkgs=(build-essential cmake pkg-config libunwind-dev libzstd-dev libdw-dev libelf-dev zstd)
# time: GNU time measures peak memory in tests/cli/cases/hostile_stacks.sh; clang: the
# libFuzzer build of tests/fuzz (scripts/fuzz.sh, the ctest fuzz_libfuzzer_short)
pkgs+=(time clang)
# pictures and exports (docs/pictures.md): pprof and Perfetto need protobuf-c and zlib; the
# tests in tests/html need python3, xmllint, protoc (to decode the Perfetto trace) and
# Chromium for the HTML reports (tests/html/browser.py)
pkgs+=(protobuf-c-compiler libprotobuf-c-dev zlib1g-dev python3 libxml2-utils protobuf-compiler)
pkgs+=(chromium chromium-driver)
# installing and packaging (packaging/, tests/install): groff renders the man page, dpkg-dev
# finds the .deb's dependencies, patchelf and python3-venv make and try the Python wheel
pkgs+=(groff-base dpkg-dev patchelf python3-venv)
if [ "${VT_WITH_HEAPTRACK:-0}" = 1 ]; then pkgs+=(heaptrack time); fi
# VT_WITH_AARCH64=1 (scripts/test-aarch64.sh, CI): the aarch64 cross build and qemu-user to
# run its tests (docs/design-recorder.md, "Architectures"). The arm64 libraries come
# through Debian's multiarch, so arm64 is added to dpkg's architectures first (once).
# libstdc++6:arm64: the CLI demangles C++ names with the C++ runtime's __cxa_demangle, and
# the cross compiler's own copy (/usr/aarch64-linux-gnu) is not where the guest looks.
if [ "${VT_WITH_AARCH64:-0}" = 1 ]; then
  pkgs+=(gcc-aarch64-linux-gnu g++-aarch64-linux-gnu qemu-user libc6-dev:arm64 libzstd-dev:arm64
         libunwind-dev:arm64 libdw-dev:arm64 libelf-dev:arm64 libprotobuf-c-dev:arm64 zlib1g-dev:arm64
         libstdc++6:arm64)
fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
if [ "${VT_WITH_AARCH64:-0}" = 1 ] && ! dpkg --print-foreign-architectures | grep -qx arm64; then
  echo "setup-deps: adding the arm64 architecture (multiarch)" >&2
  $sudo dpkg --add-architecture arm64
fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup-deps: installing ${missing[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if [ ! -f /usr/local/cuda/include/cuda.h ] && [ ! -f /usr/include/cuda.h ] && [ -z "${CUDA_HOME:-}" ]; then
  echo "setup-deps: no CUDA toolkit found (cuda.h): the recorder and its tests need it;" \
       "the analyzer builds without it" >&2
fi
