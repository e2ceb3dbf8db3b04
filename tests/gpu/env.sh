# SPDX-License-Identifier: MIT
# Sourced by the scripts of tests/gpu: where things are on the GPU machine.
#   root  the repository;  B, VT  the bundle (tests/gpu/bundle.sh) and its vramtrace;
#   OUT   what comes back (exported: the Python helpers write there too);
#   W     scratch;  PY  the Python with torch, transformers, jax and cupy.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
B=${VT_GPU_BUILD:-$root/.gpu}
VT=$B/bin/vramtrace
export OUT=${OUT:-/tmp/vt-out}
W=${VT_GPU_WORK:-/tmp/vt-gpu}
mkdir -p "$OUT" "$W"
PY=${PYTHON:-python3}
export PYTHONUNBUFFERED=1
