#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tt_check.sh - the tracker path end to end: tt_prog under the recorder, then the
# analyzer's figures at the peak and at the end against what tt_prog played.
set -euo pipefail
prog=$1 c10=$2 shim=$3 lib=$4 vt=$5 fake=$6 work=$7
rm -rf "$work" && mkdir -p "$work"
LD_LIBRARY_PATH=$fake LD_PRELOAD=$lib VRAMTRACE_OUTPUT=$work/t.vtrace "$prog" "$c10" "$shim" 2.11.0+cu130 0 play
trace=$(ls "$work"/t.vtrace*)
# the run's summary leads with the first OOM, said as the allocator's own refusal
LD_LIBRARY_PATH=$fake VRAMTRACE_LIB=$lib "$vt" run -o "$work/s.vtrace" -- "$prog" "$c10" "$shim" 2.11.0+cu130 0 play \
    > /dev/null 2> "$work/summary.txt"
grep -q "OUT OF MEMORY (2 OOMs; the first) at .*: 32.0 MiB over PyTorch's cap; asked by" "$work/summary.txt" \
    || { echo "the summary does not lead with the allocator's refusal:"; cat "$work/summary.txt"; exit 1; }
oom_at=$(grep -n "OUT OF MEMORY" "$work/summary.txt" | head -1 | cut -d: -f1)
cat_at=$(grep -n "by category:" "$work/summary.txt" | head -1 | cut -d: -f1)
[ -n "$oom_at" ] && [ -n "$cat_at" ] && [ "$oom_at" -lt "$cat_at" ] \
    || { echo "the OOM comes after the categories:"; cat "$work/summary.txt"; exit 1; }
# and sums the categories as report does: the idle segment bytes in no category, by name,
# in order of size with them
grep -q "by category: weights 41.0 MiB 59%, (idle cache) 24.0 MiB 35%, temporary 3.00 MiB 4%" "$work/summary.txt" &&
    grep -q "24.0 MiB  34.8%  (idle cache): PyTorch's segments, holding no tensor" "$work/summary.txt" &&
    ! grep -q "no stack\]" "$work/summary.txt" \
    || { echo "the summary's categories or sites are not report's:"; cat "$work/summary.txt"; exit 1; }
"$vt" report --json "$trace" > "$work/report.json"
"$vt" report "$trace" > "$work/report.txt"
# report's first screen too: the first OOM right under the peak, before the categories
grep -A1 "^  peak " "$work/report.txt" | grep -q "^  OUT OF MEMORY at .*: PyTorch's allocator refused 32.0 MiB under its own cap (.* free on the device); the first of 2$" \
    && [ "$(grep -n "^  OUT OF MEMORY" "$work/report.txt" | head -1 | cut -d: -f1)" -lt "$(grep -n "by category at the peak" "$work/report.txt" | head -1 | cut -d: -f1)" ] \
    && grep -A1 "^  OUT OF MEMORY" "$work/report.txt" | grep -q "^    asked by .*refused" \
    || { echo "report's first OOM is not under the peak:"; head -20 "$work/report.txt"; exit 1; }
# and the timeline's first line, by the line that asked (not the allocator's frames)
"$vt" timeline "$trace" -o "$work/t.html" 2> /dev/null
grep -q "out of memory</b> at [^:]*: 32.0 MiB asked by refused (tt_prog.c:56) &lt;- play" "$work/t.html" \
    || { echo "the timeline's first line does not name the OOM's line:"; grep -o "vt-sub.*out of memory.*" "$work/t.html"; exit 1; }
"$vt" export --format perfetto-json "$trace" -o "$work/t.json"
grep -q '"name":"OOM".*"site":"refused (tt_prog.c:56) ' "$work/t.json" \
    || { echo "the Perfetto export's OOM does not name its line:"; grep -o '"name":"OOM".*' "$work/t.json" | head -1; exit 1; }
"$vt" top --by category "$trace" >> "$work/report.txt"
# the private pool's segment says so (aux0 = 1), the default pool's do not
"$vt" dump "$trace" | grep "op=torch_segment " | sed 's/.* size=\([0-9]*\) aux0=\([0-9]*\).*/segment \1 aux0=\2/' > "$work/segs.txt"
printf 'segment 67108864 aux0=0\nsegment 4194304 aux0=1\n' | cmp -s - "$work/segs.txt" ||
    { echo "segment records:"; cat "$work/segs.txt"; exit 1; }
python3 - "$work/report.json" "$work/report.txt" <<'PY'
import json, sys
MiB = 1 << 20
r = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
d = [x for x in r["devices"] if x["device"] == 0][0]
peak = {k["kind"]: k["bytes"] for k in d["by_kind"]}
# the 4 MiB segment holding a private pool's 3 MiB block is the pool's: its idle MiB too
want = {"cuMemAlloc": 1 * MiB, "torch_block": 43 * MiB, "idle_in_segments": 24 * MiB, "idle_in_graph_pools": 1 * MiB}
bad = []
if d["peak_bytes"] != 69 * MiB: bad.append("peak %d, want %d" % (d["peak_bytes"], 69 * MiB))
for k, v in want.items():
    if peak.get(k, 0) != v: bad.append("at the peak %s %d, want %d" % (k, peak.get(k, 0), v))
if sum(peak.values()) != d["peak_bytes"]: bad.append("kinds at the peak do not add up: %r" % peak)
if "approximate" in text: bad.append("blocks counted as caching-allocator segments (approximate)")
if d["categories"]["mode"] != "blocks": bad.append("mode %s, want blocks" % d["categories"]["mode"])
c = d["categories"]
if (c["graph_pool_bytes_at_peak"], c["graph_pool_block_bytes_at_peak"]) != (1 * MiB, 3 * MiB):
    bad.append("graph pool at the peak: %d idle, %d in blocks; want 1 MiB, 3 MiB" %
               (c["graph_pool_bytes_at_peak"], c["graph_pool_block_bytes_at_peak"]))
if "(CUDA graph pool)" not in text: bad.append("report names no CUDA graph pool")
if "allocator trace tracker" not in text: bad.append("the report does not say how the trace was made")
# the allocator's own OOMs: under its cap (no driver call failed), then with the device
# full (two failed driver calls, its attempts, are not OOMs of their own): two events
ooms = d.get("oom", [])
got = [(o["kind"], o["size"]) for o in ooms]
if got != [("torch_block", 32 * MiB), ("torch_block", 200 << 30)]:
    bad.append("OOMs %r, want torch_block 32 MiB, then 200 GiB" % got)
elif "refused" not in json.dumps(ooms[0]["site"]) or "device_full" not in json.dumps(ooms[1]["site"]):
    bad.append("the OOMs' sites do not name refused() and device_full()")
if r["events"]["ooms"] != 2:
    bad.append("the trace counts %d OOMs, want 2" % r["events"]["ooms"])
if ooms and ooms[0]["free_bytes"] > 32 * MiB and "set_per_process_memory_fraction" not in text:
    bad.append("the report does not say the allocator refused with room on the device")
print("peak by kind:", peak)
if bad:
    print("\n".join(bad)); sys.exit(1)
PY
# Perfetto's end heap profile counts each byte once (docs/pictures.md, "blocks mode"): a
# block at its stack; a segment's driver allocation none of its segment bytes; the idle
# cache at the end (64 - 40 MiB) one sample, allocated and never freed. So allocated -
# freed is what each stack holds at the end, and in all the 65 MiB live then.
if ! command -v protoc > /dev/null 2>&1; then
    echo "note: no protoc (Debian's protobuf-compiler): the Perfetto heap profile not checked"
elif ! "$vt" export --format perfetto "$trace" -o "$work/p.pftrace" 2> "$work/err"; then
    grep -q "no Perfetto protobuf output" "$work/err" || { cat "$work/err"; exit 1; }
    echo "note: this build has no Perfetto protobuf output: the heap profile not checked"
else
    src=$(cd "$(dirname "$0")/../.." && pwd)
    protoc --decode=perfetto.protos.Trace --proto_path="$src/analyzer/out" perfetto_trace.proto \
        < "$work/p.pftrace" > "$work/p.txt"
    python3 - "$work/p.txt" "$src/tests/html" <<'PY'
import sys
sys.path.insert(0, sys.argv[2])
from validate import one, pb_text
MiB = 1 << 20
WHO = ("play", "load_weights", "step", "grow_and_release", "(idle cache)", "(CUDA graph pool)")
packets = pb_text(open(sys.argv[1]).read())["packet"]
end = [one(p, "profile_packet") for p in packets if one(p, "trusted_packet_sequence_id") == 3][0]
names = {one(s, "iid"): one(s, "str") for s in end.get("strings", [])}
frames = {one(f, "iid"): names.get(one(f, "function_name_id")) for f in end["frames"]}
got = []
for s in end["process_dumps"][0]["samples"]:
    stack = [frames[i] for i in [c for c in end["callstacks"] if one(c, "iid") == one(s, "callstack_id")][0]["frame_ids"]]
    who = [f for f in stack if f in WHO][-1]
    block = any("record_trace" in (f or "") for f in stack)
    got.append((who, block) + tuple(one(s, k, 0) for k in ("self_allocated", "self_freed", "alloc_count", "free_count")))
want = [("play", False, 1 * MiB, 0, 1, 0),              # a library's own: not PyTorch's
        ("play", False, 0, 0, 0, 0),                    # the 64 MiB segment: its blocks' and the idle cache's
        ("load_weights", True, 40 * MiB, 0, 1, 0),
        ("step", True, 24 * MiB, 24 * MiB, 3, 3),
        ("step", True, 24 * MiB, 24 * MiB, 3, 3),
        ("grow_and_release", False, 0, 0, 0, 0),        # the 4 MiB segment given back
        ("grow_and_release", True, 3 * MiB, 3 * MiB, 1, 1),
        ("(idle cache)", False, 24 * MiB, 0, 0, 0),
        ("(CUDA graph pool)", False, 0, 0, 0, 0)]        # its segment was given back
print("end heap profile:", sorted(got))
if sorted(got) != sorted(want):
    print("want:", sorted(want))
    sys.exit(1)
if sum(g[2] - g[3] for g in got) != 65 * MiB:
    print("allocated - freed is not the 65 MiB live at the end")
    sys.exit(1)
PY
fi
echo ok
