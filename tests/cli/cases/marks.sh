# Marks (vramtrace.mark()): dump prints them, top --at mark:NAME replays up to the first
# of that name, an unknown one is an error naming those the trace has, timelines draw them.
"$VT_GEN" marks t.vtrace
"$VRAMTRACE" dump t.vtrace | grep '^mark'
"$VRAMTRACE" top t.vtrace --at mark:start
"$VRAMTRACE" top t.vtrace --at mark:done --json | grep -E '"(at|mark|bytes)"'
"$VRAMTRACE" top t.vtrace --at mark:epoch
echo "exit $?"
"$VRAMTRACE" timeline t.vtrace -o t.svg 2>/dev/null && grep -c '<title>mark ' t.svg
"$VRAMTRACE" timeline t.vtrace -o t.html 2>/dev/null && grep -o '"marks":\[[^]]*\]' t.html
