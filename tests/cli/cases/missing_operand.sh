# SPDX-License-Identifier: MIT
"$VRAMTRACE" report
