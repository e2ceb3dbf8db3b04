# SPDX-License-Identifier: MIT
"""Jupyter: a kernel is traced when its process starts under the recorder, so
`%load_ext vramtrace` can only check that and explain the one step that makes it so: a
kernel spec whose command is `vramtrace run --no-summary -- python -m ipykernel_launcher`.
`python -m vramtrace.kernelspec` installs that spec (named "vramtrace")."""
import json
import os
import sys

SPEC_NAME = "vramtrace"


def spec(python=None):
    """The kernel.json that starts an IPython kernel under the recorder."""
    python = python or sys.executable
    return {
        "argv": [python, "-m", "vramtrace", "run", "--no-summary", "-o", "vramtrace-kernel-%p.vtrace", "--",
                 python, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3 (vramtrace)",
        "language": "python",
        "metadata": {"debugger": False},
    }


def install(prefix=None, user=True):
    """Writes the kernel spec; returns its folder. Uses jupyter_client when present,
    else the standard user folder (~/.local/share/jupyter/kernels)."""
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        d = os.path.join(tmp, SPEC_NAME)
        os.makedirs(d)
        with open(os.path.join(d, "kernel.json"), "w") as f:
            json.dump(spec(), f, indent=1)
        try:
            from jupyter_client.kernelspec import KernelSpecManager
        except ImportError:
            base = prefix and os.path.join(prefix, "share", "jupyter", "kernels") or os.path.join(
                os.environ.get("XDG_DATA_HOME") or os.path.expanduser("~/.local/share"), "jupyter", "kernels")
            dest = os.path.join(base, SPEC_NAME)
            os.makedirs(dest, exist_ok=True)
            with open(os.path.join(dest, "kernel.json"), "w") as f:
                json.dump(spec(), f, indent=1)
            return dest
        return KernelSpecManager().install_kernel_spec(d, SPEC_NAME, user=user and not prefix, prefix=prefix)


def explain(out):
    from vramtrace import is_recording, _get
    if _get().recording is not None and _get().recording() >= 0:
        state = "recording" if is_recording() else "paused"
        out("vramtrace: this kernel runs under the recorder (%s); vramtrace.mark(), pause(), resume() "
            "and region() work here. The trace is written when the kernel exits (restart or shut it down)."
            % state)
        return
    out("vramtrace: this kernel was not started under the recorder, so nothing is recorded and the\n"
        "vramtrace.* calls do nothing. The recorder must be loaded when the kernel process starts:\n"
        "  1. install a kernel spec that starts it under `vramtrace run`:\n"
        "       %s -m vramtrace.kernelspec\n"
        "  2. pick the kernel \"Python 3 (vramtrace)\" (Kernel > Change kernel) and run the notebook;\n"
        "  3. the trace (vramtrace-kernel-PID.vtrace, in the notebook's folder) is complete when the\n"
        "     kernel shuts down: `vramtrace report vramtrace-kernel-PID.vtrace`." % sys.executable)
