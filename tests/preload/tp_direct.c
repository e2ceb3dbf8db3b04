// SPDX-License-Identifier: MIT
/* tp_direct.c - the "direct link" access path: the program is linked with -lcuda and
 * calls the exported names through the PLT, as a CUDA C program built with nvcc does.
 * Each wrapper is a real call site (built with -O0, so no tail calls). */
#define _GNU_SOURCE
#include "tp.h"

#include <string.h>

/* The per-thread-stream names: cuda.h declares them only under
 * CUDA_API_PER_THREAD_DEFAULT_STREAM, as what cuMemAllocAsync then expands to. */
CUresult cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUstream hStream);
CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool, CUstream hStream);
CUresult cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream hStream);

void tp_api_direct_v1(tp_api *a);   /* tp_direct_v1.c */

static CUresult d_cuMemAlloc_v2(CUdeviceptr *p, size_t n) { return cuMemAlloc_v2(p, n); }
static CUresult d_cuMemFree_v2(CUdeviceptr p) { return cuMemFree_v2(p); }
static CUresult d_cuMemAllocPitch_v2(CUdeviceptr *p, size_t *pitch, size_t w, size_t h, unsigned e)
{ return cuMemAllocPitch_v2(p, pitch, w, h, e); }
static CUresult d_cuMemAllocManaged(CUdeviceptr *p, size_t n, unsigned f) { return cuMemAllocManaged(p, n, f); }
static CUresult d_cuMemAllocAsync(CUdeviceptr *p, size_t n, CUstream s) { return cuMemAllocAsync(p, n, s); }
static CUresult d_cuMemAllocAsync_ptsz(CUdeviceptr *p, size_t n, CUstream s) { return cuMemAllocAsync_ptsz(p, n, s); }
static CUresult d_cuMemAllocFromPoolAsync(CUdeviceptr *p, size_t n, CUmemoryPool pl, CUstream s)
{ return cuMemAllocFromPoolAsync(p, n, pl, s); }
static CUresult d_cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *p, size_t n, CUmemoryPool pl, CUstream s)
{ return cuMemAllocFromPoolAsync_ptsz(p, n, pl, s); }
static CUresult d_cuMemFreeAsync(CUdeviceptr p, CUstream s) { return cuMemFreeAsync(p, s); }
static CUresult d_cuMemFreeAsync_ptsz(CUdeviceptr p, CUstream s) { return cuMemFreeAsync_ptsz(p, s); }
static CUresult d_cuMemPoolTrimTo(CUmemoryPool pl, size_t n) { return cuMemPoolTrimTo(pl, n); }
static CUresult d_cuMemCreate(CUmemGenericAllocationHandle *h, size_t n, const CUmemAllocationProp *p,
                              unsigned long long f) { return cuMemCreate(h, n, p, f); }
static CUresult d_cuMemRelease(CUmemGenericAllocationHandle h) { return cuMemRelease(h); }
static CUresult d_cuMemMap(CUdeviceptr va, size_t n, size_t off, CUmemGenericAllocationHandle h, unsigned long long f)
{ return cuMemMap(va, n, off, h, f); }
static CUresult d_cuMemUnmap(CUdeviceptr va, size_t n) { return cuMemUnmap(va, n); }
static CUresult d_cuMemAddressReserve(CUdeviceptr *va, size_t n, size_t al, CUdeviceptr hint, unsigned long long f)
{ return cuMemAddressReserve(va, n, al, hint, f); }
static CUresult d_cuMemAddressFree(CUdeviceptr va, size_t n) { return cuMemAddressFree(va, n); }
static CUresult d_cuMemRetainAllocationHandle(CUmemGenericAllocationHandle *h, void *addr)
{ return cuMemRetainAllocationHandle(h, addr); }
static CUresult d_cuMemHostAlloc(void **p, size_t n, unsigned f) { return cuMemHostAlloc(p, n, f); }
static CUresult d_cuMemAllocHost_v2(void **p, size_t n) { return cuMemAllocHost_v2(p, n); }
static CUresult d_cuMemFreeHost(void *p) { return cuMemFreeHost(p); }
static CUresult d_cuArrayCreate_v2(CUarray *a, const CUDA_ARRAY_DESCRIPTOR *d) { return cuArrayCreate_v2(a, d); }
static CUresult d_cuArray3DCreate_v2(CUarray *a, const CUDA_ARRAY3D_DESCRIPTOR *d) { return cuArray3DCreate_v2(a, d); }
static CUresult d_cuArrayDestroy(CUarray a) { return cuArrayDestroy(a); }
static CUresult d_cuMipmappedArrayCreate(CUmipmappedArray *m, const CUDA_ARRAY3D_DESCRIPTOR *d, unsigned n)
{ return cuMipmappedArrayCreate(m, d, n); }
static CUresult d_cuStreamSynchronize(CUstream s) { return cuStreamSynchronize(s); }
static CUresult d_cuMipmappedArrayDestroy(CUmipmappedArray m) { return cuMipmappedArrayDestroy(m); }

#define SLOT(slot, name, fl) do { a->slot.fn = d_##name; a->slot.id = FAKECUDA_FN_##name; a->slot.flags = (fl); } while (0)

void tp_api_direct(tp_api *a)
{
    memset(a, 0, sizeof *a);
    a->mode = "direct";
    a->init = cuInit;
    a->driver_version = cuDriverGetVersion;
    a->device_count = cuDeviceGetCount;
    a->device_name = cuDeviceGetName;
    a->device_total = cuDeviceTotalMem_v2;
    a->device_uuid = cuDeviceGetUuid_v2;
    a->device_attr = cuDeviceGetAttribute;
    a->mem_info = cuMemGetInfo_v2;
    a->ctx_set = cuCtxSetCurrent;
    a->ctx_retain = cuDevicePrimaryCtxRetain;
    a->default_pool = cuDeviceGetDefaultMemPool;
    a->granularity = cuMemGetAllocationGranularity;
    a->stream_create = cuStreamCreate;
    SLOT(stream_sync, cuStreamSynchronize, 0);
    SLOT(mem_alloc, cuMemAlloc_v2, 0);
    SLOT(mem_free, cuMemFree_v2, 0);
    SLOT(mem_alloc_pitch, cuMemAllocPitch_v2, 0);
    SLOT(mem_alloc_managed, cuMemAllocManaged, 0);
    SLOT(alloc_async, cuMemAllocAsync, 0);
    SLOT(alloc_async_ptsz, cuMemAllocAsync_ptsz, VT_RF_PTDS);
    SLOT(alloc_pool, cuMemAllocFromPoolAsync, 0);
    SLOT(alloc_pool_ptsz, cuMemAllocFromPoolAsync_ptsz, VT_RF_PTDS);
    SLOT(free_async, cuMemFreeAsync, 0);
    SLOT(free_async_ptsz, cuMemFreeAsync_ptsz, VT_RF_PTDS);
    SLOT(pool_trim, cuMemPoolTrimTo, 0);
    SLOT(vmm_create, cuMemCreate, 0);
    SLOT(vmm_release, cuMemRelease, 0);
    SLOT(vmm_map, cuMemMap, 0);
    SLOT(vmm_unmap, cuMemUnmap, 0);
    SLOT(vmm_reserve, cuMemAddressReserve, 0);
    SLOT(vmm_address_free, cuMemAddressFree, 0);
    SLOT(vmm_retain, cuMemRetainAllocationHandle, 0);
    SLOT(host_alloc, cuMemHostAlloc, 0);
    SLOT(alloc_host, cuMemAllocHost_v2, 0);
    SLOT(free_host, cuMemFreeHost, 0);
    SLOT(array_create, cuArrayCreate_v2, 0);
    SLOT(array3d_create, cuArray3DCreate_v2, 0);
    SLOT(array_destroy, cuArrayDestroy, 0);
    SLOT(mipmap_create, cuMipmappedArrayCreate, 0);
    SLOT(mipmap_destroy, cuMipmappedArrayDestroy, 0);
    tp_api_direct_v1(a);
}
