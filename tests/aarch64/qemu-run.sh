#!/bin/sh
# SPDX-License-Identifier: MIT
# qemu-run.sh PROGRAM [ARGS...] - runs a program of the aarch64 cross build under
# qemu-user, with no binfmt_misc registration needed. The guest gets the environment as
# it is; LD_PRELOAD (the aarch64 recorder) is handed to the guest only, so that the
# x86-64 qemu process does not try to preload it. The guest's libraries are the arm64
# multiarch packages (/lib/aarch64-linux-gnu, its loader /lib/ld-linux-aarch64.so.1):
# Debian's libc6-arm64-cross under /usr/aarch64-linux-gnu is another build of glibc than
# libc6:arm64, and one process must not mix the two (so no -L).
pre=${LD_PRELOAD-}
unset LD_PRELOAD
if [ -n "$pre" ]; then
    exec qemu-aarch64 -E LD_PRELOAD="$pre" "$@"
fi
exec qemu-aarch64 "$@"
