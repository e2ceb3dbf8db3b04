#!/bin/sh
# SPDX-License-Identifier: MIT
# vs_dwfl.sh TOOL FILE... - runs sym_vs_dwfl on each FILE at every byte, then on the
# system libraries TOOL itself loads (libc, libstdc++, libdw...) at every 101st byte:
# those have the aliases, local/global pairs and labels the test binaries lack.
set -u
tool=$1
shift
for f in "$@"; do
    "$tool" "$f" 1 || exit 1
done
for f in $(ldd "$tool" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }'); do
    "$tool" "$f" 101 || exit 1
done
