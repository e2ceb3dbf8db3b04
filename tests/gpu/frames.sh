#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The user's line first, pool slack and qualified layers on the GPU machine (issue 16;
# docs/cli.md "Frames", docs/validation.md).  bash tests/gpu/frames.sh
# Uses the bundle in .gpu/ and the machine's python3 (torch, transformers, lightning).
# Runs frames_train.py under `vramtrace run --per-tensor` (GPT-2, BERT with
# --torch-modules too, an OOM, a Lightning module); about 2 minutes of GPU time. Checks:
#   gpt2, bert  report's first site: an aten:: op on its first line and a transformers
#               modeling_*.py file with its line among its lines; the summary at exit at
#               most 25 lines of 100 columns; the pool row measured, "unexplained" stated
#   oom         the OOM's asked-by names frames_train.py's FRAMES-OOM-LINE
#   lit         top --by layer names net.0 and net.2 (not 0, 2)
#   flame       the GPT-2 flamegraph (HTML; PNG by headless Chromium where there is one)
# Outputs under $OUT/frames/: reports, summaries, top, gpt2-flame.html/.png.
set -u
. "$(dirname "$0")/env.sh"
O=$OUT/frames
mkdir -p "$O"
fail=0
say() { echo "FAIL: $*"; fail=1; }
T=$root/tests/gpu/frames_train.py

for m in gpt2 bert; do
  extra=
  [ $m = bert ] && extra=--torch-modules
  "$VT" run --per-tensor $extra -o "$W/$m.vtrace" -- $PY "$T" $m > "$O/$m.out" 2> "$O/$m.summary" ||
    { say "$m run"; cat "$O/$m.summary"; continue; }
  cp "$W/$m.vtrace" "$O/" 2>/dev/null
  "$VT" report "$W/$m.vtrace" > "$O/$m.report" 2> "$O/$m.report.err" || say "$m report"
  awk '/top sites at the peak/ { getline; getline; n = 6 } n > 0 { print; n-- }' "$O/$m.report" > "$O/$m.site"
  echo "== $m: the first site of report"; cat "$O/$m.site"
  head -1 "$O/$m.site" | grep -q "aten::" || say "$m: the first site's first line is not an aten op"
  grep -Eq "modeling_[a-z0-9_]+\.py:[0-9]+" "$O/$m.site" || say "$m: no transformers modeling file:line in the first site"
  echo "== $m: the summary at exit"; cat "$O/$m.summary"
  n=$(grep -c "" "$O/$m.summary")
  [ "$n" -le 26 ] || say "$m: summary of $n lines (25 + the trace line at most)"
  # the summary's own lines (the program's stderr is in the same file)
  $PY -c 'import sys; sys.exit(any(len(l.rstrip("\n")) > 100 for l in open(sys.argv[1]) if l.startswith("vramtrace:")))' "$O/$m.summary" ||
    say "$m: a summary line over 100 columns"
  grep -E "pool slack|driver pools|unexplained|NVML" "$O/$m.report" | tee "$O/$m.pool"
  grep -q "driver pools: .* reserved" "$O/$m.report" || say "$m: no driver pool row (pool slack not measured)"
  grep -q "left unexplained" "$O/$m.report" || say "$m: the unexplained rest not stated"
done
"$VT" top --by layer "$W/bert.vtrace" > "$O/bert-layers.txt" 2>&1 && head -20 "$O/bert-layers.txt"

"$VT" run --per-tensor -o "$W/oom.vtrace" -- $PY "$T" oom > "$O/oom.out" 2> "$O/oom.summary" || say "oom run"
"$VT" report "$W/oom.vtrace" > "$O/oom.report" 2>&1 || say "oom report"
line=$(grep -n "FRAMES-OOM-LINE" "$T" | cut -d: -f1)
sed -n '/asked by:/,/live then/p' "$O/oom.report" | tee "$O/oom.asked"
grep -q "frames_train.py:$line" "$O/oom.asked" || say "oom: asked-by does not name frames_train.py:$line"
grep -A1 "OUT OF MEMORY" "$O/oom.summary" | grep -q "frames_train.py:$line" || say "oom: the summary's OOM line does not name the line"

"$VT" run --per-tensor --torch-modules -o "$W/lit.vtrace" -- $PY "$T" lit > "$O/lit.out" 2> "$O/lit.summary" || say "lit run"
"$VT" top --by layer "$W/lit.vtrace" > "$O/lit-layers.txt" 2>&1
cat "$O/lit-layers.txt"
grep -Eq "(^| )net\.0( |$)" "$O/lit-layers.txt" || say "lit: no layer net.0"
grep -Eq "(^| )net\.2( |$)" "$O/lit-layers.txt" || say "lit: no layer net.2"

"$VT" flamegraph "$W/gpt2.vtrace" -o "$O/gpt2-flame.html" 2>&1 || say "flamegraph"
# The PNG for docs/pictures.md: headless Chromium as tests/html/browser.py drives it, here
# when the machine has one, else on the dev VM from $OUT/frames/gpt2-flame.html.
ch=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -n "$ch" ]; then
  "$ch" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1280,900 \
    --screenshot="$O/gpt2-flame.png" "file://$O/gpt2-flame.html" > "$O/flame-png.log" 2>&1 || say "flame PNG"
else
  echo "no Chromium here: render $O/gpt2-flame.html on the dev VM"
fi
echo "frames: $([ $fail = 0 ] && echo ok || echo FAILED)"
exit $fail
