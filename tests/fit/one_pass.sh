#!/bin/sh
# SPDX-License-Identifier: MIT
# `fit` in one pass (its models riding along the analysis, vt_fit_early.c) gives what it
# gives in two (VRAMTRACE_FIT_TWO_PASS=1), on gen_trace's training trace (cuMemAlloc
# before and beside cuMemAllocAsync: the restart, the outside allocations, the
# categories at the peak, the capped twins) and on a vt-bert trace (the cuda-libraries
# rules' outside stacks), for each allocator and --memory that keeps to one pass or
# falls back; and it did take one pass where it should (VRAMTRACE_FIT_DEBUG=1).
#   one_pass.sh VRAMTRACE GEN_TRACE BERT_TRACE WORKDIR
set -u
vt=$1 gen=$2 bert=$3 w=$4
mkdir -p "$w"
export VRAMTRACE_NO_PROGRESS=1 VRAMTRACE_FIT_DEBUG=1
"$gen" -n 200000 -l 5000 -o "$w/g.vtrace" > /dev/null || { echo "gen_trace failed"; exit 1; }
fail=0
check() {  # TRACE WANT(one|two|any) OPTIONS...
  t=$1 want=$2; shift 2
  "$vt" fit "$t" "$@" > "$w/one.out" 2> "$w/one.err"; r1=$?
  VRAMTRACE_FIT_TWO_PASS=1 "$vt" fit "$t" "$@" > "$w/two.out" 2> "$w/two.err"; r2=$?
  grep -v '^vramtrace: fit: ' "$w/one.err" > "$w/one.err2"
  grep -v '^vramtrace: fit: ' "$w/two.err" > "$w/two.err2"
  if [ $r1 != $r2 ] || ! cmp -s "$w/one.out" "$w/two.out" || ! cmp -s "$w/one.err2" "$w/two.err2"; then
    echo "DIFFERS: fit $t $*"; diff "$w/one.out" "$w/two.out" | head -5; fail=1
  fi
  case $want in
    one) grep -q '^vramtrace: fit: one pass$' "$w/one.err" || { echo "not one pass: fit $t $*"; cat "$w/one.err"; fail=1; } ;;
    two) grep -q '^vramtrace: fit: two passes: ' "$w/one.err" || { echo "not two passes: fit $t $*"; cat "$w/one.err"; fail=1; } ;;
  esac
}
g=$w/g.vtrace
for a in caching expandable async exact; do
  check "$g" one --no-default-rules --allocator "$a"
  check "$g" one --no-default-rules --allocator "$a" --json --memory 80GiB --memory 141GB
done
check "$g" two --no-default-rules --memory 3GiB
check "$g" two --no-default-rules --memory 3GiB --memory 80GiB
check "$g" one --no-default-rules --memory 5GiB --memory 80GiB
check "$g" one --no-default-rules --allocator-cap --memory 1GiB
check "$g" two --no-default-rules --allocator-cap --memory 200MiB
check "$g" one --no-default-rules --context 2GiB --alloc-conf roundup_power2_divisions:4
check "$g" two --no-default-rules --alloc-conf garbage_collection_threshold:0.7
check "$g" one --no-default-rules --device 0
check "$g" any --no-default-rules --device 1
check "$bert" two
check "$bert" one --no-default-rules
check "$bert" any --memory 1GiB --allocator expandable
[ $fail = 0 ] && echo "one_pass: fit gives the same in one pass and in two"
exit $fail
