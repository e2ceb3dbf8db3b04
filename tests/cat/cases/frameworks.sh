# SPDX-License-Identifier: MIT
# Categories of the real PyTorch and JAX traces in tests/data (recorded on an H200; their
# libraries are not here, so frames are module+offset: only module rules and lifetimes
# can decide). Caching mode is said plainly.
D=$SRC_DIR/tests/data
for t in torch-cudaMallocAsync-bert-base torch-default-bert-base jax-mlp-default jax-mlp-platform cupy; do
  echo "## $t"
  "$VRAMTRACE" report "$D/$t-h200.vtrace" 2>/dev/null | sed -n '/by category at the peak/,/top sites/p' | grep -v 'top sites'
  "$VRAMTRACE" report "$D/$t-h200.vtrace" 2>/dev/null | sed -n '/by category at the end/,/NVML:/p' | grep -v 'NVML:'
done
echo "## iterations found"
for t in torch-cudaMallocAsync-bert-base jax-mlp-platform; do
  "$VRAMTRACE" report --json "$D/$t-h200.vtrace" 2>/dev/null | grep -A3 '"iterations"' | head -3
done
