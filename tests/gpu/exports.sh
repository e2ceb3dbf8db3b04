#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every format of `vramtrace export` on a real PyTorch trace (issues 16 and 20; docs/pictures.md,
# "Exports").  bash tests/gpu/exports.sh
# Uses the bundle in .gpu/ and the machine's python3 (torch, transformers). Traces HF GPT-2
# (frames_train.py gpt2: 124M, batch 8, seq 1024, AdamW, 2 steps) with `run --per-tensor`,
# about a minute of GPU time, then exports every format and checks them against
# `report --json` with tests/html/validate.py (the Perfetto protobuf only where protoc is
# installed; else run the printed command on the dev VM with the files from $OUT). Checks:
#   validate   every format's own checks (sums to the peak, allocated and leaked; the
#              Perfetto category tracks equal report's by_category at the peak; ...)
#   classes    csv-stacks classes an aten frame framework, a modeling_gpt2.py frame
#              library, a frames_train.py frame user; folded-classes marks them _[j]/_[i]
#   timeline   timeline --by site: the first series names an aten:: op (report's form)
# Outputs under $OUT/exports/: the trace, report.json, every export, validate.log.
set -u
. "$(dirname "$0")/env.sh"
O=$OUT/exports
mkdir -p "$O"
fail=0
say() { echo "FAIL: $*"; fail=1; }
T=$root/tests/gpu/frames_train.py
t=$O/gpt2.vtrace

"$VT" run --per-tensor -o "$t" -- $PY "$T" gpt2 > "$O/run.out" 2> "$O/run.err" || { cat "$O/run.err"; say "run"; exit 1; }
"$VT" report --json "$t" > "$O/report.json" 2> /dev/null || say "report --json"
set -- $($PY -c '
import json, sys
r = json.load(open(sys.argv[1]))
print(sum(k["total_bytes"] for k in r["by_kind"]), r["live_at_end_bytes"])' "$O/report.json")
alloc=$1 leak=$2
for f in folded folded-classes perfetto perfetto-json speedscope csv csv-stacks pprof; do
    ext=$f; case $f in perfetto) ext=pftrace ;; pprof) ext=pb.gz ;; esac
    /usr/bin/time -f "$f: %e s, %M KB" "$VT" export --format $f "$t" -o "$O/gpt2.$ext" 2>> "$O/export.log" ||
        say "export --format $f"
done
grep -E "^[a-z-]+: [0-9.]+ s" "$O/export.log"
ls -l "$O"/gpt2.*

peak=$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["peak_bytes"])' "$O/report.json")
checks=(folded "$O/gpt2.folded" sum="$peak" -- folded-classes "$O/gpt2.folded-classes" sum="$peak"
        -- perfetto-json "$O/gpt2.perfetto-json" -- speedscope "$O/gpt2.speedscope" sums="$peak,$alloc,$leak"
        -- csv "$O/gpt2.csv" -- csv-stacks "$O/gpt2.csv-stacks" events="$O/gpt2.csv")
pf=(perfetto "$O/gpt2.pftrace" proto="$root/analyzer/out/perfetto_trace.proto" alloc="$alloc" leak="$leak")
if command -v protoc > /dev/null 2>&1; then checks+=(-- "${pf[@]}")
else echo "note: no protoc here; on the dev VM: python3 tests/html/validate.py report.json ${pf[*]}"
fi
$PY "$root/tests/html/validate.py" "$O/report.json" "${checks[@]}" > "$O/validate.log" 2>&1 ||
    { grep FAIL "$O/validate.log"; say "validate.py"; }
echo "validate: $(grep -c '^ok:' "$O/validate.log") checks passed"

s=$O/gpt2.csv-stacks
grep -Eq ',python,[^,]*,[^,]*modeling_gpt2\.py,[0-9]+,python,library$' "$s" || say "csv-stacks: no modeling_gpt2.py frame classed library"
grep -Eq ',python,[^,]*,[^,]*frames_train\.py,[0-9]+,python,user$' "$s" || say "csv-stacks: no frames_train.py frame classed user"
grep -Eq ',native,"?at::.*,framework$' "$s" || say "csv-stacks: no at:: frame classed framework"
grep -Eq ',plumbing$' "$s" || say "csv-stacks: no frame classed plumbing"
grep -q 'modeling_gpt2.py:[0-9]*)_\[i\]' "$O/gpt2.folded-classes" || say "folded-classes: modeling_gpt2.py not marked _[i]"
grep -q 'frames_train.py:[0-9]*)_\[j\]' "$O/gpt2.folded-classes" || say "folded-classes: frames_train.py not marked _[j]"
"$VT" timeline "$t" --by site -o "$O/gpt2-sites.html" 2> /dev/null || say "timeline --by site"
grep -o '"name":"[^"]*"' "$O/gpt2-sites.html" | head -3 | tee "$O/timeline-sites.txt"
head -1 "$O/timeline-sites.txt" | grep -q 'aten::' || say "timeline --by site: the first series names no aten op"

[ $fail = 0 ] && echo "exports: ok"
exit $fail
