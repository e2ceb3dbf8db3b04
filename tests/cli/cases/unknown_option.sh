# SPDX-License-Identifier: MIT
"$VRAMTRACE" report --frobnicate t.vtrace
