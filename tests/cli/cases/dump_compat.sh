# SPDX-License-Identifier: MIT
"$VT_GEN" compat t.vtrace && "$VRAMTRACE" dump t.vtrace | grep -v "^stack\|^module" | sed -E "s/(byte |offset=)[0-9]+/\\1N/g; s/\\([0-9]+ of [0-9]+ bytes\\)/(N of M bytes)/"
