# PyTorch's blocks (the default caching allocator) of HF BERT-base bf16 on an H200, without
# and with gradient checkpointing: gradients are the parameters' bytes though their sites
# make temporaries in later steps (the per-allocation split); the checkpointed run's
# activations are the recomputed ones and the layer outputs the checkpoint keeps, none of
# them temporary (its steps are found from the blocks alone, not the segments they lie in).
# The traces are in tests/data/blocks, not tests/data: the exports' checks of every trace
# there (html_data_*) do not hold yet for blocks-mode traces (docs/pictures.md).
D=$SRC_DIR/tests/data/blocks
"$VRAMTRACE" top "$D/torch-blocks-bert-bf16-ckpt-h200.vtrace" --by category 2>/dev/null
"$VRAMTRACE" diff "$D/torch-blocks-bert-bf16-h200.vtrace" "$D/torch-blocks-bert-bf16-ckpt-h200.vtrace" 2>/dev/null |
  sed -n '/by category at the peak/,/^$/p'
"$VRAMTRACE" report --json "$D/torch-blocks-bert-bf16-ckpt-h200.vtrace" 2>/dev/null | grep -A3 '"iterations"' | head -3
# the timeline's second replay moves block bytes between the groups' own series as the
# first does between groups: its series add up to the device's total at every bucket
"$VRAMTRACE" timeline "$D/torch-blocks-bert-bf16-h200.vtrace" -o tl.svg 2>&1 | grep -c "do not add up"
