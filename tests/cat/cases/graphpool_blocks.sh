# torch.compile(mode="reduce-overhead") on an H200, PyTorch's blocks (the default caching
# allocator): HF BERT-base and GPT-2, bf16 autocast, AdamW, 4 steps, zero_grad(set_to_none=
# True). Against the programs' own counts (tests/gpu/tracker_train.py's last line):
# weights, gradients and optimizer_state at the peak (in opt.step) within 1% of the
# parameters' bytes (BERT 437,935,112; GPT-2 497,759,232) and of AdamW's state (twice
# those), and blocks + idle + the CUDA graph pool = max_memory_reserved (BERT
# 6,727,663,616; GPT-2 5,926,551,552). Warm-up, recording and replay run the same
# generated code under other frames: the steps are found by its lines.
D=$SRC_DIR/tests/data/blocks
for m in bert gpt2; do
  "$VRAMTRACE" report --json "$D/torch-blocks-$m-bf16-reduce-overhead-h200.vtrace" 2>/dev/null | python3 -c '
import json, sys
m, params = sys.argv[1], {"bert": 437935112, "gpt2": 497759232}[sys.argv[1]]
reserved = {"bert": 6727663616, "gpt2": 5926551552}[m]
j = json.load(sys.stdin)
d = j["devices"][0]
cat = {r["category"]: r["bytes"] for r in d["by_category"]}
kind = {r["kind"]: r["bytes"] for r in d["by_kind"]}
segs = kind.get("torch_block", 0) + kind.get("idle_in_segments", 0) + kind.get("idle_in_graph_pools", 0)
print(m, "iterations", j["traces"][0]["iterations"]["count"])
for c, want in (("weights", params), ("gradients", params), ("optimizer_state", 2 * params)):
    got = cat.get(c, 0)
    print("  %-16s %12d  want %12d  %+.3f%%  %s" % (c, got, want, 100.0 * (got - want) / want,
          "ok" if abs(got - want) <= want / 100 else "OFF BY MORE THAN 1%"))
print("  segments         %12d  want %12d  %s" % (segs, reserved, "ok" if segs == reserved else "DIFFER"))
print("  graph pool       %12d  idle, %d in tensors" % (d["categories"]["graph_pool_bytes_at_peak"],
      d["categories"]["graph_pool_block_bytes_at_peak"]))
' "$m"
done
"$VRAMTRACE" report "$D/torch-blocks-bert-bf16-reduce-overhead-h200.vtrace" 2>/dev/null |
  sed -n '/by kind at the peak/,/unexplained/p'
