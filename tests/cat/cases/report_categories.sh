# SPDX-License-Identifier: MIT
# The category blocks of `report` on a real vt-bert trace: at the peak (with the NVML
# row), and by rule section in JSON. Sites are left out: their lines depend on whether
# the full vt-bert binary or only tests/cat/sym's symbol table is at hand.
F=$SRC_DIR/tests/data/findings
"$VRAMTRACE" report "$F/batch16.vtrace" 2>/dev/null | sed -n '/by category at the peak/,/top sites/p' | grep -v 'top sites'
echo "## json"
"$VRAMTRACE" report --json "$F/batch16.vtrace" 2>/dev/null | awk '/"categories": \{/{f=1} f{print} f&&/^      \},?$/{exit}'
echo "## fp16, lifetimes alone"
"$VRAMTRACE" report --no-default-rules "$F/prec-fp16.vtrace" 2>/dev/null | sed -n '/by category at the peak/,/top sites/p' | grep -v 'top sites'
