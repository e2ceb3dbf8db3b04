# SPDX-License-Identifier: MIT
# `timeline --by site` names a site as report and top do (the op, the user's line, the
# Python chain), not by its innermost (allocator) frames: the legend of the SVG, the
# series of the HTML, and top's rows for comparison.
"$VT_GEN" python t.vtrace && "$VT_GEN" oom o.vtrace || exit 1
for t in t o; do
    echo "## top --by site $t"; "$VRAMTRACE" top $t.vtrace --by site --frames 3
    echo "## timeline --by site $t: the SVG's legend"
    "$VRAMTRACE" timeline $t.vtrace --by site --top 2 -o $t.svg 2> /dev/null &&
        sed -n 's/.*<text[^>]*>\([^<]*\)<\/text>.*/\1/p' $t.svg | grep -E ' (B|KiB|MiB|GiB)$'
    echo "## timeline --by site $t: the HTML's series"
    "$VRAMTRACE" timeline $t.vtrace --by site -o $t.html 2> /dev/null &&
        grep -o '"name":"[^"]*"' $t.html
done
