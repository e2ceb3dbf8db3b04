# SPDX-License-Identifier: MIT
"$VT_GEN" batch-small a.vtrace && "$VT_GEN" batch-big b.vtrace && "$VRAMTRACE" diff --json a.vtrace b.vtrace
