# SPDX-License-Identifier: MIT
VRAMTRACE_LIB="$VT_PLUMB_LIB" "$VRAMTRACE" run --depth 300 -- true
