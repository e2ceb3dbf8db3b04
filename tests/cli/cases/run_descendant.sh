# SPDX-License-Identifier: MIT
# A pattern without %p: the program spawns a copy of itself, which writes <path>.<pid>.
export VRAMTRACE_LIB="$VT_PLUMB_LIB"
"$VRAMTRACE" run --no-summary -o out.vtrace -- "$VT_GEN" as-recorder --spawn 2> err
echo "exit $?"
sed -E "s/pid [0-9]+/pid PID/g; s/out\.vtrace\.[0-9]+/out.vtrace.PID/g; s/, [0-9.]+ [KMG]?i?B\)/, SIZE)/" err
