# SPDX-License-Identifier: MIT
"""Helpers for the Python tests' checkers: read a trace through `vramtrace dump` (every
allocation with its stack: Python frames, scopes, native frames as addresses) and
`vramtrace report --json` (sites with symbolized frames).

Frames are innermost first, each a tuple:
    ("py", file, function, line)   ("scope", name)   ("native", address)
"""
import json
import os
import re
import subprocess
import sys

FAILS = []


def fail(msg):
    FAILS.append(msg)
    print("FAIL: " + msg)


def check(cond, msg):
    if not cond:
        fail(msg)
    return cond


def done(name):
    if FAILS:
        print("%s: %d check(s) failed" % (name, len(FAILS)))
        sys.exit(1)
    print("%s: ok" % name)
    sys.exit(0)


def unescape(s):
    out = bytearray()
    i = 0
    b = s.encode("utf-8", "surrogateescape")
    while i < len(b):
        c = b[i]
        if c == 0x5C and i + 1 < len(b):  # backslash
            n = b[i + 1]
            if n == ord("x"):
                out.append(int(b[i + 2:i + 4], 16))
                i += 4
                continue
            out.append(n)
            i += 2
            continue
        out.append(c)
        i += 1
    return out.decode("utf-8", "replace")


KV = re.compile(r'(\w+)=("(?:[^"\\]|\\.)*"|\S+)')


def fields(line):
    d = {}
    for k, v in KV.findall(line):
        d[k] = unescape(v[1:-1]) if v.startswith('"') else v
    return d


def emu():
    """The emulator the CLI of a cross build runs under (VT_EMU, tests/aarch64)."""
    e = os.environ.get("VT_EMU", "")
    return [e] if e else []


class Trace:
    def __init__(self, vramtrace, path):
        out = subprocess.run(emu() + [vramtrace, "dump", path], check=True, stdout=subprocess.PIPE).stdout
        self.strings, self.pyframes, self.nodes, self.threads = {}, {}, {}, {}
        self.allocs = []
        for raw in out.decode("utf-8", "surrogateescape").splitlines():
            kind, _, rest = raw.partition(" ")
            f = fields(rest)
            if kind == "string":
                self.strings[int(f["id"])] = f["text"]
            elif kind == "pyframe":
                self.pyframes[int(f["id"])] = (int(f["file"]), int(f["function"]), int(f["line"]))
            elif kind == "stack":
                self.nodes[int(f["id"])] = (int(f["parent"]), f["kind"], int(f["value"], 16))
            elif kind == "thread":
                self.threads[int(f["tid"])] = f.get("name", "")
            elif kind == "alloc":
                self.allocs.append({"size": int(f["size"]), "tid": int(f["tid"]), "stack": int(f["stack"])})
        for a in self.allocs:
            a["frames"] = self.frames(a["stack"])

    def frames(self, sid):
        out = []
        while sid and len(out) < 10000:
            parent, kind, value = self.nodes[sid]
            if kind == "python":
                fi, fn, line = self.pyframes[value]
                out.append(("py", self.strings.get(fi), self.strings.get(fn), line))
            elif kind == "scope":
                out.append(("scope", self.strings.get(value)))
            else:
                out.append(("native", value))
            sid = parent
        return out

    def by_size(self, size):
        return [a for a in self.allocs if a["size"] == size]


def py_frames(frames):
    return [f for f in frames if f[0] == "py"]


def scopes(frames):
    """Scope names, outermost first."""
    return [f[1] for f in reversed(frames) if f[0] == "scope"]


def sites(vramtrace, path):
    out = subprocess.run(emu() + [vramtrace, "report", "--json", "--top", "100000", path], check=True,
                         stdout=subprocess.PIPE).stdout
    d = json.loads(out)
    res = []
    for t in d.get("traces", [d]):
        for dev in t.get("devices", []):
            for s in dev.get("sites", []):
                res.append(s)
    return res


def markers(path):
    """'# @name' markers of a source file: name -> line number."""
    m = {}
    with open(path) as f:
        for i, line in enumerate(f, 1):
            for name in re.findall(r"# @(\w+)", line):
                m[name] = i
    return m
