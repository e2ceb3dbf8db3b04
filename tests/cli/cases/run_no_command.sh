# SPDX-License-Identifier: MIT
"$VRAMTRACE" run -o x.vtrace
