# SPDX-License-Identifier: MIT
# A process killed between two flushes: the file ends at a chunk boundary with no trailer.
"$VT_GEN" notrailer t.vtrace && "$VRAMTRACE" report --frames 1 t.vtrace
