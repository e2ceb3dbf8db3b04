# A trace left at the command's name before the run (an older trace, or one planted by
# someone else) is not this run's: run says so, leaves it alone and summarizes nothing.
export VRAMTRACE_LIB="$VT_PLUMB_LIB"
"$VT_GEN" simple planted.vtrace && touch planted.vtrace
"$VRAMTRACE" run -o planted.vtrace -- sh -c "exit 0" 2> err
echo "exit $?"
cat err
