# Self-contained traces: a trace written by a copy of vt_gen, symbolized while the copy
# is there, reads the same once it is gone; without the SYMBOL records it shows
# module+offset. A second symbolize adds nothing; a trace cut short is refused.
mkdir bin && cp "$VT_GEN" bin/vt_gen
./bin/vt_gen simple s.vtrace && ./bin/vt_gen simple u.vtrace
"$VRAMTRACE" symbolize s.vtrace 2>&1 | sed -E 's/\(\+[0-9]+ B, [0-9.]+ [mun]?s\)/(+SIZE, TIME)/'
"$VRAMTRACE" dump s.vtrace | grep -c '^symbol '
"$VRAMTRACE" dump s.vtrace | grep '^symbol ' | grep -c 'function="body_simple" file="[^"]*vt_gen.c" line='
"$VRAMTRACE" report s.vtrace > before.txt
rm -r bin
"$VRAMTRACE" report s.vtrace > after.txt && cmp before.txt after.txt && echo "same report without the binary"
"$VRAMTRACE" report u.vtrace 2>&1 | grep -c 'vt_gen+0x'
"$VRAMTRACE" symbolize s.vtrace 2>&1 | sed -E 's/\(\+[0-9]+ B, [0-9.]+ [mun]?s\)/(+SIZE, TIME)/'
"$VT_GEN" truncated t.vtrace && "$VRAMTRACE" symbolize t.vtrace
echo "exit $?"
"$VRAMTRACE" symbolize
echo "exit $?"
