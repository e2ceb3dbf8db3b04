# SPDX-License-Identifier: MIT
"$VT_GEN" simple t.vtrace || exit 1
for by in site function module kind; do
  echo "## --by $by"; "$VRAMTRACE" top t.vtrace --by $by --frames 1
done
echo "## --at end of the leak trace"; "$VT_GEN" leak l.vtrace && "$VRAMTRACE" top l.vtrace --at end --by function
echo "## --at 3.5ms"; "$VRAMTRACE" top t.vtrace --at 3.5ms --by kind
echo "## --at 5500us"; "$VRAMTRACE" top t.vtrace --at 5500us --by kind
