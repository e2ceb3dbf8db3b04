# A knob given once, runs that do not match, a caching-mode trace: one line, exit 2.
"$VT_GEN" train-4 b4.vtrace && "$VT_GEN" simple s.vtrace
"$VRAMTRACE" forecast --vary batch 4:b4.vtrace; echo "exit $?"
"$VRAMTRACE" forecast --vary batch 4:b4.vtrace 8:s.vtrace; echo "exit $?"
"$VRAMTRACE" forecast --vary batch 4:b4.vtrace 4:b4.vtrace; echo "exit $?"
"$VRAMTRACE" forecast 4:b4.vtrace 8:b4.vtrace; echo "exit $?"
"$VRAMTRACE" forecast --vary batch 4:b4.vtrace 8:"$SRC_DIR/tests/data/torch-default-bert-base-h200.vtrace" 2>err
echo "exit $?"
grep -v 'not found:\|symbol warnings' err
