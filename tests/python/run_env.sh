#!/bin/sh
# SPDX-License-Identifier: MIT
# run_env.sh VRAMTRACE LIB - what `vramtrace run` puts in the program's environment for
# NVTX and --torch-modules (docs/python.md).
set -u
vt=$1 lib=$2
libdir=$(dirname "$lib")
fail=0
say() { echo "run_env: FAIL: $*"; fail=1; }
show='echo "NVTX=$NVTX_INJECTION64_PATH"; echo "PYTHONPATH=${PYTHONPATH-unset}"; echo "MODULES=${VRAMTRACE_TORCH_MODULES-unset}"; echo "BLOCKS=${VRAMTRACE_TORCH_BLOCKS-unset}"'

# the hook is there for PyTorch's blocks; module names only with --torch-modules
out=$(VRAMTRACE_LIB="$lib" PYTHONPATH= "$vt" run --no-summary -- sh -c "$show" 2>/dev/null)
echo "$out" | grep -qx "NVTX=$lib" || say "NVTX_INJECTION64_PATH is not the recorder: $out"
echo "$out" | grep -qx "PYTHONPATH=$libdir/vramtrace_py" || say "no hook for PyTorch's blocks: $out"
echo "$out" | grep -qx "MODULES=0" || say "modules named without --torch-modules: $out"
echo "$out" | grep -qx "BLOCKS=1" || say "blocks not asked for: $out"

out=$(VRAMTRACE_LIB="$lib" PYTHONPATH= "$vt" run --no-torch-blocks --no-jax --no-summary -- sh -c "$show" 2>/dev/null)
echo "$out" | grep -qx "PYTHONPATH=" || say "PYTHONPATH changed with --no-torch-blocks --no-jax: $out"

out=$(VRAMTRACE_LIB="$lib" PYTHONPATH=/a:/b "$vt" run --torch-modules --no-summary -- sh -c "$show" 2>/dev/null)
echo "$out" | grep -qx "PYTHONPATH=$libdir/vramtrace_py:/a:/b" || say "--torch-modules: $out"
echo "$out" | grep -qx "MODULES=1" || say "--torch-modules: $out"
[ -f "$libdir/vramtrace_py/sitecustomize.py" ] || say "$libdir/vramtrace_py/sitecustomize.py is missing"
[ -f "$libdir/vramtrace_py/vramtrace_jax.py" ] || say "$libdir/vramtrace_py/vramtrace_jax.py is missing"
out=$(VRAMTRACE_LIB="$lib" "$vt" run --torch-modules --no-summary -- sh -c 'echo "HOOKS=$VRAMTRACE_PY_HOOKS"' 2>/dev/null)
echo "$out" | grep -qx "HOOKS=torch,jax" || say "--torch-modules: VRAMTRACE_PY_HOOKS: $out"

# a value the user (another tool) set is kept
out=$(VRAMTRACE_LIB="$lib" NVTX_INJECTION64_PATH=/other/libinj.so "$vt" run --no-summary -- sh -c "$show" 2>/dev/null)
echo "$out" | grep -qx "NVTX=/other/libinj.so" || say "a user's NVTX_INJECTION64_PATH was replaced: $out"

[ $fail = 0 ] && echo "run_env: ok"
exit $fail
