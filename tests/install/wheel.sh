#!/bin/sh
# SPDX-License-Identifier: MIT
# wheel.sh BUILD VERSION FAKEDIR [PYTHON] - builds the Python wheel (packaging/wheel.py),
# installs it into a fresh virtual environment with nothing else (pip --no-index), and
# checks that its CLI and recorder load only their own copies of non-system libraries
# and that `vramtrace run` and `python -m vramtrace run` trace a program (check_run.sh).
set -eu
build=$1 version=$2 fakedir=$3 py=${4:-python3}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vt-wheel.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
"$py" "$here/../../packaging/wheel.py" --build "$build" --version "$version" --out "$tmp/dist" > "$tmp/log" 2>&1 ||
    { cat "$tmp/log"; exit 1; }
whl=$(ls "$tmp"/dist/vramtrace-"$version"-py3-none-manylinux_2_*_*.whl)
echo "built $(basename "$whl")"
"$py" -m venv "$tmp/venv" > "$tmp/log" 2>&1 || { cat "$tmp/log"; exit 1; }
"$tmp/venv/bin/python" -m pip install -q --no-index --no-deps "$whl" > "$tmp/log" 2>&1 || { cat "$tmp/log"; exit 1; }
pkg=$("$tmp/venv/bin/python" -c 'import os, vramtrace; print(os.path.dirname(vramtrace.__file__))')
for f in "$pkg/bin/vramtrace" "$pkg/lib/libvramtrace.so"; do
    # Every library outside glibc and the C++ runtime resolves inside the package.
    bad=$(ldd "$f" | grep -v -E "^\s*(linux-vdso|/lib64/ld-linux)|=> $pkg/(bin/\.\./)?lib/|lib(c|m|dl|pthread|rt|stdc\+\+|gcc_s)\.so" || true)
    [ -z "$bad" ] || { echo "FAIL: $f loads from outside the package:"; echo "$bad"; exit 1; }
done
"$tmp/venv/bin/vramtrace" --version
# A fresh environment: nothing of the build tree on the paths.
unset VRAMTRACE_LIB
sh "$here/check_run.sh" "$tmp/venv/bin/vramtrace" "$fakedir" "$tmp" "$tmp/venv/bin/python"
sh "$here/check_run.sh" "$tmp/venv/bin/python -m vramtrace" "$fakedir" "$tmp" "$tmp/venv/bin/python"
