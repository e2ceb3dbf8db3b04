# SPDX-License-Identifier: MIT
VRAMTRACE_LIB=/nonexistent/libvramtrace.so "$VRAMTRACE" run -- true
