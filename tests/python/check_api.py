# SPDX-License-Identifier: MIT
"""check_api.py VRAMTRACE TRACE: the trace api_prog.py leaves (see there)."""
import json
import subprocess
import sys

vt, trace = sys.argv[1], sys.argv[2]
MiB = 1 << 20
fail = []


def run(*args, rc=0):
    p = subprocess.run([vt] + list(args), capture_output=True, text=True)
    if p.returncode != rc:
        fail.append("vramtrace %s: exit %d (want %d): %s" % (" ".join(args), p.returncode, rc, p.stderr.strip()))
    return p


dump = run("dump", trace).stdout
marks = [l for l in dump.splitlines() if l.startswith("mark ")]
if len(marks) != 2 or 'name="epoch 1"' not in marks[0] or 'name="epoch 2"' not in marks[1]:
    fail.append("marks in dump: %r" % marks)
pauses = [l for l in dump.splitlines() if l.startswith("pause ")]
if len(pauses) != 2:
    fail.append("pause records: %r" % pauses)
sizes = sorted(int(l.split(" size=")[1].split()[0]) // MiB for l in dump.splitlines() if l.startswith("alloc "))
if sizes != [1, 2, 4, 16, 32]:
    fail.append("allocations (MiB) %r, want [1, 2, 4, 16, 32] (8 was made while paused)" % sizes)


def top(at, by="site"):
    p = run("top", trace, "--json", "--by", by, "--at", at)
    return json.loads(p.stdout) if p.returncode == 0 else None


for at, want in (("mark:epoch 1", 1), ("mark:epoch 2", 1 + 2 + 4 + 16), ("end", 1 + 4 + 16 + 32)):
    d = top(at)
    if d:
        got = d["devices"][0]["bytes"] // MiB
        if got != want:
            fail.append("top --at %r: %d MiB live, want %d" % (at, got, want))
        if at.startswith("mark:") and (d.get("at") != "mark" or d.get("mark") != at[5:]):
            fail.append("top --at %r: at=%r mark=%r" % (at, d.get("at"), d.get("mark")))
d = top("end", "layer")
if d:
    layers = {r["layer"]: r["bytes"] // MiB for r in d["devices"][0]["rows"]}
    if layers.get("eval") != 4 or layers.get("inner") != 16:
        fail.append("layers at the end: %r (want eval 4, inner 16)" % layers)
# flamegraph --at: the stacks live at a mark, the same bytes as top.
import os, tempfile
with tempfile.TemporaryDirectory() as d:
    svg = os.path.join(d, "f.svg")
    run("flamegraph", trace, "--at", "mark:epoch 2", "-o", svg)
    text = open(svg).read() if os.path.exists(svg) else ""
    if "bytes live at mark &#39;epoch 2&#39;" not in text or ": 23.0 MiB;" not in text:
        fail.append("flamegraph --at mark:epoch 2: subtitle not found or not 23.0 MiB")
p = run("top", trace, "--at", "mark:epoch 9", rc=2)
if "no mark 'epoch 9'" not in p.stderr or "'epoch 1'" not in p.stderr:
    fail.append("missing mark: %r" % p.stderr)
for f in fail:
    print("FAIL:", f)
print("check_api: %s" % ("FAILED" if fail else "ok"))
sys.exit(1 if fail else 0)
