# SPDX-License-Identifier: MIT
# run exits with the command's status; a command that never touches CUDA leaves no trace.
export VRAMTRACE_LIB="$VT_PLUMB_LIB"
"$VRAMTRACE" run -- sh -c "exit 3" 2> err
echo "exit $?"
sed -E "s/[0-9]{2,}/PID/g" err
