#!/bin/sh
# check.sh VRAMTRACE LIB FAKECUDA_DIR FAKE_TORCH PYTHON - the fake-framework test
# (docs/cli.md, "Frames"): train.py calls a stand-in libtorch_cuda.so (an ATen operator
# over a stand-in c10 caching allocator) through ctypes, under `vramtrace run`. The
# script's line must be within the first three lines of the top site in `report` and in
# the summary at exit, after the op's name; the native frames fold into one line.
set -u
vt=$1 lib=$2 fakedir=$3 torch=$4 py=$5
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/vt-fakefw.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
fail=0
say() { echo "fake_framework: FAIL: $*"; fail=1; }

cd "$work" || exit 2
VRAMTRACE_LIB=$lib LD_LIBRARY_PATH=$fakedir VT_FAKE_TORCH=$torch PYTHONDONTWRITEBYTECODE=1 \
    "$vt" run -o t.vtrace -- "$py" "$here/train.py" > run.out 2> run.err || { cat run.err; say "run failed"; exit 1; }
line=$(grep -n "the line the views must name" "$here/train.py" | cut -d: -f1)
want="forward (train.py:$line)"

# the summary: the first site line names the op and the script's line
sed -n '/top sites at the peak/{n;p;q}' run.err > sum.site
grep -q "aten::log_softmax" sum.site || say "summary: the top site does not name aten::log_softmax: $(cat sum.site)"
grep -qF "$want" sum.site || say "summary: the top site does not name $want: $(cat sum.site)"
lines=$(wc -l < run.err)
[ "$lines" -le 25 ] || say "summary: $lines lines (at most 25)"
"$py" -c 'import sys; sys.exit(any(len(l.rstrip("\n")) > 100 for l in open(sys.argv[1], encoding="utf-8")))' run.err ||
    say "summary: a line over 100 columns"

# report: the top site's first three lines
"$vt" report t.vtrace > rep.out 2> rep.err || say "report failed: $(cat rep.err)"
awk '/top sites at the peak/ { getline; getline; n = 3 } n > 0 { print; n-- }' rep.out > rep.site
grep -q "aten::log_softmax" rep.site || say "report: the top site's first line is not the op: $(cat rep.site)"
grep -qF "$want" rep.site || say "report: $want is not within the top site's first three lines: $(cat rep.site)"
grep -q "framework frames" rep.out || say "report: the native frames are not folded into one line"
# a backward op (autograd's thread, no Python frames): the op, then where it ran, no C++ frames
grep -A2 "aten::_log_softmax_backward_data" rep.out > bwd.site
grep -q "\[backward, on autograd's thread: no Python frames\]" bwd.site ||
    say "report: the backward site does not say it ran on autograd's thread: $(cat bwd.site)"
grep -q "at::" bwd.site && say "report: the backward site shows C++ frames: $(cat bwd.site)"
# --frames all still shows the native frames, the allocator included
"$vt" report --frames all t.vtrace > all.out 2>&1 || say "report --frames all failed"
grep -q "DeviceCachingAllocator" all.out || say "--frames all does not show the allocator's frame"
# the JSON keeps every frame with its class
"$vt" report --json t.vtrace > rep.json 2>&1 || say "report --json failed"
grep -q '"class": "plumbing"' rep.json || say "JSON: no frame classed plumbing"
grep -q '"class": "framework"' rep.json || say "JSON: no frame classed framework"
grep -q '"op": "aten::log_softmax"' rep.json || say "JSON: no site op"
# the driver pool: 92 MiB reserved at most, 32 MiB of it freed and kept
"$vt" dump t.vtrace | grep -q "^pool .*reserved=96468992 used=62914560" ||
    say "no pool sample of 92 MiB reserved, 60 MiB used: $("$vt" dump t.vtrace | grep '^pool')"
grep -q "driver pools: 92.0 MiB reserved, of it 32.0 MiB freed and kept (pool slack)" rep.out ||
    say "report: no pool slack line"
grep -q "pool slack" rep.out || say "report: no pool slack row"
# timeline --by site names the top site as report does: the op, then the script's line
"$vt" timeline t.vtrace --by site -o t.html 2> /dev/null || say "timeline --by site failed"
grep -o '"name":"[^"]*"' t.html | head -1 > tl.site
grep -q "aten::log_softmax" tl.site || say "timeline --by site: the top series is not named by its op: $(cat tl.site)"
grep -qF "$want" tl.site || say "timeline --by site: the top series does not name $want: $(cat tl.site)"
# the exports keep every frame, with its class
"$vt" export --format folded-classes t.vtrace > fc.txt 2>&1 || say "export folded-classes failed"
grep -qF "${want}_[j]" fc.txt || say "folded-classes: the script's frame is not marked user (_[j])"
grep -q "_\[k\]" fc.txt || say "folded-classes: no frame marked plumbing (_[k])"
"$vt" export --format speedscope t.vtrace > ss.json 2>&1 || say "export speedscope failed"
grep -q '"class":"framework"' ss.json || say "speedscope: no frame classed framework"
"$vt" export --format csv-stacks t.vtrace > st.csv 2>&1 || say "export csv-stacks failed"
grep -q ",plumbing$" st.csv || say "csv-stacks: no frame classed plumbing"
grep -q "^[0-9]*,[0-9]*,python,forward,.*train.py,$line,python,user$" st.csv ||
    say "csv-stacks: no row of the script's line classed user"
if command -v protoc > /dev/null 2>&1 && "$vt" export --format perfetto t.vtrace -o t.pftrace 2> /dev/null; then
    protoc --decode=perfetto.protos.Trace --proto_path="$here/../../../analyzer/out" perfetto_trace.proto \
        < t.pftrace > pf.txt || say "perfetto: protoc cannot decode it"
    grep -q 'kind_str: "framework"' pf.txt || say "perfetto: no frame classed framework"
    grep -q 'kind_str: "plumbing"' pf.txt || say "perfetto: no frame classed plumbing"
fi

if [ $fail != 0 ]; then
    echo "--- summary"; cat run.err; echo "--- report"; cat rep.out
    exit 1
fi
echo "fake_framework: ok"
