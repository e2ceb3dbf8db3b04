// SPDX-License-Identifier: MIT
// tracker_abi.cc - what libvramtrace_torch.so mirrors of PyTorch's allocator, from the
// installed torch's own headers (tests/gpu/tracker.sh compiles it on the GPU machine):
// the vtable slot of CUDAAllocator::attachAllocatorTraceTracker and where TraceEntry keeps
// the fields the tracker reads. Prints one line; preload/vt_torch_tracker.cc must agree.
#include <c10/cuda/CUDACachingAllocator.h>

#include <cstddef>
#include <cstdio>
#include <cstring>

using namespace c10::cuda::CUDACachingAllocator;

int main()
{
    auto pmf = &CUDAAllocator::attachAllocatorTraceTracker;
    std::ptrdiff_t v;  // Itanium ABI: a virtual member pointer is 1 + the vtable offset
    std::memcpy(&v, &pmf, sizeof v);
    std::printf("slot %td action %zu device %zu addr %zu stream %zu size %zu mempool %zu sizeof %zu\n",
                (v - 1) / (std::ptrdiff_t)sizeof(void *), offsetof(TraceEntry, action_),
                offsetof(TraceEntry, device_), offsetof(TraceEntry, addr_), offsetof(TraceEntry, stream_),
                offsetof(TraceEntry, size_), offsetof(TraceEntry, mempool_), sizeof(TraceEntry));
    return 0;
}
