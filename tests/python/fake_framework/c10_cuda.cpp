// SPDX-License-Identifier: MIT
// c10_cuda.cpp - a stand-in libc10_cuda.so: PyTorch's CUDA caching allocator by name
// (the symbols a real libc10_cuda.so has), allocating through the (fake) driver's
// stream-ordered allocator as the cudaMallocAsync backend does. No GPU.
#include <cuda.h>
#include <cstddef>

namespace c10 {
namespace cuda {
namespace CUDACachingAllocator {
namespace Native {

class DeviceCachingAllocator {
public:
    void *alloc_block(std::size_t size, CUstream stream);
    void *malloc(int device, std::size_t size, CUstream stream);
};

__attribute__((noinline)) void *DeviceCachingAllocator::alloc_block(std::size_t size, CUstream stream)
{
    CUdeviceptr p = 0;
    if (cuMemAllocAsync(&p, size, stream) != CUDA_SUCCESS) return nullptr;
    return reinterpret_cast<void *>(p);
}

__attribute__((noinline)) void *DeviceCachingAllocator::malloc(int device, std::size_t size, CUstream stream)
{
    (void)device;
    return alloc_block(size, stream);
}

} // namespace Native

__attribute__((noinline)) void *raw_alloc(std::size_t size)
{
    static Native::DeviceCachingAllocator a;
    CUdevice dev;
    CUcontext ctx;
    static bool ready = cuInit(0) == CUDA_SUCCESS && cuDeviceGet(&dev, 0) == CUDA_SUCCESS &&
                        cuDevicePrimaryCtxRetain(&ctx, dev) == CUDA_SUCCESS && cuCtxSetCurrent(ctx) == CUDA_SUCCESS;
    return ready ? a.malloc(0, size, nullptr) : nullptr;
}

__attribute__((noinline)) void raw_delete(void *p)
{
    cuMemFreeAsync(reinterpret_cast<CUdeviceptr>(p), nullptr);
}

} // namespace CUDACachingAllocator
} // namespace cuda
} // namespace c10
