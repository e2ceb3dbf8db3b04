# SPDX-License-Identifier: MIT
# The HTML timeline of a run that died of an OOM says so in its first line, with the
# size asked and the site that asked.
"$VT_GEN" oom t.vtrace && "$VRAMTRACE" timeline t.vtrace -o t.html 2> /dev/null &&
    sed -n 's/.*<p class="vt-sub"><b>peak/<b>peak/p' t.html | sed 's/<[^>]*>//g'
