# SPDX-License-Identifier: MIT
"""Checks that every allocation of a trace has the scopes its program expected.

    check_scopes.py VRAMTRACE TRACE EXPECT.json

EXPECT.json: [{"mib": N, "scopes": [outermost first]}, ...]: the allocation of N MiB
(exactly one) must have exactly these scope frames.
"""
import json
import sys

import vtcheck
from vtcheck import check

MiB = 1 << 20
vramtrace, trace, expect_path = sys.argv[1:4]
t = vtcheck.Trace(vramtrace, trace)
with open(expect_path) as f:
    expect = json.load(f)
check(len(expect) > 0, "nothing expected")
for e in expect:
    a = t.by_size(e["mib"] * MiB)
    if not check(len(a) == 1, "%d MiB: %d allocations (want 1)" % (e["mib"], len(a))):
        continue
    got = vtcheck.scopes(a[0]["frames"])
    check(got == e["scopes"], "%d MiB: scopes\n   got  %s\n   want %s" % (e["mib"], got, e["scopes"]))
check(len(t.allocs) == len(expect), "%d allocations in the trace, %d expected" % (len(t.allocs), len(expect)))
vtcheck.done("check_scopes")
