#!/bin/sh
# SPDX-License-Identifier: MIT
# qemu-run.sh PROGRAM [ARGS...] - runs a program of the aarch64 cross build under
# qemu-user, with no binfmt_misc registration needed (scripts/test-aarch64.sh).
#
# The guest gets this environment as it is, and the recorder as its LD_PRELOAD: taken
# from VT_EMU_PRELOAD (what the test scripts set instead of LD_PRELOAD in a cross build,
# so that no x86-64 process on the way, this shell included, tries to preload an aarch64
# library and says so on stderr), else from LD_PRELOAD. The guest's libraries are the
# arm64 multiarch packages (/lib/aarch64-linux-gnu, loader /lib/ld-linux-aarch64.so.1).
# Not `-L /usr/aarch64-linux-gnu`: Debian's libc6-arm64-cross there is another build of
# glibc than libc6:arm64, and one process must not mix the two.
pre=${VT_EMU_PRELOAD:-${LD_PRELOAD-}}
unset LD_PRELOAD VT_EMU_PRELOAD
if [ -n "$pre" ]; then
    exec qemu-aarch64 -E LD_PRELOAD="$pre" "$@"
fi
exec qemu-aarch64 "$@"
