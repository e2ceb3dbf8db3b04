// SPDX-License-Identifier: MIT
/* vt_wrap_mem.c - wrappers of the device-memory allocation API: cuMemAlloc(_v2),
 * cuMemAllocPitch(_v2), cuMemAllocManaged, cuMemAllocAsync(_ptsz),
 * cuMemAllocFromPoolAsync(_ptsz), their frees, and cuMemPoolTrimTo.
 *
 * The v1 names are the legacy 32-bit entry points, still exported by the driver and
 * returned by cuGetProcAddress for versions below 3020 (measured on driver 580). */
#include "vt_format.h"
#include "vt_global.h"
#include "vt_record.h"
#include "vt_pool.h"
#include "vt_wrap.h"

/* ------------------------------------------------------------------------ *
 *  cuMemAlloc
 * ------------------------------------------------------------------------ */
VT_EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize)
{
    VT_WRAP_BEGIN(cuMemAlloc_v2, dptr, bytesize);
    if (r == CUDA_SUCCESS) vt_rec_alloc(VT_KIND_MEM_ALLOC, *dptr, bytesize, 0, 0, VT_DEV_CTX);
    else if (r == CUDA_ERROR_OUT_OF_MEMORY) vt_rec_oom(VT_KIND_MEM_ALLOC, bytesize, 0, 0, VT_DEV_CTX);
    VT_WRAP_END();
}

VT_EXPORT CUresult cuMemAlloc(CUdeviceptr_v1 *dptr, unsigned int bytesize)
{
    VT_WRAP_BEGIN(cuMemAlloc, dptr, bytesize);
    if (r == CUDA_SUCCESS) vt_rec_alloc(VT_KIND_MEM_ALLOC, *dptr, bytesize, 0, 0, VT_DEV_CTX);
    else if (r == CUDA_ERROR_OUT_OF_MEMORY) vt_rec_oom(VT_KIND_MEM_ALLOC, bytesize, 0, 0, VT_DEV_CTX);
    VT_WRAP_END();
}

VT_EXPORT CUresult cuMemFree_v2(CUdeviceptr dptr)
{
    VT_WRAP_BEGIN(cuMemFree_v2, dptr);
    if (r == CUDA_SUCCESS && dptr) vt_rec_free(VT_KIND_MEM_FREE, dptr, 0, 0, VT_DEV_CTX);
    VT_WRAP_END();
}

VT_EXPORT CUresult cuMemFree(CUdeviceptr_v1 dptr)
{
    VT_WRAP_BEGIN(cuMemFree, dptr);
    if (r == CUDA_SUCCESS && dptr) vt_rec_free(VT_KIND_MEM_FREE, dptr, 0, 0, VT_DEV_CTX);
    VT_WRAP_END();
}

/* ------------------------------------------------------------------------ *
 *  Pitched and managed
 * ------------------------------------------------------------------------ */
VT_EXPORT CUresult cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pPitch, size_t WidthInBytes,
                                      size_t Height, unsigned int ElementSizeBytes)
{
    VT_WRAP_BEGIN(cuMemAllocPitch_v2, dptr, pPitch, WidthInBytes, Height, ElementSizeBytes);
    if (r == CUDA_SUCCESS)
        vt_rec_alloc(VT_KIND_MEM_ALLOC_PITCH, *dptr, (uint64_t)*pPitch * Height, 0, 0, VT_DEV_CTX);
    else if (r == CUDA_ERROR_OUT_OF_MEMORY)
        vt_rec_oom(VT_KIND_MEM_ALLOC_PITCH, (uint64_t)WidthInBytes * Height, 0, 0, VT_DEV_CTX);
    VT_WRAP_END();
}

VT_EXPORT CUresult cuMemAllocPitch(CUdeviceptr_v1 *dptr, unsigned int *pPitch, unsigned int WidthInBytes,
                                   unsigned int Height, unsigned int ElementSizeBytes)
{
    VT_WRAP_BEGIN(cuMemAllocPitch, dptr, pPitch, WidthInBytes, Height, ElementSizeBytes);
    if (r == CUDA_SUCCESS)
        vt_rec_alloc(VT_KIND_MEM_ALLOC_PITCH, *dptr, (uint64_t)*pPitch * Height, 0, 0, VT_DEV_CTX);
    else if (r == CUDA_ERROR_OUT_OF_MEMORY)
        vt_rec_oom(VT_KIND_MEM_ALLOC_PITCH, (uint64_t)WidthInBytes * Height, 0, 0, VT_DEV_CTX);
    VT_WRAP_END();
}

VT_EXPORT CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize, unsigned int flags)
{
    VT_WRAP_BEGIN(cuMemAllocManaged, dptr, bytesize, flags);
    if (r == CUDA_SUCCESS) vt_rec_alloc(VT_KIND_MEM_ALLOC_MANAGED, *dptr, bytesize, 0, 0, VT_DEV_CTX);
    else if (r == CUDA_ERROR_OUT_OF_MEMORY) vt_rec_oom(VT_KIND_MEM_ALLOC_MANAGED, bytesize, 0, 0, VT_DEV_CTX);
    VT_WRAP_END();
}

/* ------------------------------------------------------------------------ *
 *  Stream-ordered (_ptsz: the per-thread default stream flavour)
 * ------------------------------------------------------------------------ */
/* pool: the one allocated from; 0 for the device's current pool (cuMemAllocAsync) */
static inline CUresult async_alloc(CUresult r, unsigned kind, CUdeviceptr *dptr, size_t n,
                                   CUstream s, unsigned flags, CUmemoryPool pool)
{
    int dev = VT_DEV_CTX;
    if (r == CUDA_SUCCESS) {
        vt_rec_alloc(kind, *dptr, n, (uint64_t)(uintptr_t)s, flags, dev);
        vt_pool_note(dev, (uint64_t)(uintptr_t)pool);
    } else if (r == CUDA_ERROR_OUT_OF_MEMORY) {
        vt_rec_oom(kind, n, (uint64_t)(uintptr_t)s, flags, dev);
    }
    return r;
}

VT_EXPORT CUresult cuMemAllocAsync(CUdeviceptr *dptr, size_t bytesize, CUstream hStream)
{
    VT_WRAP_BEGIN(cuMemAllocAsync, dptr, bytesize, hStream);
    async_alloc(r, VT_KIND_MEM_ALLOC_ASYNC, dptr, bytesize, hStream, 0, NULL);
    VT_WRAP_END();
}

VT_EXPORT CUresult cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUstream hStream)
{
    VT_WRAP_BEGIN(cuMemAllocAsync_ptsz, dptr, bytesize, hStream);
    async_alloc(r, VT_KIND_MEM_ALLOC_ASYNC, dptr, bytesize, hStream, VT_RF_PTDS, NULL);
    VT_WRAP_END();
}

VT_EXPORT CUresult cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool, CUstream hStream)
{
    VT_WRAP_BEGIN(cuMemAllocFromPoolAsync, dptr, bytesize, pool, hStream);
    async_alloc(r, VT_KIND_MEM_ALLOC_POOL, dptr, bytesize, hStream, 0, pool);
    VT_WRAP_END();
}

VT_EXPORT CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool, CUstream hStream)
{
    VT_WRAP_BEGIN(cuMemAllocFromPoolAsync_ptsz, dptr, bytesize, pool, hStream);
    async_alloc(r, VT_KIND_MEM_ALLOC_POOL, dptr, bytesize, hStream, VT_RF_PTDS, pool);
    VT_WRAP_END();
}

VT_EXPORT CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream)
{
    VT_WRAP_BEGIN(cuMemFreeAsync, dptr, hStream);
    if (r == CUDA_SUCCESS && dptr)
        vt_rec_free(VT_KIND_MEM_FREE_ASYNC, dptr, (uint64_t)(uintptr_t)hStream, 0, VT_DEV_CTX);
    VT_WRAP_END();
}

VT_EXPORT CUresult cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream hStream)
{
    VT_WRAP_BEGIN(cuMemFreeAsync_ptsz, dptr, hStream);
    if (r == CUDA_SUCCESS && dptr)
        vt_rec_free(VT_KIND_MEM_FREE_ASYNC, dptr, (uint64_t)(uintptr_t)hStream, VT_RF_PTDS, VT_DEV_CTX);
    VT_WRAP_END();
}

VT_EXPORT CUresult cuMemPoolTrimTo(CUmemoryPool pool, size_t minBytesToKeep)
{
    VT_WRAP_BEGIN(cuMemPoolTrimTo, pool, minBytesToKeep);
    if (r == CUDA_SUCCESS) vt_rec_pool_trim((uint64_t)(uintptr_t)pool, minBytesToKeep, VT_DEV_CTX);
    VT_WRAP_END();
}
