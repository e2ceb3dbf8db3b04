# SPDX-License-Identifier: MIT
# diff: the peak of two runs by category (batch 16 against 32, then fp32 against bf16).
F=$SRC_DIR/tests/data/findings
"$VRAMTRACE" diff "$F/batch16.vtrace" "$F/batch32.vtrace" 2>/dev/null | sed -n '1,/^sites that grew/p' | grep -v '^sites that grew'
echo "## json"
"$VRAMTRACE" diff --json "$F/batch16.vtrace" "$F/prec-bf16.vtrace" 2>/dev/null | sed -n '/"by_category": \[/,/^  \],/p'
