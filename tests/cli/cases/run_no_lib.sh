VRAMTRACE_LIB=/nonexistent/libvramtrace.so "$VRAMTRACE" run -- true
