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


def test_page(exe, page, work, kind):
    url = "file://" + page
    print("== %s (%s)" % (os.path.basename(page), kind))
    rc, dom, log = run_browser(exe, ["--enable-logging=stderr", "--v=0", "--dump-dom", url + "?selftest=1"], work)
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
            ("timeline", ["timeline", bert, "--by", "site", "-o", "bert-site.html"]),
            ("timeline", ["timeline", os.path.join(work, "oom.vtrace"), "-o", "oom.html"]),
            ("timeline", ["timeline", os.path.join(work, "marks.vtrace"), "-o", "marks.html"]),
            ("flame", ["flamegraph", bert, "-o", "bert-flame.html"]),
            ("flame", ["flamegraph", os.path.join(work, "python.vtrace"), "--flame", "-o", "python-flame.html"]),
        ]
        for kind, args in pages:
            args[-1] = os.path.join(work, args[-1])
            p = subprocess.run([vt] + args, stderr=subprocess.PIPE)
            check(p.returncode == 0, "vramtrace %s" % " ".join(args[:1] + args[-2:]))
            if p.returncode == 0:
                test_page(exe, args[-1], work, kind)
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
