#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""browser.py - the HTML reports in a real browser (headless Chromium).

For each report (timelines and flame graphs of a real GPU trace and of generated ones):
  1. --dump-dom of PAGE?selftest=1: the page's own test hook drives the chart as a user
     would (drag and wheel zoom, reset, hover; click-to-zoom for flame graphs) and
     writes what it saw into <pre id="vt-selftest">; every check there must hold: it
     drew (painted pixels, colours), the elements are there (one legend entry per
     series), zooming changed the visible range and its label, the tooltip showed,
     and window.onerror caught nothing;
  2. Chromium's log (--enable-logging=stderr) has no console error from the page;
  3. --screenshot: the PNG (decoded here with zlib, no PIL) is not blank: many colours,
     and enough pixels that are not the white background.
The links from time to stacks, checked against the text commands (not hard-coded):
  4. a timeline opens with, and a click on a moment shows, the top sites live then: the
     panel's total is `top --at Tns --json`'s bytes, its first row's size, live count
     and site are those of `top --at Tns`, and its rows' (size, count) are top's;
  5. a flame graph's search box (?q=REGEX) highlights as many frames and as many bytes
     as the folded export's stacks give, with "Matched: x%"; the inverted view's roots
     are the innermost frames with their summed bytes, as is `--inverted`'s SVG.
Exits 77 (ctest: skipped) when Chromium is missing, saying so. Env: VRAMTRACE, VT_GEN,
SRC_DIR; CHROMIUM overrides the browser; VT_BROWSER_KEEP=DIR keeps the pages and PNGs."""
import html
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import urllib.parse
import zlib

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--hide-scrollbars", "--window-size=1280,900"]
failures = []


def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        failures.append(what)


def chromium():
    for c in (os.environ.get("CHROMIUM"), "chromium", "chromium-browser", "google-chrome"):
        if c and shutil.which(c):
            return shutil.which(c)
    return None


def run_browser(exe, args, work):
    prof = tempfile.mkdtemp(prefix="profile.", dir=work)  # a new profile every run
    cmd = [exe] + FLAGS + ["--user-data-dir=" + prof] + args
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    shutil.rmtree(prof, ignore_errors=True)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def png_pixels(path):
    """(width, height, list of RGB tuples) of an 8-bit RGB or RGBA PNG."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or ctype not in (2, 6) or interlace:
                raise ValueError("PNG type %d depth %d interlace %d not handled" % (ctype, depth, interlace))
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    raw = zlib.decompress(idat)
    stride = w * bpp
    prev = bytearray(stride)
    pixels = []
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        pixels.extend(tuple(line[i:i + 3]) for i in range(0, stride, bpp))
        prev = line
    return w, h, pixels


TOP_ROW = re.compile(r"^\s+(\d[\d.]* [KMGTP]?i?B)\s+[\d.]+%\s+(\d+)\s+\d+\s+\S+ \S+\s+(.*)$")


def top_at(vt, trace, t):
    """(total bytes, [(size text, live count, first site line)]) of `top --at Tns`."""
    j = json.loads(subprocess.run([vt, "top", trace, "--at", "%dns" % t, "--json"], stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, check=True).stdout)
    total = sum(d["bytes"] for d in j["devices"])
    text = subprocess.run([vt, "top", trace, "--at", "%dns" % t, "--top", "10"], stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, check=True).stdout.decode()
    rows = [m.groups() for m in map(TOP_ROW.match, text.splitlines()) if m]
    return total, [(size, int(n), site.strip()) for size, n, site in rows]


def check_stacks(vt, trace, r):
    """The timeline's panel at each moment the self test showed, against `top`."""
    st = r.get("stacks")
    check(st is not None, "the timeline has the top sites at its moments")
    if not st:
        return
    check(st["open"] is not None and st["open"]["total"] == max(st["open"]["total"], st["peak"]["total"]),
          "it opens on the highest moment")
    check(st["later"] and st["marked"], "'later' steps to the next sampled moment, marked on the chart")
    for name in ("peak", "third", "next"):
        m = st[name]
        total, rows = top_at(vt, trace, m["t"])
        check(m["total"] == total, "%s (%d ns): the panel's total %d is top --at's %d" % (name, m["t"], m["total"], total))
        check(len(m["rows"]) == min(10, len(rows)) or (not rows and not m["rows"]),
              "%s: %d rows, top lists %d" % (name, len(m["rows"]), len(rows)))
        if rows and m["rows"]:
            p, (size, n, site) = m["rows"][0], rows[0]
            check(p["size"] == size and p["count"] == n and p["site"].split(" <- ")[0].split(" via ")[0] == site,
                  "%s: first row %s, %d live, %r is top's %s, %d, %r" % (name, p["size"], p["count"], p["site"][:40], size, n, site))
            check(sorted((x["size"], x["count"]) for x in m["rows"]) == sorted((a, b) for a, b, _ in rows[:len(m["rows"])]),
                  "%s: every row's size and live count are top's" % name)


def folded(vt, trace):
    out = subprocess.run([vt, "export", "--format", "folded", trace], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, check=True).stdout.decode()
    lines = []
    for line in out.splitlines():
        stack, _, n = line.rpartition(" ")
        lines.append((stack.split(";"), int(n)))
    return lines


def inverted_roots(lines):
    roots = {}
    for frames, n in lines:
        roots[frames[-1]] = roots.get(frames[-1], 0) + n
    return roots


def check_search(vt, trace, queries, r):
    """The flame graph's search and inverted view (built with --native, the folded
    export's tree) against the folded stacks: the first query, then the second (whose
    frames lie under one another: each stack's bytes count once)."""
    lines = folded(vt, trace)
    q = queries[0]
    check_query(lines, q, r["search"])
    if len(queries) > 1:
        check(r.get("search2") is not None, "the second search ran")
        if r.get("search2"):
            check_query(lines, queries[1], r["search2"])
    check_inverted(lines, r)


def check_query(lines, q, s):
    rx = re.compile(q, re.I)
    hit = lambda f: rx.search(f) or q.lower() in f.lower()
    total = sum(n for _, n in lines)
    want_bytes = sum(n for frames, n in lines if any(hit(f) for f in frames))
    want_count = len({tuple(frames[:i + 1]) for frames, _ in lines for i, f in enumerate(frames) if hit(f)})
    check(s["total"] == total, "the flame graph's root %d is the folded stacks' sum %d" % (s["total"], total))
    check(s["count"] == want_count and want_count > 0, "search %r highlights %d frames, the folded stacks have %d" % (q, s["count"], want_count))
    check(s["bytes"] == want_bytes, "search %r matches %d bytes, the folded stacks %d" % (q, s["bytes"], want_bytes))
    pct = "Matched: %.1f%%" % (100.0 * want_bytes / total)
    check(s["label"].startswith(pct) and s.get("pinkPixels", 1) > 0, "it says %r (%r) and draws the matches" % (pct, s["label"]))


def check_inverted(lines, r):
    roots = inverted_roots(lines)
    inv = r["inverted"]
    check(inv["pressed"] == "true" and inv["nroots"] == len(roots) and
          all(roots.get(x["name"]) == x["bytes"] for x in inv["roots"]) and
          inv["roots"][0]["bytes"] == max(roots.values()),
          "inverted: %d roots, the innermost frames with their bytes (%s)" % (inv["nroots"], inv["roots"][:2]))
    check(inv["bytes"] == r["search"]["bytes"], "inverted: the search matches the same bytes")


def check_inverted_svg(vt, trace, svg):
    """--inverted's SVG: the row under the root holds the innermost frames."""
    text = open(svg, encoding="utf-8").read()
    boxes = [(int(y), html.unescape(t).split("\n")[0], int(b)) for t, b, y in
             re.findall(r"<g><title>(.*?) \((\d+) bytes, [\d.]+%\)</title><rect x=\"[\d.]+\" y=\"(\d+)\"", text, re.S)]
    ys = sorted({y for y, _, _ in boxes})
    got = {name: b for y, name, b in boxes if len(ys) > 1 and y == ys[1]}
    want = inverted_roots(folded(vt, trace))
    big = {k: v for k, v in want.items() if v * 1200 > sum(want.values())}  # boxes of a pixel or more are drawn
    check(all(got.get(k) == v for k, v in big.items()) and set(got) <= set(want),
          "--inverted SVG: the first row is the innermost frames (%d drawn of %d)" % (len(got), len(want)))


def test_page(exe, page, work, kind, query=None):
    url = "file://" + page
    print("== %s (%s)" % (os.path.basename(page), kind))
    q = "".join("&%s=%s" % (k, urllib.parse.quote(v)) for k, v in zip(("q", "q2"), query or ()))
    rc, dom, log = run_browser(exe, ["--enable-logging=stderr", "--v=0", "--dump-dom", url + "?selftest=1" + q], work)
    r = None
    check(rc == 0, "chromium --dump-dom exit status %d" % rc)
    m = re.search(r'<pre id="vt-selftest">(.*?)</pre>', dom, re.S)
    check(m is not None, "the self test ran and wrote #vt-selftest")
    if m:
        r = json.loads(html.unescape(m.group(1)))
        print("   self test: " + json.dumps(r))
        check(r.get("ok") is True, "the self test passed")
        check(r["painted"] > 1000, "it drew: %d painted pixels, %d colours" % (r["painted"], r["colors"]))
        check(r["errors"] == [], "no script error: %s" % r["errors"])
        if kind == "timeline":
            check(r["legend"] == r["series"] and r["series"] >= 1, "%d legend entries for %d series" % (r["legend"], r["series"]))
            check(r["zoomed"] and r["range1"] != r["range0"], "zooming changed the visible range: %r -> %r" % (r["range0"], r["range1"]))
            check(r["wheel"] and r["drag"], "wheel and drag zoom")
            check(r["range2"] == r["range0"], "reset shows it all again")
            check(r["tooltip"], "hovering shows the tooltip")
        else:
            check(r["zoomed"] and r["reset"], "click-to-zoom and reset (%r)" % r.get("label1"))
            check(r["tooltip"], "hovering shows the tooltip")
            check(r["cleared"] and r["back"]["count"] == r["search"]["count"], "search clears; the view toggles back")
    for el in ('id="vt-chart"', 'id="vt-range"', 'id="vt-data"'):
        check(el in dom, "element %s is in the DOM" % el)
    if kind == "timeline":
        check('class="vt-legend-item' in dom, "legend entries are in the DOM")
    console = [l for l in log.splitlines() if "CONSOLE" in l and ("Uncaught" in l or "Error" in l or "error" in l)]
    check(not console, "no console error in Chromium's log %s" % console[:3])

    png = os.path.join(work, os.path.basename(page) + ".png")
    rc, _, log = run_browser(exe, ["--screenshot=" + png, url], work)
    check(rc == 0 and os.path.exists(png), "chromium --screenshot wrote %s" % os.path.basename(png))
    if os.path.exists(png):
        w, h, px = png_pixels(png)
        colors = len(set(px))
        ink = sum(1 for p in px if p != (255, 255, 255)) / float(len(px))
        check(colors >= 50, "the screenshot (%dx%d) has %d colours" % (w, h, colors))
        check(ink >= 0.03, "%.1f%% of it is not background" % (100 * ink))
    return r


def main():
    exe = chromium()
    if not exe:
        print("SKIP: Chromium not found (Debian: apt-get install chromium); the HTML reports are not tested in a browser")
        return 77
    vt, gen, src = os.environ["VRAMTRACE"], os.environ["VT_GEN"], os.environ["SRC_DIR"]
    keep = os.environ.get("VT_BROWSER_KEEP")
    work = tempfile.mkdtemp(prefix="vt-browser.")
    try:
        bert = os.path.join(src, "tests/data/findings/batch16.vtrace")
        for s in ("oom", "python", "marks"):
            subprocess.run([gen, s, os.path.join(work, s + ".vtrace")], check=True)
        pages = [
            ("timeline", ["timeline", bert, "-o", "bert-category.html"]),
            ("flame", ["flamegraph", bert, "--native", "-o", "bert-flame-native.html"]),
            ("timeline", ["timeline", bert, "--by", "site", "-o", "bert-site.html"]),
            ("timeline", ["timeline", os.path.join(work, "oom.vtrace"), "-o", "oom.html"]),
            ("timeline", ["timeline", os.path.join(work, "marks.vtrace"), "-o", "marks.html"]),
            ("flame", ["flamegraph", bert, "-o", "bert-flame.html"]),
            ("flame", ["flamegraph", os.path.join(work, "python.vtrace"), "--flame", "-o", "python-flame.html"]),
        ]
        # a regex that matches frames at several depths of the BERT trace's stacks
        # (the second: main's caller at the top of every stack and the allocator at the foot of most)
        query = ("0x15d3f|0xa2c8", "0xddb1|0x566be")
        for kind, args in pages:
            args[-1] = os.path.join(work, args[-1])
            p = subprocess.run([vt] + args, stderr=subprocess.PIPE)
            check(p.returncode == 0, "vramtrace %s" % " ".join(args[:1] + args[-2:]))
            if p.returncode != 0:
                continue
            native = "--native" in args
            r = test_page(exe, args[-1], work, kind, query if native else None)
            if r and kind == "timeline" and args[1] == bert:
                check_stacks(vt, bert, r)
            if r and native:
                check_search(vt, bert, query, r)
        svg = os.path.join(work, "bert-inverted.svg")
        p = subprocess.run([vt, "flamegraph", bert, "--native", "--inverted", "-o", svg], stderr=subprocess.PIPE)
        check(p.returncode == 0, "vramtrace flamegraph --inverted -o bert-inverted.svg")
        if p.returncode == 0:
            check_inverted_svg(vt, bert, svg)
        if keep:
            os.makedirs(keep, exist_ok=True)
            for f in os.listdir(work):
                if f.endswith((".html", ".png")):
                    shutil.copy(os.path.join(work, f), keep)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for f in failures:
        print("FAIL: " + f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
