"$VT_GEN" simple t.vtrace
"$VRAMTRACE" check t.vtrace --max-peak 20GiB --max-leak 0 --json
echo "exit $?"
"$VRAMTRACE" check t.vtrace --max-peak 1MiB --json
echo "exit $?"
