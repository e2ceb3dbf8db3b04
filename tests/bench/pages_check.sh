#!/bin/sh
# SPDX-License-Identifier: MIT
# pages_check.sh PYTHON - bench_pages.py counts the pages between bench_blocks.py's marks:
# a made-up lackey trace of two recording events (3 and 5 pages) and one paused event
# (1 page), with accesses outside the marks that must not count.
set -eu
py=$1
src=$(cd "$(dirname "$0")" && pwd)
W=$(mktemp -d "${TMPDIR:-/tmp}/vt-pages-check.XXXXXX")
trap 'rm -rf "$W"' EXIT
cat > "$W/maps.txt" <<'MAPS'
400000-500000 r-xp 00000000 00:00 1 /usr/lib/librec.so
7f0000000000-7f0000100000 rw-p 00000000 00:00 0
MAPS
cat > "$W/trace.txt" <<'TRACE'
I  00401000,4
 L 7f0000005000,8
 S 600000000000,8
I  00401000,4
I  00402000,4
 L 7f0000001008,8
 S 600000000040,8
 L 7f0000009000,8
 S 600000000000,8
I  00401000,4
I  00401010,4
I  00402000,4
I  00403000,4
 L 7f0000001000,8
 M 7f0000002000,8
 S 600000000040,8
 S 600000000080,8
I  00401000,4
 S 6000000000c0,8
TRACE
"$py" "$src/bench_pages.py" --maps "$W/maps.txt" < "$W/trace.txt" > "$W/out.txt"
cat "$W/out.txt"
grep -q '^recording: 2 events, pages an event: median 4 (code 2.5, data 1.5), min 3, max 5$' "$W/out.txt"
grep -q '^paused: 1 events, pages an event: median 1 (code 1, data 0), min 1, max 1$' "$W/out.txt"
