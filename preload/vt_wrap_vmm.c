// SPDX-License-Identifier: MIT
/* vt_wrap_vmm.c - wrappers of the virtual memory management API.
 *
 * Physical memory is what counts: cuMemCreate is an ALLOC of kind VT_KIND_VMM_CREATE
 * keyed by its handle, cuMemRelease its FREE. Mapping, unmapping, retaining and the
 * VA reservations are VMM records; the analyzer keeps the reference counts (a handle's
 * memory goes when its references and mappings are all gone, see the brief). Calls that
 * create something carry a stack; calls that undo something carry one only with
 * VRAMTRACE_FREE_STACKS=1. */
#include "vt_format.h"
#include "vt_global.h"
#include "vt_record.h"
#include "vt_wrap.h"

VT_EXPORT CUresult cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size,
                               const CUmemAllocationProp *prop, unsigned long long flags)
{
    VT_WRAP_BEGIN(cuMemCreate, handle, size, prop, flags);
    int dev = prop && prop->location.type == CU_MEM_LOCATION_TYPE_DEVICE ? prop->location.id : -1;
    if (r == CUDA_SUCCESS) vt_rec_alloc(VT_KIND_VMM_CREATE, *handle, size, 0, 0, dev);
    else if (r == CUDA_ERROR_OUT_OF_MEMORY) vt_rec_oom(VT_KIND_VMM_CREATE, size, 0, 0, dev);
    VT_WRAP_END();
}

VT_EXPORT CUresult cuMemRelease(CUmemGenericAllocationHandle handle)
{
    VT_WRAP_BEGIN(cuMemRelease, handle);
    if (r == CUDA_SUCCESS) vt_rec_free(VT_KIND_VMM_RELEASE, handle, 0, 0, -1);
    VT_WRAP_END();
}

VT_EXPORT CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset,
                            CUmemGenericAllocationHandle handle, unsigned long long flags)
{
    VT_WRAP_BEGIN(cuMemMap, ptr, size, offset, handle, flags);
    if (r == CUDA_SUCCESS) vt_rec_vmm(VT_VMM_MAP, ptr, size, offset, handle, 1);
    VT_WRAP_END();
}

VT_EXPORT CUresult cuMemUnmap(CUdeviceptr ptr, size_t size)
{
    VT_WRAP_BEGIN(cuMemUnmap, ptr, size);
    if (r == CUDA_SUCCESS) vt_rec_vmm(VT_VMM_UNMAP, ptr, size, 0, 0, 0);
    VT_WRAP_END();
}

VT_EXPORT CUresult cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t alignment,
                                       CUdeviceptr addr, unsigned long long flags)
{
    VT_WRAP_BEGIN(cuMemAddressReserve, ptr, size, alignment, addr, flags);
    if (r == CUDA_SUCCESS) vt_rec_vmm(VT_VMM_RESERVE, *ptr, size, alignment, addr, 1);
    VT_WRAP_END();
}

VT_EXPORT CUresult cuMemAddressFree(CUdeviceptr ptr, size_t size)
{
    VT_WRAP_BEGIN(cuMemAddressFree, ptr, size);
    if (r == CUDA_SUCCESS) vt_rec_vmm(VT_VMM_ADDRESS_FREE, ptr, size, 0, 0, 0);
    VT_WRAP_END();
}

VT_EXPORT CUresult cuMemRetainAllocationHandle(CUmemGenericAllocationHandle *handle, void *addr)
{
    VT_WRAP_BEGIN(cuMemRetainAllocationHandle, handle, addr);
    if (r == CUDA_SUCCESS) vt_rec_vmm(VT_VMM_RETAIN, (uint64_t)(uintptr_t)addr, 0, 0, *handle, 1);
    VT_WRAP_END();
}
