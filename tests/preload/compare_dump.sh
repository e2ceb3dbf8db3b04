#!/bin/sh
# SPDX-License-Identifier: MIT
# compare_dump.sh CLI TRACECHECK TRACE - `vramtrace dump` (the analyzer) and vt_tracecheck
# (this folder's independent reader) must see the same trace: the same number of records
# of every type, and the same allocations and frees (time, thread, address, size) in order.
set -u
cli=$1 check=$2 trace=$3
"$cli" dump "$trace" > cli_dump.txt 2> cli_dump.err || { echo "compare_dump: vramtrace dump failed:"; cat cli_dump.err; exit 1; }
"$check" dump "$trace" > ref_dump.txt || exit 1
rc=0
for t in $(cut -d' ' -f1 ref_dump.txt | grep -v '^HEADER$' | sort -u); do
    want=$(grep -c "^$t " ref_dump.txt)
    got=$(grep -ci "^$t " cli_dump.txt)
    if [ "$want" != "$got" ]; then
        echo "compare_dump: $t: vt_tracecheck decodes $want record(s), vramtrace dump prints $got line(s)"
        rc=1
    fi
done
# The fields both print as key=value.
norm() {
    awk 'BEGIN { IGNORECASE = 1 }
         tolower($1) == "alloc" || tolower($1) == "free" {
             out = tolower($1)
             n = split("t tid addr size", keys, " ")
             for (k = 1; k <= n; k++)
                 for (i = 2; i <= NF; i++)
                     if (index($i, keys[k] "=") == 1) out = out " " $i
             print out
         }' "$1"
}
norm ref_dump.txt > ref_events.txt
norm cli_dump.txt > cli_events.txt
if ! cmp -s ref_events.txt cli_events.txt; then
    echo "compare_dump: allocations/frees differ (vt_tracecheck < > vramtrace dump):"
    diff ref_events.txt cli_events.txt | head -20
    rc=1
fi
[ $rc = 0 ] && echo "compare_dump: ok ($(wc -l < ref_events.txt) allocations and frees agree)"
exit $rc
