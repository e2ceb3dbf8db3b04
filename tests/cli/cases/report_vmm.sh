# SPDX-License-Identifier: MIT
# VMM: H1 released before its unmap stays live until the unmap; H2 retained once
# needs two releases; H3 released but still mapped is live at the end. Peak 6 MiB at 5 ms.
"$VT_GEN" vmm t.vtrace && "$VRAMTRACE" report --frames 1 t.vtrace
