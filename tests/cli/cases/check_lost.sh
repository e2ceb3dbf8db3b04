# A trace whose recorder lost 2 events, with 3 allocations live at the end: report and
# check say the events were lost and that up to 2 of those may be lost frees, not leaks.
"$VT_GEN_HOSTILE" lost l.vtrace || exit 1
"$VRAMTRACE" report l.vtrace | grep -E "lost|live at the end"
"$VRAMTRACE" report --json l.vtrace | grep -E "lost"
"$VRAMTRACE" check l.vtrace --max-leak 0
