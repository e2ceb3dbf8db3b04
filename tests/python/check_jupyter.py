# SPDX-License-Identifier: MIT
"""`%load_ext vramtrace` outside the recorder explains how to start a kernel under it,
and `python -m vramtrace.kernelspec --prefix DIR` writes a kernel spec whose command is
`python -m vramtrace run ... -- python -m ipykernel_launcher -f {connection_file}`."""
import io
import json
import os
import subprocess
import sys
import tempfile
from contextlib import redirect_stdout

import vramtrace

out = io.StringIO()
with redirect_stdout(out):
    vramtrace.load_ipython_extension(None)
text = out.getvalue()
assert "not started under the recorder" in text and "-m vramtrace.kernelspec" in text, text

with tempfile.TemporaryDirectory() as d:
    p = subprocess.run([sys.executable, "-m", "vramtrace.kernelspec", "--prefix", d], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    spec = json.load(open(os.path.join(d, "share", "jupyter", "kernels", "vramtrace", "kernel.json")))
    argv = spec["argv"]
    assert argv[1:4] == ["-m", "vramtrace", "run"], argv
    i = argv.index("--")
    assert argv[i + 1:] == [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"], argv
print("check_jupyter: ok")
