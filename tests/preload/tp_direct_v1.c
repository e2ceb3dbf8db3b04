// SPDX-License-Identifier: MIT
/* tp_direct_v1.c - direct calls of the v1 exported names (cuMemAlloc with 32-bit
 * pointers...), which cuda.h renames to _v2 unless told not to: what a binary built
 * against CUDA 3.1 or older links to. */
#define _GNU_SOURCE
#include "tp.h"

#undef cuMemAlloc
#undef cuMemFree
#undef cuMemAllocPitch
#undef cuMemAllocHost
#undef cuArrayCreate
#undef cuArray3DCreate
CUresult cuMemAlloc(unsigned int *dptr, unsigned int bytesize);
CUresult cuMemFree(unsigned int dptr);
CUresult cuMemAllocPitch(unsigned int *dptr, unsigned int *pitch, unsigned int w, unsigned int h, unsigned int e);
CUresult cuMemAllocHost(void **pp, unsigned int bytesize);
CUresult cuArrayCreate(CUarray *arr, const tp_array_desc_v1 *d);
CUresult cuArray3DCreate(CUarray *arr, const tp_array3d_desc_v1 *d);

static CUresult d_cuMemAlloc(unsigned int *p, unsigned int n) { return cuMemAlloc(p, n); }
static CUresult d_cuMemFree(unsigned int p) { return cuMemFree(p); }
static CUresult d_cuMemAllocPitch(unsigned int *p, unsigned int *pitch, unsigned int w, unsigned int h, unsigned int e)
{ return cuMemAllocPitch(p, pitch, w, h, e); }
static CUresult d_cuMemAllocHost(void **p, unsigned int n) { return cuMemAllocHost(p, n); }
static CUresult d_cuArrayCreate(CUarray *a, const tp_array_desc_v1 *d) { return cuArrayCreate(a, d); }
static CUresult d_cuArray3DCreate(CUarray *a, const tp_array3d_desc_v1 *d) { return cuArray3DCreate(a, d); }

#define SLOT(slot, name) do { a->slot.fn = d_##name; a->slot.id = FAKECUDA_FN_##name; a->slot.flags = 0; } while (0)

void tp_api_direct_v1(tp_api *a);
void tp_api_direct_v1(tp_api *a)
{
    SLOT(mem_alloc_v1, cuMemAlloc);
    SLOT(mem_free_v1, cuMemFree);
    SLOT(mem_alloc_pitch_v1, cuMemAllocPitch);
    SLOT(alloc_host_v1, cuMemAllocHost);
    SLOT(array_create_v1, cuArrayCreate);
    SLOT(array3d_create_v1, cuArray3DCreate);
}
