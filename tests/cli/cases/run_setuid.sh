# A setuid command: the loader does not preload the recorder into it; run says so first.
export VRAMTRACE_LIB="$VT_PLUMB_LIB"
t=/usr/bin/true; [ -x $t ] || t=/bin/true; cp $t ./suid-true && chmod u+s ./suid-true
"$VRAMTRACE" run -- ./suid-true 2> err
echo "exit $?"
sed -E "s/[0-9]{2,}/PID/g" err
