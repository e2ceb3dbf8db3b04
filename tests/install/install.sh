#!/bin/sh
# SPDX-License-Identifier: MIT
# install.sh BUILD FAKEDIR - `cmake --install BUILD --prefix TMP/usr`: the CLI, the
# recorder, its Python hook, the man page, the bash completion and the docs land in the
# usual places, and the installed CLI traces a program (check_run.sh).
set -eu
build=$1 fakedir=$2
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vt-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
cmake --install "$build" --prefix "$tmp/usr" > "$tmp/log" || { cat "$tmp/log"; exit 1; }
fail=0
for f in bin/vramtrace lib/vramtrace/libvramtrace.so lib/vramtrace/vramtrace_py/sitecustomize.py \
         share/man/man1/vramtrace.1 share/bash-completion/completions/vramtrace \
         share/doc/vramtrace/README.md share/doc/vramtrace/docs/cli.md share/doc/vramtrace/docs/trace-format.md; do
    [ -f "$tmp/usr/$f" ] || { echo "FAIL: $f not installed"; fail=1; }
done
[ $fail = 0 ] || { find "$tmp/usr" -type f; exit 1; }
# Nothing of the tests or the workloads is installed.
extra=$(cd "$tmp/usr" && find . -type f | grep -E '/vt-|fakecuda|vt_gen|bench_' || true)
[ -z "$extra" ] || { echo "FAIL: test files installed: $extra"; exit 1; }
# The man page renders without a warning and names every command.
w=$(groff -man -ww -z "$tmp/usr/share/man/man1/vramtrace.1" 2>&1)
[ -z "$w" ] || { echo "FAIL: groff warns: $w"; exit 1; }
for c in $("$tmp/usr/bin/vramtrace" --help | sed -n 's/^  \([a-z][a-z-]*\)\( .*\)\{0,1\}$/\1/p' | grep -vx vramtrace); do
    grep -q "^\.SS $c\$" "$tmp/usr/share/man/man1/vramtrace.1" || { echo "FAIL: man page lacks $c"; exit 1; }
done
"$tmp/usr/bin/vramtrace" --version
sh "$here/check_run.sh" "$tmp/usr/bin/vramtrace" "$fakedir" "$tmp"
