# SPDX-License-Identifier: MIT
export VRAMTRACE_LIB="$VT_PLUMB_LIB"
"$VRAMTRACE" run -- ./no-such-program 2> err
echo "exit $?"
sed -E "s/[0-9]{2,}/PID/g" err
