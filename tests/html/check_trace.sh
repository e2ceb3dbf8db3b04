#!/bin/sh
# SPDX-License-Identifier: MIT
# check_trace.sh TRACE - every picture and export of one trace, each checked against the
# figures of `vramtrace report --json` (validate.py; pprof_check decodes the pprof):
# timelines by category, site, kind and layer, over the whole trace and up to its peak, as HTML
# and SVG; flame graphs of bytes at the peak, allocated and leaked; the eight exports.
# Env: VRAMTRACE, PYTHON, SRC_DIR, PPROF_CHECK (empty: no pprof in this build).
set -u
trace=$1
name=$(basename "$trace" .vtrace)
work=$(mktemp -d "${TMPDIR:-/tmp}/vt-html-$name.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
status=0
# the checks are gathered and validate.py runs once at the end (Python starts slowly)
checks=""
validate() { checks="$checks -- $*"; }
# vt CMD... : vramtrace must succeed and say nothing about series that do not add up
vt() {
    if ! "$VRAMTRACE" "$@" 2> "$work/err" > "$work/stdout"; then
        echo "FAIL: vramtrace $*: exit status not 0"; cat "$work/err"; status=1; return 1
    fi
    if grep -q "do not add up" "$work/err"; then echo "FAIL: vramtrace $*"; cat "$work/err"; status=1; fi
    return 0
}

vt report --json "$trace" && mv "$work/stdout" "$work/report.json" || exit 1
set -- $("$PYTHON" -c '
import json, sys
r = json.load(open(sys.argv[1]))
print(r["peak_bytes"], sum(k["total_bytes"] for k in r["by_kind"]), r["live_at_end_bytes"], r["peak_time_ns"])
' "$work/report.json")
peak=$1 alloc=$2 leak=$3 peak_t=$4
echo "$name: peak $peak at ${peak_t}ns, allocated $alloc, leaked $leak"
rep="$work/report.json"

vt timeline "$trace" -o "$work/t.html" && validate timeline-html "$work/t.html" by=category
vt timeline "$trace" -o "$work/ts.html" --by site --top 5 && validate timeline-html "$work/ts.html"
vt timeline "$trace" -o "$work/tk.html" --by kind --buckets 300 && validate timeline-html "$work/tk.html"
vt timeline "$trace" -o "$work/tl.html" --by layer --top 3 && validate timeline-html "$work/tl.html"
vt timeline "$trace" -o "$work/tr.html" --to "$((peak_t + 1))ns" --buckets 500 &&
    validate timeline-html "$work/tr.html" range=1 contains_peak=1
vt timeline "$trace" -o "$work/t.svg" && validate svg "$work/t.svg" expect=timeline
vt timeline "$trace" -o "$work/ts.svg" --by site && validate svg "$work/ts.svg" expect=timeline

vt flamegraph "$trace" -o "$work/f.html" && validate flame-html "$work/f.html" sum="$peak"
vt flamegraph "$trace" -o "$work/fa.html" --what allocated && validate flame-html "$work/fa.html" sum="$alloc"
vt flamegraph "$trace" -o "$work/fl.html" --what leaked && validate flame-html "$work/fl.html" sum="$leak"
vt flamegraph "$trace" -o "$work/f.svg" && validate svg "$work/f.svg" expect=flame sum="$peak"
vt flamegraph "$trace" -o "$work/ff.svg" --flame --what allocated && validate svg "$work/ff.svg" expect=flame sum="$alloc"

vt export --format folded "$trace" -o "$work/p.folded" && validate folded "$work/p.folded" sum="$peak"
vt export --format folded --what allocated "$trace" -o "$work/a.folded" && validate folded "$work/a.folded" sum="$alloc"
vt export --format folded --what leaked "$trace" > /dev/null && mv "$work/stdout" "$work/l.folded" &&
    validate folded "$work/l.folded" sum="$leak"
if [ -n "${PPROF_CHECK:-}" ]; then
    # a Mapping with its build-id for every module (distinct path and load address) the
    # trace has a build-id of; dump lists them (skipped on big traces: dump prints every event)
    ids=""
    if [ "$(wc -c < "$trace")" -lt 4000000 ]; then
        ids="build_ids=$("$VRAMTRACE" dump "$trace" 2> /dev/null | sed -n 's/^module bias=\([^ ]*\) size=[^ ]* build_id=[0-9a-f][0-9a-f]* path=/\1 /p' |
            sort -u | wc -l)"
    fi
    vt export --format pprof "$trace" -o "$work/p.pb.gz" &&
        { "$PPROF_CHECK" "$work/p.pb.gz" peak_space="$peak" alloc_space="$alloc" leak_space="$leak" \
              "mapped_locations>=${VT_PPROF_MAPPED:-1}" $ids > "$work/v" 2>&1 ||
          { cat "$work/v"; status=1; }; }
    # where Go is installed (not in CI), pprof itself must read it too
    if command -v go > /dev/null 2>&1 && [ -f "$work/p.pb.gz" ]; then
        HOME="$work" go tool pprof -top "$work/p.pb.gz" > "$work/pp" 2>&1 && grep -q "^Type: peak_space" "$work/pp" ||
            { echo "FAIL: go tool pprof cannot read the profile"; cat "$work/pp"; status=1; }
    fi
else
    echo "note: this build has no pprof output; pprof not checked"
fi
vt export --format folded-classes "$trace" -o "$work/c.folded" && validate folded-classes "$work/c.folded" sum="$peak"
vt export --format perfetto-json "$trace" -o "$work/p.json" && validate perfetto-json "$work/p.json"
if [ -n "${PPROF_CHECK:-}" ] && command -v "${PROTOC:-protoc}" > /dev/null 2>&1; then
    vt export --format perfetto "$trace" -o "$work/p.pftrace" &&
        validate perfetto "$work/p.pftrace" proto="$SRC_DIR/analyzer/out/perfetto_trace.proto" \
            protoc="$(command -v "${PROTOC:-protoc}")" alloc="$alloc" leak="$leak" events="$work/e.csv"
else
    echo "note: no protobuf-c build or no protoc (Debian's protobuf-compiler): Perfetto protobuf not checked"
fi
vt export --format speedscope "$trace" -o "$work/s.json" && validate speedscope "$work/s.json" sums="$peak,$alloc,$leak"
vt export --format csv "$trace" -o "$work/e.csv" && validate csv "$work/e.csv"
vt export --format csv-stacks "$trace" -o "$work/s.csv" && validate csv-stacks "$work/s.csv" events="$work/e.csv"

# shellcheck disable=SC2086 (word splitting wanted: paths are mktemp's, without blanks)
"$PYTHON" "$SRC_DIR/tests/html/validate.py" "$rep" ${checks# -- } > "$work/v" 2>&1 || { cat "$work/v"; status=1; }
grep -c "^ok:" "$work/v" | sed 's/^/checks passed: /'

if command -v xmllint > /dev/null 2>&1; then
    xmllint --noout "$work/t.svg" "$work/f.svg" "$work/ff.svg" || { echo "FAIL: xmllint"; status=1; }
fi
[ $status = 0 ] && echo "ok: $name: every picture and export checks out"
exit $status
