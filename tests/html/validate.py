#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""validate.py - checks what `vramtrace timeline|flamegraph|export` wrote against the
figures `vramtrace report --json` gives for the same trace (docs/pictures.md).

    validate.py REPORT_JSON KIND FILE [NAME=VALUE...] [-- KIND FILE [NAME=VALUE...]]...

KIND: svg, timeline-html, flame-html, folded, folded-classes, perfetto (decoded with
`protoc --decode` against analyzer/out/perfetto_trace.proto: NAME=VALUE proto= and
protoc=; alloc= and leak= check the end heap profile, with events= the csv export of a
blocks-mode trace), perfetto-json, speedscope, csv, csv-stacks (events= the csv it joins). Several
files in one run (Python starts once). Exits 1 after printing one line per failed check.
Only the standard library and protoc (Debian's protobuf-compiler)."""
import codecs
import html
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

CATEGORIES = {"weights", "activations", "gradients", "optimizer_state", "workspace",
              "temporary", "host_pinned", "other"}
IDLE = "(idle cache)"  # PyTorch's segments holding no tensor: a track, in no category
POOL = "(CUDA graph pool)"  # the same in a CUDA graph's private pool
IDLES = {IDLE, POOL}
CLASSES = {"user", "library", "framework", "interpreter", "plumbing"}
failures = []


def check(cond, what):
    if cond:
        print("ok: " + what)
    else:
        failures.append(what)
        print("FAIL: " + what)


def svg(path, rep, args):
    tree = ET.parse(path)  # raises on malformed XML
    root = tree.getroot()
    check(root.tag == "{http://www.w3.org/2000/svg}svg", "root element is <svg> in the SVG namespace")
    ns = {"s": "http://www.w3.org/2000/svg"}
    paths = root.findall(".//s:path", ns)
    rects = root.findall(".//s:rect", ns)
    texts = root.findall(".//s:text", ns)
    check(len(texts) >= 3, "%d text elements" % len(texts))
    if args.get("expect") == "timeline":
        check(len(paths) >= 2, "%d paths (bands, outline)" % len(paths))
        peak = rep["peak_bytes"]
        label = [t.text for t in texts if t.text and t.text.startswith("peak ")]
        check(not peak or label, "the peak is labelled")
    elif args.get("sum") == "0":
        check(any(t.text and t.text.startswith("nothing to show") for t in texts), "an empty graph says so")
    else:
        check(len(rects) >= 2, "%d frame boxes" % len(rects))
    for e in root.iter():
        for k, v in e.attrib.items():
            if v.startswith("http") and k != "xmlns":
                failures.append("external reference %s=%s" % (k, v))


def page_data(path):
    text = open(path, encoding="utf-8").read()
    m = re.search(r'<script type="application/json" id="vt-data">\n?(.*?)</script>', text, re.S)
    check(m is not None, "the page embeds its data")
    for bad in ("<link", " src=", "http://", "https://", "@import", "url("):
        check(bad not in text, "no network reference (%r)" % bad)
    return text, json.loads(m.group(1))


def timeline_html(path, rep, args):
    text, d = page_data(path)
    n = d["n"]
    check(len(d["max"]) == n and len(d["min"]) == n and len(d["tmax"]) == n, "%d buckets of max, min, tmax" % n)
    check(len(d["v"]) == len(d["series"]), "one value array per series (%d)" % len(d["series"]))
    for i, s in enumerate(d["series"]):
        check(len(d["v"][i]) == n, "series %r has %d values" % (s["name"], n))
    sums_ok = all(sum(d["v"][s][b] for s in range(len(d["series"]))) == d["max"][b] for b in range(n))
    check(sums_ok, "the series of every bucket add up to its max")
    check(all(d["min"][b] <= d["max"][b] for b in range(n)), "min <= max in every bucket")
    if not args.get("range"):
        check(max(d["max"]) == rep["peak_bytes"], "the highest bucket is the exact peak %d" % rep["peak_bytes"])
        check(d["peak"] == rep["peak_bytes"], "the page's peak is the report's")
        check(sum(s["peak"] for s in d["series"]) == rep["peak_bytes"], "the legend adds up to the peak")
    elif args.get("contains_peak"):
        check(max(d["max"]) == rep["peak_bytes"], "the range holds the peak: its highest bucket is %d" % rep["peak_bytes"])
    else:
        check(max(d["max"]) <= rep["peak_bytes"], "a range holds no more than the peak")
    if args.get("by") == "category":
        check(all(s["name"] in CATEGORIES or s["name"] in IDLES for s in d["series"]), "series are categories")
    if not args.get("range"):
        check(len(d["ooms"]) == rep["events"]["ooms"], "%d OOM markers" % len(d["ooms"]))
    check(text.count('id="vt-chart"') == 1 and 'id="vt-legend"' in text, "chart and legend elements")
    stacks(d)


def stacks(d):
    """The top sites at the sampled moments: each bucket's highest and lowest moment is a
    state whose rows and rest add up to that bucket's max and min."""
    st = d.get("stacks")
    check(st is not None, "the timeline has the top sites at its moments")
    if st is None:
        return
    n, ns = d["n"], len(st["total"])
    check(len(st["bmax"]) == n and len(st["bmin"]) == n and len(d["tmin"]) == n, "a state per bucket's max and min")
    check(len(st["first"]) == ns + 1 and st["first"][-1] == len(st["r"]) and ns <= 2 * n,
          "%d states (at most twice the buckets), %d rows" % (ns, len(st["r"])))
    rows = [st["rows"][i:i + 4] for i in range(0, len(st["rows"]), 4)]
    sums, sizes, order = [], [], []
    for k in range(ns):
        mine = [rows[i] for i in st["r"][st["first"][k]:st["first"][k + 1]]]
        sums.append(sum(r[2] for r in mine) + st["restBytes"][k])
        sizes.append(len(mine) <= st["top"] and (st["restSites"][k] == 0 or len(mine) == st["top"]))
        order.append(all(mine[i][2] >= mine[i + 1][2] for i in range(len(mine) - 1)) and all(r[2] > 0 for r in mine))
    check(sums == st["total"], "every state's rows and rest add up to its total")
    check(all(sizes) and all(order), "at most %d rows a state, largest first" % st["top"])
    check(all(st["total"][st["bmax"][b]] == d["max"][b] and st["total"][st["bmin"][b]] == d["min"][b] for b in range(n)),
          "the state at each bucket's highest and lowest moment holds its max and min")
    check(all(0 <= r[0] < len(st["sites"]) and 0 <= r[1] < len(st["cats"]) for r in rows), "rows name known sites and categories")


def flame_html(path, rep, args):
    text, d = page_data(path)
    nn = len(d["n"])
    check(nn >= 1 and len(d["d"]) == nn and len(d["v"]) == nn and len(d["k"]) == nn, "%d nodes" % nn)
    check(d["d"][0] == 0, "the root comes first")
    check(d["v"][0] == int(args["sum"]), "the root holds %s bytes" % args["sum"])
    # preorder: every child's value fits in its parent's, and children sum to at most it
    stack, ok = [], True
    kids = [0] * nn
    for i in range(nn):
        while len(stack) > d["d"][i]:
            stack.pop()
        if stack:
            kids[stack[-1]] += d["v"][i]
        stack.append(i)
    ok = all(kids[i] <= d["v"][i] for i in range(nn))
    check(ok, "children never hold more than their parent")
    check(all(0 <= x < len(d["names"]) for x in d["n"]), "labels are in the table")


def folded(path, rep, args):
    total, lines = 0, 0
    for line in open(path, encoding="utf-8"):
        m = re.match(r"^(.+) (\d+)$", line.rstrip("\n"))
        if not m:
            failures.append("bad folded line: %r" % line)
            continue
        total += int(m.group(2))
        lines += 1
    check(total == int(args["sum"]), "%d lines sum to %s (%d)" % (lines, args["sum"], total))


def folded_classes(path, rep, args):
    folded(path, rep, args)
    bad, annotated, framed = 0, 0, 0
    for line in open(path, encoding="utf-8"):
        frames = line.rsplit(" ", 1)[0].split(";")
        for f in frames[1:]:  # the root "all" has no class
            framed += f != "[no stack]"
            annotated += bool(re.search(r"_\[[jikw]\]$", f))
            bad += bool(re.search(r"_\[[^]]*\]$", f)) and not re.search(r"_\[[jikw]\]$", f)
    check(not bad, "frames end in FlameGraph's annotations only")
    check(annotated or not framed, "%d frames are annotated" % annotated)


def pb_text(text):
    """protoc's text format -> nested dicts of lists of values."""
    root, stack = {}, []
    cur = root
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        if line == "}":
            cur = stack.pop()
        elif line.endswith("{"):
            child = {}
            cur.setdefault(line[:-1].strip(), []).append(child)
            stack.append(cur)
            cur = child
        else:
            k, v = line.split(":", 1)
            v = v.strip()
            if v.startswith('"'):
                v = codecs.escape_decode(v[1:-1].encode("latin-1"))[0].decode("utf-8", "replace")
            elif re.match(r"^-?\d+$", v):
                v = int(v)
            cur.setdefault(k, []).append(v)
    return root


def one(d, k, default=None):
    return d.get(k, [default])[0]


def perfetto(path, rep, args):
    with open(path, "rb") as f:
        r = subprocess.run([args.get("protoc", "protoc"), "--decode=perfetto.protos.Trace",
                            "--proto_path=" + os.path.dirname(args["proto"]), os.path.basename(args["proto"])],
                           stdin=f, capture_output=True)
    check(r.returncode == 0, "protoc decodes it against perfetto_trace.proto %s" % r.stderr.decode()[:200])
    if r.returncode:
        return
    packets = pb_text(r.stdout.decode("utf-8", "replace")).get("packet", [])
    tracks = {one(one(p, "track_descriptor"), "uuid"): one(p, "track_descriptor") for p in packets if "track_descriptor" in p}
    procs = [t for t in tracks.values() if "process" in t]
    check(len(procs) == 1 and one(one(procs[0], "process"), "pid") is not None, "one process track, with its pid")
    counters = {u: one(t, "name") for u, t in tracks.items() if "counter" in t}
    check(all(one(one(t, "counter"), "unit") == "UNIT_SIZE_BYTES" for t in tracks.values() if "counter" in t),
          "counter tracks are in bytes")
    names = set(counters.values())
    check(names - CATEGORIES <= {"device memory", "NVML process used", "NVML device used"} | IDLES,
          "a counter track per category, the total and NVML (%s)" % sorted(names))
    # replay the counters (written in time order, the categories before their total)
    cur, top, top_cats, adds_up, t_prev, ordered, total = {}, -1, {}, True, 0, True, -1
    at_peak = None  # the categories at report's own moment of the peak, when a point is there
    for p in packets:
        ev = one(p, "track_event")
        if not ev or one(ev, "type") != "TYPE_COUNTER":
            continue
        t = one(p, "timestamp", 0)
        ordered &= t >= t_prev
        t_prev = t
        name, v = counters.get(one(ev, "track_uuid")), one(ev, "counter_value", 0)
        if name in CATEGORIES or name in IDLES:
            cur[name] = v
        elif name == "device memory":
            adds_up &= sum(cur.values()) == v
            total = v
        else:
            continue
        # report's peak: the first moment of the highest total; of several at that total
        # (PyTorch's segments keep it flat while only the categories' points change), the
        # first with the least idle cache (a graph pool's too); a moment is whole once its
        # tracks add up
        idle = lambda c: sum(c.get(k, 0) for k in IDLES)
        if sum(cur.values()) == total and (total > top or (total == top and idle(cur) < idle(top_cats))):
            top, top_cats = total, dict(cur)
        if sum(cur.values()) == total and t == rep.get("peak_time_ns") and total == rep["peak_bytes"]:
            at_peak = dict(cur)
    check(ordered, "counter points are in time order")
    check(adds_up, "at every point the category tracks add up to the total")
    check(top == rep["peak_bytes"] or (top == -1 and not rep["peak_bytes"]),
          "the total track reaches the exact peak %d (%d)" % (rep["peak_bytes"], top))
    # report's moment when the export has a point there (under CUDA graphs the total stays
    # flat from the recording on, and the heuristic above finds the recording instead)
    want = {c["category"]: c["bytes"] for c in rep["by_category"] if c["bytes"]}
    got = {k: v for k, v in (at_peak if at_peak is not None else top_cats).items() if v and k not in IDLES}
    check(got == want, "at the peak the category tracks are report's by_category (%s vs %s)" % (got, want))
    inst = [one(p, "track_event") for p in packets if one(one(p, "track_event", {}), "type") == "TYPE_INSTANT"]
    ooms = [e for e in inst if one(e, "name") == "OOM"]
    check(len(ooms) == rep["events"]["ooms"], "one instant per OOM (%d)" % len(ooms))
    check(all({"size", "free", "total"} <= {one(a, "name") for a in e.get("debug_annotations", [])} for e in ooms),
          "OOM instants carry size, free and total")
    check(sum(one(e, "name") == "peak" for e in inst) == 1, "one peak instant")
    profs = [(one(p, "trusted_packet_sequence_id"), one(p, "profile_packet")) for p in packets if "profile_packet" in p]
    check(len(profs) == 2 and len({s for s, _ in profs}) == 2, "two heap profiles, each on a sequence of its own")
    sums, idle = {}, []
    for seq, pp in profs:
        strs = {one(s, "iid") for s in pp.get("strings", [])}
        maps = {one(m, "iid") for m in pp.get("mappings", [])}
        frames = {one(f, "iid"): f for f in pp.get("frames", [])}
        stacks = {one(c, "iid"): c.get("frame_ids", []) for c in pp.get("callstacks", [])}
        check(all(one(f, "function_name_id") in strs for f in frames.values()), "frames are named from the strings")
        # the trace processor drops a frame without a mapping, a mapping without its build-id string
        check(all(one(f, "mapping_id", 0) in maps for f in frames.values()), "every frame is in a mapping")
        check(all(one(m, "build_id", 0) in strs for m in pp.get("mappings", [])), "every mapping names its build-id")
        check(all(one(f, "kind_str") in CLASSES for f in frames.values() if one(f, "kind_str") is not None),
              "frames carry their class")
        check(all(i in frames for s in stacks.values() for i in s), "call stacks are made of the frames")
        dumps = pp.get("process_dumps", [])
        check(len(dumps) == 1, "one process dump")
        samples = dumps[0].get("samples", []) if dumps else []
        check(all(one(s, "callstack_id") in stacks for s in samples), "samples name call stacks")
        for k in ("self_max", "self_allocated", "self_freed"):
            sums[k] = sums.get(k, 0) + sum(one(s, k, 0) for s in samples)
        names = {one(s, "iid"): one(s, "str") for s in pp.get("strings", [])}
        for s in samples:
            fr = stacks.get(one(s, "callstack_id"), [])
            if len(fr) == 1 and names.get(one(frames.get(fr[0], {}), "function_name_id")) == IDLE:
                idle.append(s)
    if "alloc" in args:
        check(sums.get("self_max") == rep["peak_bytes"], "the peak profile sums to the peak (%s)" % sums.get("self_max"))
        check(sums.get("self_allocated", 0) - sums.get("self_freed", 0) == int(args["leak"]),
              "allocated - freed is the bytes leaked, %s" % args["leak"])
        devs = [d for d in rep.get("devices", []) if (d.get("categories") or {}).get("mode") == "blocks"]
        if not devs:
            check(sums.get("self_allocated") == int(args["alloc"]), "the end profile's allocated bytes sum to %s" % args["alloc"])
            check(not idle, "no idle cache without PyTorch's blocks")
            return
        # blocks mode (docs/pictures.md): each byte once. A segment's driver allocation
        # counts none of its segment bytes; the idle cache at the end is one sample's,
        # allocated and not freed; the blocks and all other allocations as everywhere.
        idle_end = sum(d["categories"]["idle_cache_bytes_at_end"] or 0 for d in devs)
        pool_end = sum(d["categories"].get("graph_pool_bytes_at_end") or 0 for d in devs)
        end_idle = [s for s in idle if "self_allocated" in s]
        check(len(end_idle) == 1 and one(end_idle[0], "self_allocated") == idle_end and
              not one(end_idle[0], "self_freed", 0) and not one(end_idle[0], "alloc_count", 0),
              "the end profile's idle cache is allocated the idle bytes at the end, %d, and frees nothing" % idle_end)
        peak_idle = sum(d["categories"]["idle_cache_bytes_at_peak"] or 0 for d in devs)
        check(sum(one(s, "self_max", 0) for s in idle if "self_max" in s) == peak_idle,
              "the peak profile's idle cache is report's, %d" % peak_idle)
        seg = segment_bytes(args["events"]) if "events" in args else None
        if seg is None:
            check(sums.get("self_allocated", 0) <= int(args["alloc"]) + idle_end + pool_end,
                  "the end profile's allocated bytes are at most %s and the idle cache" % args["alloc"])
        else:
            want = int(args["alloc"]) - seg + idle_end + pool_end
            check(sums.get("self_allocated") == want,
                  "the end profile's allocated bytes sum to %s - %d segment bytes + %d idle + %d graph pool: %d (%s)"
                  % (args["alloc"], seg, idle_end, pool_end, want, sums.get("self_allocated")))


def segment_bytes(path):
    """The bytes of the driver's allocations PyTorch made segments of, from the csv export's
    rows (each allocation once, at most its size); None with expandable segments, whose
    pages the rows do not tie to their handles."""
    import csv
    rows = csv.reader(open(path, encoding="utf-8", newline=""))
    head = next(rows)
    ev, kind, addr, size = (head.index(k) for k in ("event", "kind", "address", "size"))
    live, total = {}, 0
    for r in rows:
        if r[kind].startswith("torch_map") or r[kind].startswith("torch_unmap"):
            return None
        if r[kind] in ("torch_block", "torch_block_free"):
            continue
        if r[ev] == "alloc":
            live[r[addr]] = [int(r[size]), False]
        elif r[ev] == "free":
            live.pop(r[addr], None)
        elif r[kind] == "torch_segment" and r[addr] in live and not live[r[addr]][1]:
            total += min(int(r[size]), live[r[addr]][0])
            live[r[addr]][1] = True
    return total


def csv_stacks(path, rep, args):
    import csv
    rows = csv.reader(open(path, encoding="utf-8", newline=""))
    head = next(rows)
    check(head == ["stack_id", "depth", "kind", "frame", "file", "line", "module", "class"], "stack table header")
    depth, bad = {}, 0
    for r in rows:
        sid, d = int(r[0]), int(r[1])
        bad += len(r) != len(head) or d != depth.get(sid, -1) + 1
        bad += r[3] != "[no stack]" and (r[7] not in CLASSES or r[2] not in ("native", "python", "scope"))
        depth[sid] = d
    check(not bad, "every row has its fields, depths count up from 0, kinds and classes are known")
    ev = csv.reader(open(args["events"], encoding="utf-8", newline=""))
    eh = next(ev)
    si = eh.index("stack_id")
    named = {int(r[si]) for r in ev if r[1] in ("alloc", "oom")}
    check(named <= set(depth), "every stack of an alloc or oom row is in the table (%d missing)" % len(named - set(depth)))


def perfetto_json(path, rep, args):
    d = json.load(open(path, encoding="utf-8"))
    ev = d["traceEvents"]
    check(isinstance(ev, list) and ev, "traceEvents is a non-empty list")
    for e in ev:
        for k in ("name", "ph", "pid"):
            if k not in e:
                failures.append("event without %s: %r" % (k, e))
        if e["ph"] in ("C", "i"):
            if not isinstance(e.get("ts"), (int, float)):
                failures.append("event without a numeric ts: %r" % e)
        if e["ph"] == "C":
            if not e.get("args") or not all(isinstance(v, (int, float)) for v in e["args"].values()):
                failures.append("counter without numeric args: %r" % e)
        if e["ph"] == "i" and e.get("s") not in ("g", "p", "t"):
            failures.append("instant with a bad scope: %r" % e)
    counters = {e["name"] for e in ev if e["ph"] == "C"}
    cats = counters & CATEGORIES
    check(cats or not rep["peak_bytes"], "counter tracks per category: %s" % sorted(cats))
    check(counters - CATEGORIES <= {"device memory", "NVML process used", "NVML device used"} | IDLES,
          "no other counter tracks (%s)" % sorted(counters - CATEGORIES))
    # replay the counters: at each total, the categories add up to it
    cur, top, adds_up = {}, 0, True
    for e in ev:  # written in time order, categories before their total
        if e["ph"] != "C":
            continue
        if e["name"] in CATEGORIES or e["name"] in IDLES:
            cur[e["name"]] = e["args"]["bytes"]
        elif e["name"] == "device memory":
            top = max(top, e["args"]["bytes"])
            if sum(cur.values()) != e["args"]["bytes"]:
                adds_up = False
    check(adds_up, "at every point the category tracks add up to the total")
    check(top == rep["peak_bytes"], "the total track reaches the exact peak %d (%d)" % (rep["peak_bytes"], top))
    ooms = [e for e in ev if e["ph"] == "i" and e["name"] == "OOM"]
    check(len(ooms) == rep["events"]["ooms"], "one instant per OOM (%d)" % len(ooms))
    for o in ooms:
        if not {"size", "free", "total"} <= set(o["args"]):
            failures.append("OOM instant without size/free/total: %r" % o)
    meta = [e for e in ev if e["ph"] == "M" and e["name"] == "process_name"]
    check(len(meta) == 1, "the process is named")


def speedscope(path, rep, args):
    d = json.load(open(path, encoding="utf-8"))
    check(d.get("$schema") == "https://www.speedscope.app/file-format-schema.json", "$schema")
    frames = d["shared"]["frames"]
    check(all("name" in f for f in frames), "%d frames with names" % len(frames))
    check(len(d["profiles"]) == 3, "three profiles")
    sums = [int(x) for x in args["sums"].split(",")]
    for p, want in zip(d["profiles"], sums):
        check(p["type"] == "sampled" and p["unit"] == "bytes", "profile %r is sampled, in bytes" % p["name"])
        check(len(p["samples"]) == len(p["weights"]), "samples and weights pair up")
        check(all(0 <= i < len(frames) for s in p["samples"] for i in s), "frame indexes are valid")
        check(sum(p["weights"]) == p["endValue"] == want, "weights sum to endValue %d" % want)
    check(0 <= d["activeProfileIndex"] < 3, "activeProfileIndex")


def csv_(path, rep, args):
    import csv
    rows = csv.reader(open(path, encoding="utf-8", newline=""))
    head = next(rows)
    check(head[:3] == ["time_ns", "event", "kind"], "header")
    n, seg, bad_len, kinds, top, uncategorized = 0, 0, 0, set(), 0, 0
    for r in rows:  # streamed: a big trace has millions of rows
        n += 1
        seg += r[1] == "vmm" and r[2].startswith("torch_")
        bad_len += len(r) != len(head)
        kinds.add(r[1])
        top = max(top, int(r[9]))
        uncategorized += r[1] == "alloc" and r[10] not in CATEGORIES
    ev = rep["events"]
    want = ev["allocs"] + ev["frees"] + ev["ooms"] + ev["vmm_ops"]
    # PyTorch's segment records (vmm rows of kind torch_*) are rows too; report counts
    # the driver's events only
    check(n - seg == want, "one row per event: %d (report: %d)" % (n - seg, want))
    check(not bad_len, "every row has %d fields" % len(head))
    check(kinds <= {"alloc", "free", "oom", "vmm"}, "event names %s" % sorted(kinds))
    check(top == rep["peak_bytes"], "device_live_bytes reaches the peak")
    check(not uncategorized, "allocations have categories")


KINDS = {"svg": svg, "timeline-html": timeline_html, "flame-html": flame_html, "folded": folded,
         "folded-classes": folded_classes, "perfetto": perfetto, "perfetto-json": perfetto_json,
         "speedscope": speedscope, "csv": csv_, "csv-stacks": csv_stacks}


def main():
    if len(sys.argv) < 4:
        print(__doc__)
        return 2
    rep = json.load(open(sys.argv[1], encoding="utf-8"))
    specs, cur = [], []
    for a in sys.argv[2:]:
        if a == "--":
            specs.append(cur)
            cur = []
        else:
            cur.append(a)
    specs.append(cur)
    for spec in specs:
        if len(spec) < 2 or spec[0] not in KINDS:
            print(__doc__)
            return 2
        kind, path = spec[:2]
        args = dict(a.split("=", 1) for a in spec[2:])
        print("== %s %s %s" % (kind, os.path.basename(path), " ".join(spec[2:])))
        before = len(failures)
        try:
            KINDS[kind](path, rep, args)
        except Exception as e:  # a parse error is a failed check, with its message
            failures.append("%s: %s: %s" % (path, type(e).__name__, e))
        for f in failures[before:]:
            print("FAIL: %s %s: %s" % (kind, os.path.basename(path), f), file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
