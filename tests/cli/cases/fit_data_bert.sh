# HF BERT-base, batch 16, AdamW, fp32, traced per-tensor on the H200 (tests/data/README.md)
# through every model: torch measured 2956 MiB reserved / 2574 MiB allocated under the
# default allocator and 2626 MiB with expandable segments (/work/shared/FACTS.md).
"$VRAMTRACE" fit "$SRC_DIR/tests/data/torch-cudaMallocAsync-bert-base-h200.vtrace" --memory 16GiB --memory 3GiB \
  --frames 1 2>/dev/null
