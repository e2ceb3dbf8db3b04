#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# file_graph.py - the project's file graph (includes + calls), ranked into levels, with its circles.
"""Draws the C sources of format/, preload/ and analyzer/ as a graph and measures it.

A node is a module: a .c file and the .h of the same name in the same folder count as
one (a header is its source's interface); a header or source alone is a node too.
A arrow A -> B when A includes one of B's files, or when A names a function or global
that is defined (not static) in exactly one other module, B. Names are matched as
whole identifiers in the text left after comments, strings and preprocessor lines are
removed, so a call through a macro or a function pointer counts as well.

Levels: the circles (strongly connected components) are folded into one node each; a
node that uses nothing is on level 1, any other node one level above the highest it
uses. The figures are the number of levels and the size of the largest circle.

  python3 scripts/file_graph.py [ROOT]                 summary, circles, levels
  python3 scripts/file_graph.py --check L C [ROOT]     exit 1 when there are more
                                                       than L levels or a circle of
                                                       more than C modules
  python3 scripts/file_graph.py --edges [ROOT]         every arrow, with its reason

--check also fails on an arrow that goes up the folders' order (LAYERS below), or from
preload/ to analyzer/ and back.
"""
import os
import re
import sys

DIRS = ("format", "preload", "analyzer")
# Which folder may use which: a folder uses only those before it in its line
# (docs/design.md). preload/ and analyzer/ both stand on format/, never on each other.
LAYERS = (("format", "preload"),
          ("format", "analyzer/base", "analyzer/model", "analyzer/sym", "analyzer/analysis",
           "analyzer/out", "analyzer/cmd"))
IDENT = re.compile(r"[A-Za-z_]\w*")
KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "struct", "union",
            "enum", "typedef", "extern"}


def strip_c(text):
    """Removes comments, string/char literals and preprocessor lines."""
    out = []
    i, n = 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and c == "#":
            # a directive, with its continuation lines
            while i < n and text[i] != "\n":
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    i += 1
                i += 1
            continue
        if c == "/" and text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
            out.append(" ")
            continue
        if c == "/" and text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
            continue
        if c in "\"'":
            q = c
            i += 1
            while i < n and text[i] != q:
                i += 2 if text[i] == "\\" else 1
            i += 1
            out.append(" 0 ")
            line_start = False
            continue
        out.append(c)
        if c == "\n":
            line_start = True
        elif not c.isspace():
            line_start = False
        i += 1
    return "".join(out)


def scan(code):
    """What a stripped file defines at file scope (functions and globals, not static), and
    the text where it names things: all of it but the prototypes (a declaration is not a use)."""
    names = set()
    used = []
    depth = 0
    stmt = []
    for c in code:
        if c == "{":
            if depth == 0:
                pre = "".join(stmt)
                name = defined_name(pre, brace=True)
                if name:
                    names.add(name)
                used.append(pre + " ")
                stmt = []
            depth += 1
        elif c == "}":
            depth -= 1
        elif depth == 0:
            if c == ";":
                pre = "".join(stmt)
                name = defined_name(pre, brace=False)
                if name:
                    names.add(name)
                if "(" not in pre or "=" in pre:
                    used.append(pre + " ")
                stmt = []
            else:
                stmt.append(c)
            continue
        if depth > 0 or c == "}":
            used.append(c)
    return names, "".join(used)


def defined_name(pre, brace):
    words = IDENT.findall(pre)
    if not words or words[0] in ("static", "typedef", "extern") or "static" in words[:3]:
        return None
    # The recorder's interposers of libc (close, _exit, sigaction...) stand in for the
    # library's own names: a call of close() is a call of libc, not an arrow to the hook.
    if words[0] == "VT_EXPORT" and not re.search(r"\b(vt_|vramtrace_)\w*\s*\(", pre):
        return None
    if words[0] in ("struct", "union", "enum") and "(" not in pre and "=" not in pre:
        return None  # a type, or a variable of an unnamed one we do not follow
    head = pre.split("=", 1)[0]
    if "(" in head:
        if "=" in pre or not brace:
            return None  # a prototype (or a pointer to a function, left aside)
        m = re.search(r"([A-Za-z_]\w*)\s*\([^()]*(\([^()]*\)[^()]*)*\)\s*$", head)
        return m.group(1) if m and m.group(1) not in KEYWORDS else None
    if not brace and "=" not in pre:
        head = pre
    head = re.sub(r"\[[^\]]*\]", "", head)
    ids = IDENT.findall(head)
    if len(ids) < 2:
        return None  # a variable needs a type and a name
    return ids[-1]


def load(root):
    files = {}
    for d in DIRS:
        for dirpath, _, names in os.walk(os.path.join(root, d)):
            for f in sorted(names):
                if f.endswith((".c", ".h")):
                    p = os.path.join(dirpath, f)
                    files[os.path.relpath(p, root)] = open(p, errors="replace").read()
    return files


def module_of(path):
    return os.path.splitext(path)[0]


def build(root):
    files = load(root)
    by_base = {}
    for p in files:
        by_base.setdefault(os.path.basename(p), []).append(p)
    code = {}
    defs = {}  # name -> set of modules
    for p, t in files.items():
        names, code[p] = scan(strip_c(t))
        for name in names:
            defs.setdefault(name, set()).add(module_of(p))
    edges = {}  # (a, b) -> reason
    for p, t in files.items():
        a = module_of(p)
        for inc in re.findall(r'^\s*#\s*include\s+"([^"]+)"', t, re.M):
            for q in by_base.get(os.path.basename(inc), []):
                b = module_of(q)
                if b != a:
                    edges.setdefault((a, b), "includes " + os.path.basename(q))
        for name in set(IDENT.findall(code[p])):
            owners = defs.get(name)
            if owners and len(owners) == 1:
                b = next(iter(owners))
                if b != a:
                    edges.setdefault((a, b), "uses " + name)
    nodes = sorted({module_of(p) for p in files})
    return nodes, edges


def sccs(nodes, adj):
    """Tarjan's strongly connected components, iteratively."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(adj[root]))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(adj[w])))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                out.append(sorted(comp))
    return out


def levels(nodes, adj, comps):
    comp_of = {v: i for i, c in enumerate(comps) for v in c}
    level = {}
    # Tarjan emits components in reverse topological order: users after what they use.
    for i, c in enumerate(comps):
        lv = 1
        for v in c:
            for w in adj[v]:
                j = comp_of[w]
                if j != i:
                    lv = max(lv, level[j] + 1)
        level[i] = lv
    return {v: level[comp_of[v]] for v in nodes}


def folder(module):
    return os.path.dirname(module)


def upward(edges):
    """Arrows from a folder to one it may not use."""
    bad = []
    for (a, b), why in sorted(edges.items()):
        fa, fb = folder(a), folder(b)
        if fa == fb:
            continue
        ok = False
        for line in LAYERS:
            if fa in line and fb in line and line.index(fb) < line.index(fa):
                ok = True
        if not ok:
            bad.append(f"{a} -> {b} ({why})")
    return bad


def main(argv):
    check = None
    show_edges = False
    args = argv[1:]
    if args[:1] == ["--check"]:
        check = (int(args[1]), int(args[2]))
        args = args[3:]
    elif args[:1] == ["--edges"]:
        show_edges = True
        args = args[1:]
    root = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    nodes, edges = build(root)
    adj = {v: [] for v in nodes}
    for a, b in sorted(edges):
        adj[a].append(b)
    if show_edges:
        for (a, b), why in sorted(edges.items()):
            print(f"{a} -> {b}  ({why})")
        return 0
    comps = sccs(nodes, adj)
    lv = levels(nodes, adj, comps)
    top = max(lv.values()) if lv else 0
    circles = sorted((c for c in comps if len(c) > 1), key=len, reverse=True)
    biggest = len(circles[0]) if circles else 1
    print(f"{len(nodes)} modules, {len(edges)} arrows, {top} levels, "
          f"{len(circles)} circles, largest {biggest} modules")
    for c in circles:
        print(f"circle of {len(c)}: " + " ".join(c))
    if check is None:
        sys.stdout.flush()
        for level in range(top, 0, -1):
            print(f"level {level:2}: " + " ".join(sorted(v for v in nodes if lv[v] == level)))
        return 0
    bad = []
    if top > check[0]:
        bad.append(f"{top} levels (at most {check[0]})")
    if biggest > check[1]:
        bad.append(f"a circle of {biggest} modules (at most {check[1]})")
    for arrow in upward(edges):
        bad.append("an arrow up the layers: " + arrow)
    if bad:
        print("file_graph: " + "; ".join(bad), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
