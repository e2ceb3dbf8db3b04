#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Bisects a crash of a framework under the recorder: each line runs one small Python
# program with LD_PRELOAD set directly and one recorder feature turned off at a time.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
L=${VT_GPU_BUILD:-$root/.gpu}/lib/libvramtrace.so
W=/tmp/vt-diag; mkdir -p "$W"; cd "$W"
t() {
  local name=$1; shift
  local code=$1; shift
  env "$@" LD_PRELOAD=$L VRAMTRACE_OUTPUT=$W/$name.vtrace timeout 120 python3 -X faulthandler -c "$code" > $W/$name.out 2> $W/$name.err
  echo "$name rc=$? $(ls -s $W/$name.vtrace* 2>/dev/null | head -1) | $(grep -v 'vramtrace: lookup' $W/$name.err | tail -4 | tr '\n' '|' | cut -c1-600)"
}
TI='import torch'
TZ='import torch; x=torch.zeros(1<<20, device="cuda"); torch.cuda.synchronize(); print(x.sum().item())'
JZ='import jax, jax.numpy as jnp; print(jnp.ones(1<<20).sum())'
t torch_import "$TI"
t torch_zeros "$TZ"
t torch_zeros_d0 "$TZ" VRAMTRACE_DEPTH=0
t torch_zeros_nonvml "$TZ" VRAMTRACE_NVML_MS=0
t torch_zeros_d0_nonvml "$TZ" VRAMTRACE_DEPTH=0 VRAMTRACE_NVML_MS=0
t jax_ones "$JZ"
t jax_ones_d0_nonvml "$JZ" VRAMTRACE_DEPTH=0 VRAMTRACE_NVML_MS=0
t jax_ones_debug "$JZ" VRAMTRACE_DEBUG=1
grep 'vramtrace: lookup' $W/jax_ones_debug.err | grep -E 'Mem|GetProc|Array' | sed -E 's/ptr=0x[0-9a-f]+//' | sort | uniq -c | sort -rn | head -30
for f in torch_zeros jax_ones; do echo "--- $f.err"; grep -v 'vramtrace: lookup' $W/$f.err | head -40; done
tar -czf "$OUT/diag.tgz" -C $W . 2>/dev/null; true
