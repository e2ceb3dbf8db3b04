# An OOM under PyTorch's own cap on an H200 (no driver call failed; the allocator's trace
# tracker said so): HF GPT-2 from its config, bf16 autocast, AdamW, batch 32 x 1024 under
# set_per_process_memory_fraction(16 GiB), --torch-modules. Each view names it with the size
# asked and the user's line that asked: report, the timeline's first line, the Perfetto
# JSON's OOM instant.
T=$SRC_DIR/tests/data/blocks/torch-blocks-gpt2-oom-cap-h200.vtrace
"$VRAMTRACE" report "$T" 2>/dev/null | sed -n '/^  OUT OF MEMORY/,/asked by/p'
"$VRAMTRACE" timeline "$T" -o t.html 2>/dev/null &&
  sed -n 's/.*<p class="vt-sub"><b>peak/<b>peak/p' t.html | sed 's/<[^>]*>//g'
"$VRAMTRACE" export --format perfetto-json "$T" -o p.json 2>/dev/null && python3 -c '
import json, sys
d = json.load(open("p.json"))
ev = d["traceEvents"] if isinstance(d, dict) else d
for e in ev:
    if e.get("name") == "OOM":
        a = e["args"]
        print("perfetto OOM at %.3f s: %d bytes asked, %s" % (e["ts"] / 1e6, a["size"], a["site"]))
'
