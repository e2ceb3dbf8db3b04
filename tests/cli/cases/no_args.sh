# SPDX-License-Identifier: MIT
"$VRAMTRACE"
