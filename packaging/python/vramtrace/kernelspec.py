# SPDX-License-Identifier: MIT
"""`python -m vramtrace.kernelspec [--prefix DIR]`: installs the Jupyter kernel spec
"Python 3 (vramtrace)", which starts kernels under the recorder."""
import argparse
import sys

from vramtrace import _jupyter


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m vramtrace.kernelspec", description=__doc__)
    p.add_argument("--prefix", help="install under PREFIX/share/jupyter/kernels (e.g. sys.prefix of a venv)")
    a = p.parse_args(argv)
    dest = _jupyter.install(prefix=a.prefix)
    print("vramtrace: installed the kernel spec \"Python 3 (vramtrace)\" in %s" % dest)
    return 0


if __name__ == "__main__":
    sys.exit(main())
