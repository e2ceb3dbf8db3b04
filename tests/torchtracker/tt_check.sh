#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tt_check.sh - the tracker path end to end: tt_prog under the recorder, then the
# analyzer's figures at the peak and at the end against what tt_prog played.
set -euo pipefail
prog=$1 c10=$2 shim=$3 lib=$4 vt=$5 fake=$6 work=$7
rm -rf "$work" && mkdir -p "$work"
LD_LIBRARY_PATH=$fake LD_PRELOAD=$lib VRAMTRACE_OUTPUT=$work/t.vtrace "$prog" "$c10" "$shim" 2.11.0+cu130 0 play
trace=$(ls "$work"/t.vtrace*)
"$vt" report --json "$trace" > "$work/report.json"
"$vt" report "$trace" > "$work/report.txt"
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
print("peak by kind:", peak)
if bad:
    print("\n".join(bad)); sys.exit(1)
PY
echo ok
