# A trace of PyTorch's default allocator (segments, not tensors) cannot be fitted: exit 2.
"$VRAMTRACE" fit "$SRC_DIR/tests/data/torch-default-bert-base-h200.vtrace" 2>err; echo "exit $?"
grep -v 'not found:\|symbol warnings' err
