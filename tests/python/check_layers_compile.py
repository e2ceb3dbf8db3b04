# SPDX-License-Identifier: MIT
"""Checks torch_compile.py's trace: each expected layer holds its MiB at the end (report
--json's by_layer), the buffer without a module stack is in none of them, and the
generated line's frame names its module in the sites (`call [lm_head]`)."""
import json
import subprocess
import sys

cli, trace, expect = sys.argv[1:4]
want = json.load(open(expect))["layers"]
r = json.loads(subprocess.run([cli, "report", "--json", trace], check=True, capture_output=True).stdout)
got = {}
for dev in r["devices"]:
    for row in dev.get("by_layer") or []:
        got[row.get("layer")] = got.get(row.get("layer"), 0) + row.get("bytes", 0)
bad = [(k, v, got.get(k, 0) >> 20) for k, v in want.items() if got.get(k, 0) != v << 20]
if bad:
    print("check_layers_compile: layer, MiB wanted, MiB found: %s; layers: %s" % (bad, got))
    sys.exit(1)
top = subprocess.run([cli, "top", "--by", "site", "--at", "end", trace], check=True, capture_output=True).stdout.decode()
missing = [k for k in want if "call [%s]" % k not in top]
if missing:
    print("check_layers_compile: sites do not name %s:\n%s" % (missing, top))
    sys.exit(1)
print("check_layers_compile: ok (%s)" % ", ".join("%s %d MiB" % (k, v) for k, v in want.items()))
