#!/bin/sh
# SPDX-License-Identifier: MIT
# usage.sh - bad usage of timeline, flamegraph and export: exit status 2 and one line on
# stderr naming the problem; --help exits 0.
set -u
work=$(mktemp -d "${TMPDIR:-/tmp}/vt-html-usage.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
"$VT_GEN" simple "$work/s.vtrace" || exit 1
t="$work/s.vtrace"
cd "$work" || exit 1  # where pictures without -o land
status=0
expect() { # expect STATUS PATTERN CMD...
    want=$1 pat=$2
    shift 2
    "$VRAMTRACE" "$@" > "$work/out" 2> "$work/err"
    got=$?
    if [ $got != "$want" ] || ! grep -q -- "$pat" "$work/err" "$work/out"; then
        echo "FAIL: vramtrace $*: exit $got (want $want), output:"; cat "$work/out" "$work/err"; status=1
    else
        echo "ok: vramtrace $* -> $got"
    fi
}
expect 2 "missing TRACE" timeline -o "$work/x.html"
expect 2 "bad value 'cat' for --by" timeline "$t" -o "$work/x.html" --by cat
expect 2 "bad value 'png' for --format" timeline "$t" -o "$work/x.png" --format png
expect 2 "bad time" timeline "$t" -o "$work/x.html" --from soon
expect 2 "--to must be after --from" timeline "$t" -o "$work/x.html" --from 2s --to 1s
expect 2 "--buckets" timeline "$t" -o "$work/x.html" --buckets 0
expect 2 "--device" timeline "$t" -o "$work/x.html" --device gpu0
expect 2 "no device 7\|device 7 has no memory" timeline "$t" -o "$work/x.html" --device 7
expect 2 "cannot write" timeline "$t" -o "$work/no/such/dir/x.html"
expect 2 "missing.vtrace" timeline "$work/missing.vtrace" -o "$work/x.html"
expect 2 "nonexistent" timeline "$t" -o "$work/x.html" --rules "$work/nonexistent.rules"
expect 2 "nonexistent" export --format csv "$t" --rules "$work/nonexistent.rules"
expect 2 "bad value 'most' for --what" flamegraph "$t" -o "$work/x.html" --what most
expect 2 "--stacks" timeline "$t" -o "$work/x.html" --stacks many
expect 2 "--stacks" timeline "$t" -o "$work/x.html" --stacks 101
expect 0 "wrote" timeline "$t" -o "$work/n.html" --stacks 0
grep -q '"stacks"' "$work/n.html" && { echo "FAIL: --stacks 0 still wrote the sites"; status=1; }
expect 0 "wrote" flamegraph "$t" -o "$work/i.svg" --inverted
grep -q "inverted: the innermost frames at the root" "$work/i.svg" || { echo "FAIL: --inverted SVG does not say so"; status=1; }
expect 0 "wrote s.timeline.html" timeline "$t"
expect 0 "wrote s.flamegraph.svg" flamegraph "$t" --format svg
[ -s s.timeline.html ] && [ -s s.flamegraph.svg ] || { echo "FAIL: no default-named pictures"; status=1; }
expect 2 "missing --format" export "$t"
expect 2 "bad value 'json' for --format" export --format json "$t"
expect 2 "missing TRACE" export --format csv
expect 0 "usage: vramtrace timeline" timeline --help
expect 0 "usage: vramtrace flamegraph" flamegraph --help
expect 0 "usage: vramtrace export" export --help
expect 0 "wrote" timeline "$t" -o "$work/ok.svg"
expect 0 "wrote" flamegraph "$t" -o "$work/ok.html" --format svg
head -c 5 "$work/ok.html" | grep -q "<?xml" || { echo "FAIL: --format svg did not write SVG"; status=1; }
[ $status = 0 ] && echo "ok: usage"
exit $status
