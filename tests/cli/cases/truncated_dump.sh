# SPDX-License-Identifier: MIT
"$VT_GEN" truncated t.vtrace && "$VRAMTRACE" dump t.vtrace 2> err | grep -v "^stack\|^module" | sed -E "s/(byte |offset=)[0-9]+/\\1N/g; s/\\([0-9]+ of [0-9]+ bytes\\)/(N of M bytes)/"; sed -E "s/(byte |offset=)[0-9]+/\\1N/g; s/\\([0-9]+ of [0-9]+ bytes\\)/(N of M bytes)/" err >&2
