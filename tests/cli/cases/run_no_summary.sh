# SPDX-License-Identifier: MIT
export VRAMTRACE_LIB="$VT_PLUMB_LIB"
mkdir "sub dir" && "$VRAMTRACE" run --no-summary -o "sub dir/t-%p.vtrace" -- "$VT_GEN" as-recorder 2> err
echo "exit $?"
sed -E "s/pid [0-9]+/pid PID/g; s/t-[0-9]+\.vtrace/t-PID.vtrace/g; s/, [0-9.]+ [KMG]?i?B\)/, SIZE)/" err
