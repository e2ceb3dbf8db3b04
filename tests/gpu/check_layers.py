#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks the issue's test case on `vramtrace top --by layer --json` output of HF BERT-base
traces (tests/gpu/python_layers.sh):

    check_layers.py top TOP512.json
        the attention sub-blocks are the biggest holders of activations at the peak:
        among the encoder's module scopes (bert.encoder.layer.N.<block>), summed over the
        12 layers by block, the largest block is an attention one, attention holds more
        than every other block together, and the single largest encoder row is attention.
    check_layers.py growth TOP128.json TOP512.json
        seq 128 -> 512 (x4): the most each block held grows ~x16 (quadratic) in attention's
        self-attention and ~x4 (linear) in the feed-forward: attention.self grows by more
        than x8, intermediate by less than x6, and attention takes most of the growth.
Prints the per-block table; exits 0 on success, 1 on a failed check."""
import json
import re
import sys

ENC = re.compile(r"^(?:bert\.)?encoder\.layer\.(\d+)\.(.+)$")


def rows(path):
    with open(path) as f:
        d = json.load(f)
    devs = d["devices"]
    dev = max(devs, key=lambda x: x["peak_bytes"])
    return dev, dev["rows"]


def blocks(rs, key):
    out = {}
    for r in rs:
        m = ENC.match(r.get("layer") or "")
        if m:
            out[m.group(2)] = out.get(m.group(2), 0) + r[key]
    return out


def mib(b):
    return "%.1f MiB" % (b / 1048576.0)


def top(path):
    dev, rs = rows(path)
    b = blocks(rs, "bytes")
    print("peak %s; encoder blocks at the peak, summed over layers:" % mib(dev["peak_bytes"]))
    for k, v in sorted(b.items(), key=lambda kv: -kv[1]):
        print("  %12s  %s" % (mib(v), k))
    ok = True
    if not b:
        print("FAIL: no encoder module scopes (was the trace made with --torch-modules?)")
        return False
    best = max(b, key=b.get)
    att = sum(v for k, v in b.items() if k.startswith("attention"))
    other = sum(v for k, v in b.items() if not k.startswith("attention"))
    enc_rows = [r for r in rs if ENC.match(r.get("layer") or "")]
    biggest = max(enc_rows, key=lambda r: r["bytes"])
    print("largest block: %s; attention %s vs the rest %s; largest row: %s (%s)"
          % (best, mib(att), mib(other), biggest["layer"], mib(biggest["bytes"])))
    if not best.startswith("attention"):
        print("FAIL: the largest block is not attention"); ok = False
    if att <= other:
        print("FAIL: attention does not hold more than the other blocks together"); ok = False
    if ".attention." not in biggest["layer"]:
        print("FAIL: the largest encoder row is not an attention one"); ok = False
    return ok


def growth(p128, p512):
    _, r1 = rows(p128)
    _, r2 = rows(p512)
    m1, m2 = blocks(r1, "max_bytes"), blocks(r2, "max_bytes")
    print("most held per block (summed over layers), seq 128 -> 512:")
    ratio = {}
    for k in sorted(set(m1) | set(m2), key=lambda k: -(m2.get(k, 0) - m1.get(k, 0))):
        a, b = m1.get(k, 0), m2.get(k, 0)
        ratio[k] = b / a if a else float("inf")
        print("  %12s -> %12s  x%-6.2f %s" % (mib(a), mib(b), ratio[k], k))
    ok = True
    att_self = [v for k, v in ratio.items() if k == "attention.self"]
    inter = [v for k, v in ratio.items() if k.startswith("intermediate")]
    if not att_self or att_self[0] <= 8:
        print("FAIL: attention.self grew by x%s (want > x8: quadratic)" % (att_self[0] if att_self else "?")); ok = False
    if not inter or max(inter) >= 6:
        print("FAIL: intermediate grew by x%s (want < x6: linear)" % (max(inter) if inter else "?")); ok = False
    g_att = sum(m2.get(k, 0) - m1.get(k, 0) for k in m2 if k.startswith("attention"))
    g_all = sum(m2.get(k, 0) - m1.get(k, 0) for k in m2)
    print("attention's share of the growth: %.0f%%" % (100.0 * g_att / g_all if g_all else 0))
    if g_all <= 0 or g_att * 2 <= g_all:
        print("FAIL: attention does not take most of the growth"); ok = False
    return ok


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "top":
        sys.exit(0 if top(sys.argv[2]) else 1)
    if len(sys.argv) == 4 and sys.argv[1] == "growth":
        sys.exit(0 if growth(sys.argv[2], sys.argv[3]) else 1)
    sys.exit(__doc__)
