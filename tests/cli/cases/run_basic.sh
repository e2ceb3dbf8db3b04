# SPDX-License-Identifier: MIT
# vt_gen as-recorder stands in for a traced program: it writes a trace where
# VRAMTRACE_OUTPUT says. Pids and sizes vary and are masked.
export VRAMTRACE_LIB="$VT_PLUMB_LIB"
"$VRAMTRACE" run -o out-%p.vtrace -- "$VT_GEN" as-recorder 2> err
echo "exit $?"
sed -E "s/pid [0-9]+/pid PID/g; s/out-[0-9]+\.vtrace/out-PID.vtrace/g; s/, [0-9.]+ [KMG]?i?B\)/, SIZE)/" err
ls out-*.vtrace | sed -E "s/[0-9]+/PID/"
