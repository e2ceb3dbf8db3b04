# SPDX-License-Identifier: MIT
"""`python -m vramtrace ARGS...`: the same as the `vramtrace` command."""
import sys

from vramtrace._cli import main

sys.exit(main())
