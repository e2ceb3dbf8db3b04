#!/bin/sh
# SPDX-License-Identifier: MIT
# compare_outputs.sh - runs two vramtrace binaries over every trace of tests/data and says
# whether each output (report, top, diff, timeline, flamegraph, export, dump) is the same bytes.
#   sh tests/compare_outputs.sh OLD_VRAMTRACE NEW_VRAMTRACE [WORKDIR]
# Exit 0 when everything is identical, 1 (listing the differences) otherwise. For
# refactors that must not change behaviour (issue 15's re-layout).
set -u
old=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
new=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
work=${3:-$(mktemp -d)}
root=$(cd "$(dirname "$0")/.." && pwd)
export VRAMTRACE_NO_PROGRESS=1 CUDA_VISIBLE_DEVICES= VRAMTRACE_SYM_PATH="$root/tests/cat/sym"
mkdir -p "$work/old" "$work/new"
n=0
bad=0

# run NAME ARGS...: ARGS with {OUT} replaced by a per-binary output file
run() {
    name=$1
    shift
    for side in old new; do
        eval bin=\$$side
        out="$work/$side/$name.file"
        rm -f "$out"
        args=
        for a in "$@"; do
            case $a in *"{OUT}"*) a="$out${a#*\{OUT\}}" ;; esac
            args="$args '$a'"
        done
        (cd "$work" && eval "\"$bin\" $args") > "$work/$side/$name.stdout" 2> "$work/$side/$name.stderr"
        echo $? > "$work/$side/$name.exit"
        # the output paths differ by side; nothing else may
        for part in stdout stderr; do
            sed -i "s|$work/$side/|OUT/|g" "$work/$side/$name.$part"
        done
    done
    n=$((n + 1))
    for part in stdout stderr exit file; do
        if [ -e "$work/old/$name.$part" ] || [ -e "$work/new/$name.$part" ]; then
            if ! cmp -s "$work/old/$name.$part" "$work/new/$name.$part"; then
                echo "DIFFERS: $name ($part): $*"
                bad=$((bad + 1))
            fi
        fi
    done
}

traces=$(ls "$root"/tests/data/*.vtrace "$root"/tests/data/findings/*.vtrace)
prev=
for t in $traces; do
    b=$(basename "$t" .vtrace)
    run "$b.report" report "$t"
    run "$b.report_json" report --json "$t"
    run "$b.report_frames" report --frames 3 --top 5 "$t"
    for by in site function module kind category layer; do
        run "$b.top_$by" top "$t" --by "$by"
        run "$b.top_${by}_json" top "$t" --by "$by" --json
    done
    run "$b.top_end" top "$t" --by site --at end
    run "$b.check" check "$t" --max-peak 1GiB --max-leak 1MiB
    run "$b.dump" dump "$t"
    run "$b.timeline_svg" timeline "$t" -o "{OUT}.svg"
    run "$b.timeline_html" timeline "$t" -o "{OUT}.html"
    run "$b.timeline_site" timeline "$t" --by site -o "{OUT}.svg"
    run "$b.flame_html" flamegraph "$t" -o "{OUT}.html"
    run "$b.flame_svg" flamegraph "$t" --what allocated -o "{OUT}.svg"
    for f in folded folded-classes perfetto perfetto-json speedscope csv csv-stacks pprof; do
        run "$b.export_$f" export --format "$f" "$t" -o "{OUT}"
    done
    if [ -n "$prev" ]; then
        run "$b.diff" diff "$prev" "$t"
        run "$b.diff_json" diff --json "$prev" "$t"
    fi
    prev=$t
done
# the files the runs named {OUT}.svg and .html
for f in "$work"/old/*.file.*; do
    [ -e "$f" ] || continue
    g="$work/new/$(basename "$f")"
    n=$((n + 1))
    if ! cmp -s "$f" "$g"; then
        echo "DIFFERS: $(basename "$f")"
        bad=$((bad + 1))
    fi
done
echo "compare_outputs: $n outputs of $(echo "$traces" | wc -w) traces, $bad differ (in $work)"
[ "$bad" -eq 0 ]
