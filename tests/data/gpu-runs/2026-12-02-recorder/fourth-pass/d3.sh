#!/usr/bin/env bash
# Session 19, call 3: the overhead bar with more rounds, this tree's recorder (de48cd2).
set -u
. tests/gpu/env.sh
date -u
ROUNDS=12 STEPS=150 bash tests/gpu/blocks_overhead.sh 2>&1 | tail -16
tail -n 2 "$OUT"/blocks-overhead-1.err
rm -f "$OUT"/blocks-overhead-*.err
date -u
