# SPDX-License-Identifier: MIT
# --rules: the user's rules come first, even when a built-in rule matches a more inner
# frame; sections name them in the report; several files apply in order.
F=$SRC_DIR/tests/data/findings
cat > mine.rules <<'R'
# whatever the layers' backward allocates is ours to call "other"
[mine]
other    function=layer_backward  module=vt-bert
R
cat > second.rules <<'R'
[second]
weights  function~^alloc_(temp|grad)\(
R
"$VRAMTRACE" top --by category --rules mine.rules "$F/batch16.vtrace" 2>/dev/null
echo "## two files"
"$VRAMTRACE" report --rules mine.rules --rules=second.rules --json "$F/batch16.vtrace" 2>/dev/null | awk '/"by_rule": \[/{f=1} f{print} f&&/^        \]/{exit}'
