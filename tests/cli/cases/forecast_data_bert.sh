# HF BERT-base, fp32, seq 128, AdamW, traced per-tensor on the H200 at batches 8, 16 and 24
# (tests/data/README.md): the largest batch under 16, 24 and 40 GiB allocator caps, the
# reduction buffers held at the device's grid (132 SMs). The real runs, one process each
# under set_per_process_memory_fraction: 192, 296 and 512 train, 520 does not (docs/fit.md).
d=$SRC_DIR/tests/data/forecast
"$VRAMTRACE" forecast --vary batch 8:$d/bert-b8-h200.vtrace 16:$d/bert-b16-h200.vtrace 24:$d/bert-b24-h200.vtrace \
  --allocator-cap --memory 16GiB --memory 24GiB --memory 40GiB --at 296 --at 512 2>/dev/null
"$VRAMTRACE" forecast --vary batch 8:$d/bert-b8-h200.vtrace 16:$d/bert-b16-h200.vtrace 24:$d/bert-b24-h200.vtrace \
  --allocator-cap --memory 40GiB --json 2>/dev/null | grep -E '"reduction|"largest|"value": 5'
