# SPDX-License-Identifier: MIT
# A SIGTERM sent to vramtrace is forwarded to the command, which handles it.
export VRAMTRACE_LIB="$VT_PLUMB_LIB"
"$VRAMTRACE" run -- sh -c "trap \"echo got TERM; exit 5\" TERM; kill -TERM \$PPID; sleep 2 & wait" 2>/dev/null
echo "exit $?"
