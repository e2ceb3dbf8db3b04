# SPDX-License-Identifier: MIT
# Killed by SIGTERM: 128 + 15; the trace it wrote before dying is still found.
export VRAMTRACE_LIB="$VT_PLUMB_LIB"
"$VRAMTRACE" run --no-summary -o k-%p.vtrace -- "$VT_GEN" as-recorder --kill 2> err
echo "exit $?"
sed -E "s/pid [0-9]+/pid PID/g; s/k-[0-9]+\.vtrace/k-PID.vtrace/g; s/, [0-9.]+ [KMG]?i?B\)/, SIZE)/" err
