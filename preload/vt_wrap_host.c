// SPDX-License-Identifier: MIT
/* vt_wrap_host.c - wrappers of page-locked host memory: cuMemHostAlloc,
 * cuMemAllocHost(_v2), cuMemFreeHost. Recorded in their own address space
 * (VT_SPACE_HOST_PTR) with device -1: the memory is the host's, and the analyzer keeps
 * it apart from device memory. */
#include "vt_format.h"
#include "vt_global.h"
#include "vt_record.h"
#include "vt_wrap.h"

VT_EXPORT CUresult cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags)
{
    VT_WRAP_BEGIN(cuMemHostAlloc, pp, bytesize, Flags);
    if (r == CUDA_SUCCESS) vt_rec_alloc(VT_KIND_HOST_ALLOC, (uint64_t)(uintptr_t)*pp, bytesize, 0, 0, -1);
    else if (r == CUDA_ERROR_OUT_OF_MEMORY) vt_rec_oom(VT_KIND_HOST_ALLOC, bytesize, 0, 0, -1);
    VT_WRAP_END();
}

VT_EXPORT CUresult cuMemAllocHost_v2(void **pp, size_t bytesize)
{
    VT_WRAP_BEGIN(cuMemAllocHost_v2, pp, bytesize);
    if (r == CUDA_SUCCESS) vt_rec_alloc(VT_KIND_HOST_ALLOC_HOST, (uint64_t)(uintptr_t)*pp, bytesize, 0, 0, -1);
    else if (r == CUDA_ERROR_OUT_OF_MEMORY) vt_rec_oom(VT_KIND_HOST_ALLOC_HOST, bytesize, 0, 0, -1);
    VT_WRAP_END();
}

VT_EXPORT CUresult cuMemAllocHost(void **pp, unsigned int bytesize)
{
    VT_WRAP_BEGIN(cuMemAllocHost, pp, bytesize);
    if (r == CUDA_SUCCESS) vt_rec_alloc(VT_KIND_HOST_ALLOC_HOST, (uint64_t)(uintptr_t)*pp, bytesize, 0, 0, -1);
    else if (r == CUDA_ERROR_OUT_OF_MEMORY) vt_rec_oom(VT_KIND_HOST_ALLOC_HOST, bytesize, 0, 0, -1);
    VT_WRAP_END();
}

VT_EXPORT CUresult cuMemFreeHost(void *p)
{
    VT_WRAP_BEGIN(cuMemFreeHost, p);
    if (r == CUDA_SUCCESS && p) vt_rec_free(VT_KIND_HOST_FREE, (uint64_t)(uintptr_t)p, 0, 0, -1);
    VT_WRAP_END();
}
