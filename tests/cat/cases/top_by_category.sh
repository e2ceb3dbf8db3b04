# SPDX-License-Identifier: MIT
# top --by category: at the peak, at the end, at a time, lifetimes alone, JSON.
F=$SRC_DIR/tests/data/findings
echo "## recompute, peak"; "$VRAMTRACE" top --by category "$F/recompute.vtrace" 2>/dev/null
echo "## recompute, lifetimes alone"; "$VRAMTRACE" top --by category --no-default-rules "$F/recompute.vtrace" 2>/dev/null
echo "## batch1 at 400ms"; "$VRAMTRACE" top --by category --at 400ms "$F/batch1.vtrace" 2>/dev/null
echo "## tiny at the end"; "$VRAMTRACE" top --by category --at end "$F/tiny.vtrace" 2>/dev/null
echo "## sgd --top 2 --json"; "$VRAMTRACE" top --by category --top 2 --json "$F/sgd.vtrace" 2>/dev/null
