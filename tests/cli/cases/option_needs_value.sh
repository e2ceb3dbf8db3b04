# SPDX-License-Identifier: MIT
"$VRAMTRACE" report t.vtrace --top
