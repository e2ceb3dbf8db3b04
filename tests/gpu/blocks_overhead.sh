#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Step-time overhead of PyTorch's blocks (issue 23; docs/benchmarks.md, section 7):
#   ROUNDS=3 STEPS=150 bash tests/gpu/blocks_overhead.sh
# BERT-base fp16 (bench_steps.py --amp fp16: batch 16, seq 128, AdamW, autocast +
# GradScaler) under `vramtrace run` (the default caching allocator, blocks traced through
# the allocator trace tracker, Python frames on). Each round is one process pinned to
# CORES (taskset, as overhead.sh), in which blocks of BLOCK steps (default 1: every other
# step) with recording on and paused (vramtrace_set_recording) take turns until each mode
# has STEPS steps; the round's figure is the ratio of the two modes' median steps. The
# process-to-process spread of this launch-bound model (up to 25%, section 4) does not
# reach a ratio inside one process; a drift within the process does when the modes take
# turns slowly: blocks of 5 steps gave -8% to +10% between rounds of one tree on the H200
# (docs/benchmarks.md, section 7), hence every other step, many steps, and the median.
# Then one untraced process (information). STATS=1 adds one traced process with
# VRAMTRACE_STATS=1 and prints the recorder's own account (preload/vt_stats.c).
# Pass: round 1's trace is in blocks mode (`report --json`: the tracker was attached) and
# the median over rounds of recording/paused <= 1.03. Prints one line per round
# and a summary line "blocks overhead: ..."; leaves $OUT/blocks-overhead.tsv (round,
# recording ms, paused ms, ratio) and $OUT/blocks-overhead.json.
set -u
. "$(dirname "$0")/env.sh"
CORES=${CORES:-2-9}
ROUNDS=${ROUNDS:-3}
STEPS=${STEPS:-150}
BLOCK=${BLOCK:-1}
pin=(taskset -c "$CORES")
taskset -c "$CORES" true 2>/dev/null || pin=()  # fewer cores than that: unpinned
bench=("$root/tests/gpu/bench_steps.py" --amp fp16 --warmup 10 --steps "$STEPS" --block "$BLOCK")
tsv=$OUT/blocks-overhead.tsv
: > "$tsv"
blocks_fail=0
for r in $(seq 1 "$ROUNDS"); do
  line=$("${pin[@]}" "$VT" run --no-summary -o "$W/bo.vtrace" -- $PY "${bench[@]}" --ab fp16,fp16+paused \
         2> "$OUT/blocks-overhead-$r.err" | tail -1)
  if [ "$r" = 1 ]; then
    # the figure means nothing unless the blocks were traced: the report's mode says so
    tr=$(ls "$W"/bo.vtrace* 2>/dev/null | head -1)
    mode=$([ -n "$tr" ] && "$VT" report --json "$tr" 2>/dev/null | $PY -c '
import json, sys
print(" ".join(sorted({d["categories"]["mode"] for d in json.load(sys.stdin)["devices"]})))' 2>/dev/null)
    echo "round 1: trace mode ${mode:-none}"
    case " $mode " in *" blocks "*) ;; *) echo "blocks overhead: the trace is not in blocks mode: FAIL"; blocks_fail=1 ;; esac
  fi
  rm -f "$W"/bo.vtrace*
  echo "$line" | $PY -c '
import json, sys
m = json.loads(sys.stdin.read())["modes"]
on, off = m["fp16"]["median_ms"], m["fp16+paused"]["median_ms"]
print("%s\t%.3f\t%.3f\t%.4f" % (sys.argv[1], on, off, on / off))' "$r" >> "$tsv" \
    || { echo "round $r: no result (see $OUT/blocks-overhead-$r.err)"; tail -3 "$OUT/blocks-overhead-$r.err"; }
  tail -1 "$tsv" | awk -F'\t' -v r="$r" '$1 == r { printf "round %s: recording %.2f ms, paused %.2f ms, %+.1f%%\n", r, $2, $3, ($4 - 1) * 100 }'
done
native=$("${pin[@]}" $PY "${bench[@]}" --ab fp16 2>/dev/null | tail -1 \
         | $PY -c 'import json, sys; print(json.loads(sys.stdin.read())["modes"]["fp16"]["median_ms"])' 2>/dev/null)
$PY - "$tsv" "${native:-nan}" "$OUT/blocks-overhead.json" "$blocks_fail" <<'PY'
import json, statistics, sys
rows = [l.split("\t") for l in open(sys.argv[1]) if l.strip()]
if not rows:
    print("blocks overhead: no round gave a result: FAIL")
    sys.exit(1)
ratios = [float(r[3]) for r in rows]
med = statistics.median(ratios)
rec = statistics.median(float(r[1]) for r in rows)
paused = statistics.median(float(r[2]) for r in rows)
native = float(sys.argv[2])
blocks = sys.argv[4] == "0"
ok = med <= 1.03 and blocks
json.dump({"ratio": med, "rounds": ratios, "recording_ms": rec, "paused_ms": paused, "untraced_ms": native,
           "blocks_mode": blocks, "pass": ok}, open(sys.argv[3], "w"))
print("blocks overhead: %+.1f%% recording vs paused, median of %d rounds (%s); recording %.2f ms, paused %.2f ms, "
      "untraced process %.2f ms: %s" % ((med - 1) * 100, len(ratios), " ".join("%+.1f" % ((x - 1) * 100) for x in ratios),
                                        rec, paused, native, "pass" if ok else "FAIL (want <= +3%, blocks mode)"))
sys.exit(0 if ok else 1)
PY
rc=$?
if [ -n "${STATS:-}" ]; then
  VRAMTRACE_STATS=1 "${pin[@]}" "$VT" run --no-summary -o "$W/bo.vtrace" -- $PY "${bench[@]}" --ab fp16 \
    > /dev/null 2> "$OUT/blocks-overhead-stats.err"
  rm -f "$W"/bo.vtrace*
  grep -h 'vramtrace: stats:' "$OUT/blocks-overhead-stats.err" | tee "$OUT/blocks-overhead-stats.txt"
fi
exit $rc
