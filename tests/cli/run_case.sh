#!/bin/sh
# SPDX-License-Identifier: MIT
# run_case.sh CASE.sh - runs one CLI golden test (tests/cli/README.md).
#
# The case script runs in a fresh temporary folder with these in its environment:
#   $VRAMTRACE (the CLI), $VT_GEN (the trace generator), $VT_FUZZ, $SRC_DIR, $BUILD_DIR.
# Its stdout, stderr and exit status are compared with golden/NAME.stdout, .stderr and
# .exit after normalizing: the temporary folder -> $TMP, the source tree -> $SRC, the
# build tree -> $BUILD. VT_UPDATE_GOLDEN=1 writes the golden files instead.
# VT_GOLDEN_CROSS=1 (the aarch64 cross build) compares frames' offsets in their module
# as "0x...": the goldens are x86-64's, and the same source compiles to other offsets.
set -u
case_file=$1
name=$(basename "$case_file" .sh)
: "${GOLDEN_DIR:?}" "${VRAMTRACE:?}" "${VT_GEN:?}"
work=$(mktemp -d "${TMPDIR:-/tmp}/vt-cli-$name.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

(cd "$work" && sh -u "$case_file") > "$work/.stdout" 2> "$work/.stderr"
echo $? > "$work/.exit"

# Longest paths first: the work folder may sit inside the build tree.
normalize() {
    sed -e "s#$work#\$TMP#g" -e "s#$BUILD_DIR#\$BUILD#g" -e "s#$SRC_DIR#\$SRC#g" "$1"
}

cross() {
    if [ "${VT_GOLDEN_CROSS:-0}" = 1 ]; then sed -e 's/"offset": "0x[0-9a-f]*"/"offset": "0x..."/g' "$1"; else cat "$1"; fi
}

status=0
for part in stdout stderr exit; do
    normalize "$work/.$part" | cross /dev/stdin > "$work/.$part.norm"
    golden="$GOLDEN_DIR/$name.$part"
    if [ "${VT_UPDATE_GOLDEN:-0}" = 1 ]; then
        cp "$work/.$part.norm" "$golden"
        continue
    fi
    if [ ! -f "$golden" ]; then
        echo "missing golden file $golden (run with VT_UPDATE_GOLDEN=1 to create it)"
        cat "$work/.$part.norm"
        status=1
        continue
    fi
    if ! cross "$golden" | diff -u - "$work/.$part.norm"; then
        echo "FAIL: $name: $part differs from $golden"
        status=1
    fi
done
[ $status = 0 ] && echo "ok: $name"
exit $status
