#!/bin/sh
# SPDX-License-Identifier: MIT
# deb.sh BUILD FAKEDIR - CPack's .deb: its control fields and files, and the CLI unpacked
# from it traces a program (check_run.sh).
set -eu
build=$1 fakedir=$2
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vt-deb.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
(cd "$tmp" && cpack --config "$build/CPackConfig.cmake" -G DEB -B "$tmp") > "$tmp/log" 2>&1 || { cat "$tmp/log"; exit 1; }
deb=$(ls "$tmp"/vramtrace_*.deb)
dpkg-deb -f "$deb" Package Depends Section
dpkg-deb -f "$deb" Depends | grep -q libzstd1 || { echo "FAIL: no library dependencies"; exit 1; }
dpkg-deb -c "$deb" | awk '{print $6}' > "$tmp/files"
for f in ./usr/bin/vramtrace ./usr/lib/vramtrace/libvramtrace.so ./usr/share/man/man1/vramtrace.1 \
         ./usr/share/bash-completion/completions/vramtrace ./usr/share/doc/vramtrace/README.md; do
    grep -qx "$f" "$tmp/files" || { echo "FAIL: $f not in the package"; cat "$tmp/files"; exit 1; }
done
dpkg-deb -x "$deb" "$tmp/root"
sh "$here/check_run.sh" "$tmp/root/usr/bin/vramtrace" "$fakedir" "$tmp"
