# SPDX-License-Identifier: MIT
# Cross-compiling for aarch64 Linux (Grace Hopper) on a Debian x86-64 machine, with
# Debian's gcc-aarch64-linux-gnu and the arm64 -dev packages installed through multiarch
# (scripts/setup-deps.sh --aarch64). Tests run under qemu-user: scripts/test-aarch64.sh.
#   cmake -S . -B build-arm64 -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
# The arm64 libraries and their .pc files are where multiarch puts them.
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig)
set(ENV{PKG_CONFIG_SYSROOT_DIR} "")
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
# no CUDA compiler: nvcc targets the build machine; the workloads are not cross-built
set(CMAKE_CUDA_COMPILER OFF CACHE FILEPATH "no nvcc in the aarch64 cross build")
# Programs the build runs as tests get this prefix (ctest adds it to target commands;
# the test scripts read VT_EMU, see scripts/test-aarch64.sh).
set(CMAKE_CROSSCOMPILING_EMULATOR ${CMAKE_CURRENT_LIST_DIR}/../tests/aarch64/qemu-run.sh)
