# SPDX-License-Identifier: MIT
# VRAMTRACE_DEPTH=0: no stacks; pitch and array allocations count as device memory.
"$VT_GEN" nostack t.vtrace && "$VRAMTRACE" report t.vtrace
