# SPDX-License-Identifier: MIT
"$VRAMTRACE" report no-such-file.vtrace
