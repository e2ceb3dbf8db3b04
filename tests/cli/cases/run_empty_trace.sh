# The recorder created its file but could not write the header (a full disk): run says
# that, not that the command made no CUDA call.
export VRAMTRACE_LIB="$VT_PLUMB_LIB"
"$VRAMTRACE" run -o e-%p.vtrace -- sh -c ': > e-$$.vtrace' 2> err
echo "exit $?"
sed -E "s/e-[0-9]+\.vtrace/e-PID.vtrace/g" err
