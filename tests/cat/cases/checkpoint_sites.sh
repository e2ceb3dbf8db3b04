# The checkpointed run's recomputed activations are made on autograd's thread, under
# Python frames of the model library only (no line of the user's own): a site is named by
# its op and those frames, innermost first, never by the allocator's C++ frames under the
# op. The diff's sites that grew, then how many lines of the whole diff name a c10:: or
# at::detail:: frame (0).
D=$SRC_DIR/tests/data/blocks
"$VRAMTRACE" diff "$D/torch-blocks-bert-bf16-h200.vtrace" "$D/torch-blocks-bert-bf16-ckpt-h200.vtrace" 2>/dev/null > d.txt
sed -n '/^sites that grew/,/^$/p' d.txt | head -20
grep -c "c10::\|at::detail::" d.txt
