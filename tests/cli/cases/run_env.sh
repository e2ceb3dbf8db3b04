# SPDX-License-Identifier: MIT
# The environment the command sees: the recorder first in LD_PRELOAD, an absolute
# output pattern, the depth, and --per-tensor merged into the user's allocator settings.
export VRAMTRACE_LIB="$VT_PLUMB_LIB"
export LD_PRELOAD=/lib/x86_64-linux-gnu/libm.so.6
export PYTORCH_CUDA_ALLOC_CONF="expandable_segments:True,backend:native,max_split_size_mb:128"
"$VRAMTRACE" run --per-tensor --depth 7 -- sh -c "echo LD_PRELOAD=\$LD_PRELOAD; echo VRAMTRACE_OUTPUT=\$VRAMTRACE_OUTPUT; echo VRAMTRACE_DEPTH=\$VRAMTRACE_DEPTH; echo PYTORCH_CUDA_ALLOC_CONF=\$PYTORCH_CUDA_ALLOC_CONF; echo XLA_PYTHON_CLIENT_ALLOCATOR=\$XLA_PYTHON_CLIENT_ALLOCATOR; echo TF_GPU_ALLOCATOR=\$TF_GPU_ALLOCATOR" 2>/dev/null
echo "exit $?"
unset PYTORCH_CUDA_ALLOC_CONF LD_PRELOAD
"$VRAMTRACE" run --per-tensor -o "/abs/%h-%r.vtrace" -- sh -c "echo PYTORCH_CUDA_ALLOC_CONF=\$PYTORCH_CUDA_ALLOC_CONF; echo VRAMTRACE_OUTPUT=\$VRAMTRACE_OUTPUT; echo VRAMTRACE_DEPTH=\${VRAMTRACE_DEPTH-unset}" 2>/dev/null
