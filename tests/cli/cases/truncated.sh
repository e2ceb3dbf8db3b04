# SPDX-License-Identifier: MIT
# Cut in the middle of a chunk: warn where it stops, report what was read, exit 0.
# Compressed sizes (so byte offsets) change with load addresses: they are masked.
"$VT_GEN" truncated t.vtrace && "$VRAMTRACE" report --frames 1 t.vtrace 2> err | sed -E "s/(byte |offset=)[0-9]+/\\1N/g; s/\\([0-9]+ of [0-9]+ bytes\\)/(N of M bytes)/"; sed -E "s/(byte |offset=)[0-9]+/\\1N/g; s/\\([0-9]+ of [0-9]+ bytes\\)/(N of M bytes)/" err >&2
