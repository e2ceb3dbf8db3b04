# SPDX-License-Identifier: MIT
"""The `vramtrace` command of the wheel: runs the CLI shipped inside the package (bin/),
which finds the recorder beside it (lib/libvramtrace.so)."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BIN = os.path.join(HERE, "bin", "vramtrace")
LIB = os.path.join(HERE, "lib", "libvramtrace.so")


def main(argv=None):
    args = sys.argv[1:] if argv is None else list(argv)
    if not os.access(BIN, os.X_OK):
        sys.stderr.write("vramtrace: the CLI of this package is missing or not executable: %s\n" % BIN)
        return 2
    # The CLI replaces this Python process: `vramtrace run` forwards signals to the
    # traced program and exits with its status, with no interpreter in between.
    os.execv(BIN, ["vramtrace"] + args)
