#!/bin/sh
# SPDX-License-Identifier: MIT
# split_debug.sh MODE LIB DEBUGROOT - post-processes a built shared object in place.
#   separate: debug info moves to DEBUGROOT/.build-id/xx/yyyy.debug; LIB is stripped of
#             everything (.symtab too), as distributions ship libraries.
#   mini:     LIB is stripped and given a .gnu_debugdata section (xz-compressed symbol
#             table of its local functions: "MiniDebugInfo", as Fedora ships).
set -eu
mode=$1 lib=$2 root=$3
id=$(readelf -n "$lib" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
[ -n "$id" ] || { echo "split_debug.sh: $lib has no build-id" >&2; exit 1; }
tmp="$lib.split.d"
rm -rf "$tmp"
mkdir -p "$tmp"
case $mode in
separate)
    dir="$root/.build-id/$(echo "$id" | cut -c1-2)"
    mkdir -p "$dir"
    objcopy --only-keep-debug "$lib" "$dir/$(echo "$id" | cut -c3-).debug"
    objcopy --strip-all "$lib"
    ;;
mini)
    nm -D "$lib" --format=posix --defined-only | awk '{ print $1 }' | sort > "$tmp/dynsyms"
    nm "$lib" --format=posix --defined-only | awk '$2 == "T" || $2 == "t" { print $1 }' | sort > "$tmp/funcsyms"
    comm -13 "$tmp/dynsyms" "$tmp/funcsyms" > "$tmp/keep"
    objcopy --only-keep-debug "$lib" "$tmp/debug"
    objcopy -S --remove-section .gdb_index --remove-section .comment \
        --keep-symbols="$tmp/keep" "$tmp/debug" "$tmp/mini"
    objcopy --strip-all --remove-section .comment "$lib"
    xz -f "$tmp/mini"
    objcopy --add-section .gnu_debugdata="$tmp/mini.xz" "$lib"
    ;;
*)
    echo "split_debug.sh: unknown mode $mode" >&2; exit 1 ;;
esac
rm -rf "$tmp"
