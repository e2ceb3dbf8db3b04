# Control bytes in every name a text view prints (host, command, device, module, scope,
# Python file and function, the symbolizer's warning): shown as \xNN, never sent raw.
"$VT_GEN_HOSTILE" ctrl c.vtrace && "$VRAMTRACE" report c.vtrace && "$VRAMTRACE" top c.vtrace --by function
