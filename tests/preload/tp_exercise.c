// SPDX-License-Identifier: MIT
/* tp_exercise.c - the workloads every access path runs. Each section is one function
 * whose address must appear in the stacks of the records it causes. */
#define _GNU_SOURCE
#include "tp.h"

#include <string.h>

#define S1 ((CUstream)(uintptr_t)0x5100)
#define S2 ((CUstream)(uintptr_t)0x5200)
#define S3 ((CUstream)(uintptr_t)0x5300)
#define SV(s) ((uint64_t)(uintptr_t)(s))
#define CALL(slot, ...) (tp_calling((slot).id), (slot).fn(__VA_ARGS__))

void ex_start(const tp_api *a)
{
    TP_CK(a->init(0), CUDA_SUCCESS);
    tp_devices(a);
}

/* ------------------------------------------------------------------------ *
 *  cuMemAlloc_v2, pitch, managed
 * ------------------------------------------------------------------------ */
TP_NOINLINE void ex_basic(const tp_api *a)
{
    void *self = (void *)ex_basic;
    static const size_t sizes[] = { 1, 1000, 3u << 20, 123456789 };
    CUdeviceptr p[4];
    for (int i = 0; i < 4; i++) {
        TP_CK(CALL(a->mem_alloc, &p[i], sizes[i]), CUDA_SUCCESS);
        tp_alloc(VT_KIND_MEM_ALLOC, p[i], sizes[i], 0, a->mem_alloc.flags, self);
    }
    CUdeviceptr bad = 0;
    TP_CK(CALL(a->mem_alloc, &bad, 0), CUDA_ERROR_INVALID_VALUE);   /* never recorded */
    tp_failed_call();

    CUdeviceptr q = 0;
    size_t pitch = 0;
    TP_CK(CALL(a->mem_alloc_pitch, &q, &pitch, 1000, 300, 4), CUDA_SUCCESS);
    tp_alloc(VT_KIND_MEM_ALLOC_PITCH, q, (uint64_t)pitch * 300, 0, a->mem_alloc_pitch.flags, self);

    CUdeviceptr m = 0;
    TP_CK(CALL(a->mem_alloc_managed, &m, 5000, CU_MEM_ATTACH_GLOBAL), CUDA_SUCCESS);
    tp_alloc(VT_KIND_MEM_ALLOC_MANAGED, m, 5000, 0, a->mem_alloc_managed.flags, self);

    /* p[3] stays allocated: a leak the trace must show as live at the end. */
    CUdeviceptr frees[] = { p[2], p[0], q, m, p[1] };
    for (int i = 0; i < 5; i++) {
        TP_CK(CALL(a->mem_free, frees[i]), CUDA_SUCCESS);
        tp_free(VT_KIND_MEM_FREE, frees[i], 0, a->mem_free.flags, self);
    }
    TP_CK(CALL(a->mem_free, (CUdeviceptr)0xdead0000ull), CUDA_ERROR_INVALID_VALUE);
    tp_failed_call();
}

TP_NOINLINE void ex_v1(const tp_api *a)
{
    void *self = (void *)ex_v1;
    unsigned int p = 0, q = 0;
    TP_CK(CALL(a->mem_alloc_v1, &p, 4096), CUDA_SUCCESS);
    tp_alloc(VT_KIND_MEM_ALLOC, p, 4096, 0, a->mem_alloc_v1.flags, self);
    TP_CK(CALL(a->mem_alloc_v1, &q, 77), CUDA_SUCCESS);
    tp_alloc(VT_KIND_MEM_ALLOC, q, 77, 0, a->mem_alloc_v1.flags, self);
    TP_CK(CALL(a->mem_free_v1, p), CUDA_SUCCESS);
    tp_free(VT_KIND_MEM_FREE, p, 0, a->mem_free_v1.flags, self);
    TP_CK(CALL(a->mem_free_v1, q), CUDA_SUCCESS);
    tp_free(VT_KIND_MEM_FREE, q, 0, a->mem_free_v1.flags, self);
}

/* ------------------------------------------------------------------------ *
 *  Stream-ordered allocation and pools (legacy and per-thread stream variants)
 * ------------------------------------------------------------------------ */
#define free_slot_for(a, i) ((i) % 2 ? ((a)->free_async_ptsz.fn ? &(a)->free_async_ptsz : &(a)->free_async) \
                                     : ((a)->free_async.fn ? &(a)->free_async : &(a)->free_async_ptsz))

TP_NOINLINE void ex_async(const tp_api *a)
{
    void *self = (void *)ex_async;
    CUdeviceptr p[8];
    int n = 0;
    CUmemoryPool pool = NULL;
    TP_CK(a->default_pool(&pool, 0), CUDA_SUCCESS);
    if (a->alloc_async.fn) {
        TP_CK(CALL(a->alloc_async, &p[n], 4096, S1), CUDA_SUCCESS);
        tp_alloc(VT_KIND_MEM_ALLOC_ASYNC, p[n], 4096, SV(S1), a->alloc_async.flags, self);
        n++;
    }
    if (a->alloc_async_ptsz.fn) {
        TP_CK(CALL(a->alloc_async_ptsz, &p[n], 4097, S2), CUDA_SUCCESS);
        tp_alloc(VT_KIND_MEM_ALLOC_ASYNC, p[n], 4097, SV(S2), a->alloc_async_ptsz.flags, self);
        n++;
    }
    if (a->alloc_pool.fn) {
        TP_CK(CALL(a->alloc_pool, &p[n], 8192, pool, S1), CUDA_SUCCESS);
        tp_alloc(VT_KIND_MEM_ALLOC_POOL, p[n], 8192, SV(S1), a->alloc_pool.flags, self);
        n++;
    }
    if (a->alloc_pool_ptsz.fn) {
        TP_CK(CALL(a->alloc_pool_ptsz, &p[n], 8193, pool, (CUstream)0), CUDA_SUCCESS);
        tp_alloc(VT_KIND_MEM_ALLOC_POOL, p[n], 8193, 0, a->alloc_pool_ptsz.flags, self);
        n++;
    }
    for (int i = 0; i < n; i++) {
        const tp_slot_free_async *fs = free_slot_for(a, i);
        TP_CK(CALL(*fs, p[i], S3), CUDA_SUCCESS);
        tp_free(VT_KIND_MEM_FREE_ASYNC, p[i], SV(S3), fs->flags, self);
    }
    /* Stream-ordered memory given back with a plain cuMemFree. */
    const tp_slot_alloc_async *as = a->alloc_async.fn ? &a->alloc_async : &a->alloc_async_ptsz;
    CUdeviceptr q = 0;
    TP_CK(CALL(*as, &q, 100000, S2), CUDA_SUCCESS);
    tp_alloc(VT_KIND_MEM_ALLOC_ASYNC, q, 100000, SV(S2), as->flags, self);
    TP_CK(CALL(a->mem_free, q), CUDA_SUCCESS);
    tp_free(VT_KIND_MEM_FREE, q, 0, a->mem_free.flags, self);
}

TP_NOINLINE void ex_trim(const tp_api *a)
{
    void *self = (void *)ex_trim;
    CUmemoryPool pool = NULL;
    TP_CK(a->default_pool(&pool, 0), CUDA_SUCCESS);
    TP_CK(CALL(a->pool_trim, pool, 1u << 20), CUDA_SUCCESS);
    tp_trim((uint64_t)(uintptr_t)pool, 1u << 20, self);
    TP_CK(CALL(a->pool_trim, pool, 0), CUDA_SUCCESS);
    tp_trim((uint64_t)(uintptr_t)pool, 0, self);
}

/* ------------------------------------------------------------------------ *
 *  Virtual memory management
 * ------------------------------------------------------------------------ */
TP_NOINLINE void ex_vmm(const tp_api *a)
{
    void *self = (void *)ex_vmm;
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    size_t G = 0;
    TP_CK(a->granularity(&G, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM), CUDA_SUCCESS);

    CUdeviceptr va = 0, va2 = 0;
    TP_CK(CALL(a->vmm_reserve, &va, 4 * G, 0, 0, 0), CUDA_SUCCESS);
    tp_vmm(VT_VMM_RESERVE, va, 4 * G, 0, 0, self);
    const CUdeviceptr hint = 0x123400000000ull;
    TP_CK(CALL(a->vmm_reserve, &va2, 2 * G, 4 * G, hint, 0), CUDA_SUCCESS);
    tp_vmm(VT_VMM_RESERVE, va2, 2 * G, 4 * G, hint, self);

    CUmemGenericAllocationHandle h1 = 0, h2 = 0, hr = 0;
    TP_CK(CALL(a->vmm_create, &h1, 2 * G, &prop, 0), CUDA_SUCCESS);
    tp_alloc(VT_KIND_VMM_CREATE, h1, 2 * G, 0, a->vmm_create.flags, self);
    TP_CK(CALL(a->vmm_create, &h2, G, &prop, 0), CUDA_SUCCESS);
    tp_alloc(VT_KIND_VMM_CREATE, h2, G, 0, a->vmm_create.flags, self);

    TP_CK(CALL(a->vmm_map, va, 2 * G, 0, h1, 0), CUDA_SUCCESS);
    tp_vmm(VT_VMM_MAP, va, 2 * G, 0, h1, self);
    TP_CK(CALL(a->vmm_map, va + 2 * G, G, 0, h2, 0), CUDA_SUCCESS);
    tp_vmm(VT_VMM_MAP, va + 2 * G, G, 0, h2, self);
    TP_CK(CALL(a->vmm_map, va2, G, G, h1, 0), CUDA_SUCCESS);       /* h1 mapped twice */
    tp_vmm(VT_VMM_MAP, va2, G, G, h1, self);
    TP_CK(CALL(a->vmm_map, va + G, G, 0, 0x7777777ull, 0), CUDA_ERROR_INVALID_VALUE);
    tp_failed_call();

    TP_CK(CALL(a->vmm_retain, &hr, (void *)(uintptr_t)(va + 2 * G + 100)), CUDA_SUCCESS);
    if (hr != h2) tp_die("cuMemRetainAllocationHandle returned %llu, not %llu", (unsigned long long)hr,
                         (unsigned long long)h2);
    tp_vmm(VT_VMM_RETAIN, va + 2 * G + 100, 0, 0, hr, self);

    TP_CK(CALL(a->vmm_release, h1), CUDA_SUCCESS);                 /* still mapped */
    tp_free(VT_KIND_VMM_RELEASE, h1, 0, a->vmm_release.flags, self);
    TP_CK(CALL(a->vmm_unmap, va, 3 * G), CUDA_SUCCESS);            /* two mappings at once */
    tp_vmm(VT_VMM_UNMAP, va, 3 * G, 0, 0, self);
    TP_CK(CALL(a->vmm_unmap, va2, G), CUDA_SUCCESS);               /* h1's memory goes here */
    tp_vmm(VT_VMM_UNMAP, va2, G, 0, 0, self);
    TP_CK(CALL(a->vmm_release, h2), CUDA_SUCCESS);
    tp_free(VT_KIND_VMM_RELEASE, h2, 0, a->vmm_release.flags, self);
    TP_CK(CALL(a->vmm_release, hr), CUDA_SUCCESS);                 /* the retained reference */
    tp_free(VT_KIND_VMM_RELEASE, hr, 0, a->vmm_release.flags, self);
    TP_CK(CALL(a->vmm_address_free, va, 4 * G), CUDA_SUCCESS);
    tp_vmm(VT_VMM_ADDRESS_FREE, va, 4 * G, 0, 0, self);
    TP_CK(CALL(a->vmm_address_free, va2, 2 * G), CUDA_SUCCESS);
    tp_vmm(VT_VMM_ADDRESS_FREE, va2, 2 * G, 0, 0, self);
}

/* ------------------------------------------------------------------------ *
 *  Pinned host memory and arrays
 * ------------------------------------------------------------------------ */
TP_NOINLINE void ex_host(const tp_api *a)
{
    void *self = (void *)ex_host;
    void *h = NULL, *g = NULL;
    TP_CK(CALL(a->host_alloc, &h, 3 * 4096, CU_MEMHOSTALLOC_PORTABLE), CUDA_SUCCESS);
    tp_alloc(VT_KIND_HOST_ALLOC, (uint64_t)(uintptr_t)h, 3 * 4096, 0, a->host_alloc.flags, self);
    memset(h, 0x5a, 3 * 4096);
    TP_CK(CALL(a->alloc_host, &g, 100000), CUDA_SUCCESS);
    tp_alloc(VT_KIND_HOST_ALLOC_HOST, (uint64_t)(uintptr_t)g, 100000, 0, a->alloc_host.flags, self);
    memset(g, 0xa5, 100000);
    TP_CK(CALL(a->free_host, h), CUDA_SUCCESS);
    tp_free(VT_KIND_HOST_FREE, (uint64_t)(uintptr_t)h, 0, a->free_host.flags, self);
    TP_CK(CALL(a->free_host, g), CUDA_SUCCESS);
    tp_free(VT_KIND_HOST_FREE, (uint64_t)(uintptr_t)g, 0, a->free_host.flags, self);
}

TP_NOINLINE void ex_arrays(const tp_api *a)
{
    void *self = (void *)ex_arrays;
    CUarray a2 = NULL, a3 = NULL, a1 = NULL;
    CUmipmappedArray mm = NULL;
    CUDA_ARRAY_DESCRIPTOR d2 = { .Width = 1000, .Height = 500, .Format = CU_AD_FORMAT_FLOAT, .NumChannels = 4 };
    TP_CK(CALL(a->array_create, &a2, &d2), CUDA_SUCCESS);
    tp_alloc(VT_KIND_ARRAY, (uint64_t)(uintptr_t)a2, 1000ull * 500 * 4 * 4, 0, a->array_create.flags, self);
    CUDA_ARRAY3D_DESCRIPTOR d3 = { .Width = 64, .Height = 64, .Depth = 64, .Format = CU_AD_FORMAT_UNSIGNED_INT8,
                                   .NumChannels = 1 };
    TP_CK(CALL(a->array3d_create, &a3, &d3), CUDA_SUCCESS);
    tp_alloc(VT_KIND_ARRAY3D, (uint64_t)(uintptr_t)a3, 64ull * 64 * 64, 0, a->array3d_create.flags, self);
    CUDA_ARRAY3D_DESCRIPTOR d1 = { .Width = 128, .Format = CU_AD_FORMAT_HALF, .NumChannels = 2 }; /* 1D */
    TP_CK(CALL(a->array3d_create, &a1, &d1), CUDA_SUCCESS);
    tp_alloc(VT_KIND_ARRAY3D, (uint64_t)(uintptr_t)a1, 128ull * 2 * 2, 0, a->array3d_create.flags, self);
    CUDA_ARRAY3D_DESCRIPTOR dm = { .Width = 256, .Height = 256, .Format = CU_AD_FORMAT_FLOAT, .NumChannels = 1 };
    TP_CK(CALL(a->mipmap_create, &mm, &dm, 9), CUDA_SUCCESS);
    /* 256x256 .. 1x1: 87381 texels of 4 bytes */
    tp_alloc(VT_KIND_MIPMAPPED_ARRAY, (uint64_t)(uintptr_t)mm, 4ull * 87381, 0, a->mipmap_create.flags, self);

    CUarray arrs[] = { a3, a2, a1 };
    for (int i = 0; i < 3; i++) {
        TP_CK(CALL(a->array_destroy, arrs[i]), CUDA_SUCCESS);
        tp_free(VT_KIND_ARRAY_DESTROY, (uint64_t)(uintptr_t)arrs[i], 0, a->array_destroy.flags, self);
    }
    TP_CK(CALL(a->mipmap_destroy, mm), CUDA_SUCCESS);
    tp_free(VT_KIND_MIPMAPPED_DESTROY, (uint64_t)(uintptr_t)mm, 0, a->mipmap_destroy.flags, self);
}

/* The remaining v1 (32-bit size) entry points. */
TP_NOINLINE void ex_legacy(const tp_api *a)
{
    void *self = (void *)ex_legacy;
    unsigned int p = 0, pitch = 0;
    TP_CK(CALL(a->mem_alloc_pitch_v1, &p, &pitch, 1000, 10, 4), CUDA_SUCCESS);
    tp_alloc(VT_KIND_MEM_ALLOC_PITCH, p, (uint64_t)pitch * 10, 0, a->mem_alloc_pitch_v1.flags, self);
    TP_CK(CALL(a->mem_free_v1, p), CUDA_SUCCESS);
    tp_free(VT_KIND_MEM_FREE, p, 0, a->mem_free_v1.flags, self);

    void *h = NULL;
    TP_CK(CALL(a->alloc_host_v1, &h, 5000), CUDA_SUCCESS);
    tp_alloc(VT_KIND_HOST_ALLOC_HOST, (uint64_t)(uintptr_t)h, 5000, 0, a->alloc_host_v1.flags, self);
    memset(h, 1, 5000);
    TP_CK(CALL(a->free_host, h), CUDA_SUCCESS);
    tp_free(VT_KIND_HOST_FREE, (uint64_t)(uintptr_t)h, 0, a->free_host.flags, self);

    CUarray a2 = NULL, a3 = NULL;
    tp_array_desc_v1 d2 = { 100, 100, CU_AD_FORMAT_UNSIGNED_INT8, 1 };
    TP_CK(CALL(a->array_create_v1, &a2, &d2), CUDA_SUCCESS);
    tp_alloc(VT_KIND_ARRAY, (uint64_t)(uintptr_t)a2, 10000, 0, a->array_create_v1.flags, self);
    tp_array3d_desc_v1 d3 = { 10, 10, 10, CU_AD_FORMAT_FLOAT, 4, 0 };
    TP_CK(CALL(a->array3d_create_v1, &a3, &d3), CUDA_SUCCESS);
    tp_alloc(VT_KIND_ARRAY3D, (uint64_t)(uintptr_t)a3, 16000, 0, a->array3d_create_v1.flags, self);
    TP_CK(CALL(a->array_destroy, a2), CUDA_SUCCESS);
    tp_free(VT_KIND_ARRAY_DESTROY, (uint64_t)(uintptr_t)a2, 0, a->array_destroy.flags, self);
    TP_CK(CALL(a->array_destroy, a3), CUDA_SUCCESS);
    tp_free(VT_KIND_ARRAY_DESTROY, (uint64_t)(uintptr_t)a3, 0, a->array_destroy.flags, self);
}

/* ------------------------------------------------------------------------ *
 *  Out of memory (run with FAKECUDA_TOTAL_BYTES=1073741824)
 * ------------------------------------------------------------------------ */
TP_NOINLINE void ex_oom(const tp_api *a)
{
    void *self = (void *)ex_oom;
    const uint64_t GiB = 1ull << 30, MiB = 1ull << 20;
    size_t fr = 0, tot = 0;
    TP_CK(a->mem_info(&fr, &tot), CUDA_SUCCESS);
    if (tot != GiB) tp_die("oom needs FAKECUDA_TOTAL_BYTES=%llu (driver says %zu)", (unsigned long long)GiB, tot);

    CUdeviceptr p = 0, q = 0;
    TP_CK(CALL(a->mem_alloc, &q, 2 * GiB), CUDA_ERROR_OUT_OF_MEMORY);
    tp_oom(VT_KIND_MEM_ALLOC, 2 * GiB, 0, a->mem_alloc.flags, fr, tot, self);

    TP_CK(CALL(a->mem_alloc, &p, 600 * MiB), CUDA_SUCCESS);
    tp_alloc(VT_KIND_MEM_ALLOC, p, 600 * MiB, 0, a->mem_alloc.flags, self);
    TP_CK(a->mem_info(&fr, &tot), CUDA_SUCCESS);
    TP_CK(CALL(a->mem_alloc, &q, 600 * MiB), CUDA_ERROR_OUT_OF_MEMORY);   /* fits in total, not in free */
    tp_oom(VT_KIND_MEM_ALLOC, 600 * MiB, 0, a->mem_alloc.flags, fr, tot, self);

    const tp_slot_alloc_async *as = a->alloc_async.fn ? &a->alloc_async : &a->alloc_async_ptsz;
    TP_CK(CALL(*as, &q, 2 * GiB, S1), CUDA_ERROR_OUT_OF_MEMORY);
    tp_oom(VT_KIND_MEM_ALLOC_ASYNC, 2 * GiB, SV(S1), as->flags, fr, tot, self);

    CUmemoryPool pool = NULL;
    TP_CK(a->default_pool(&pool, 0), CUDA_SUCCESS);
    const tp_slot_alloc_pool *ps = a->alloc_pool.fn ? &a->alloc_pool : &a->alloc_pool_ptsz;
    TP_CK(CALL(*ps, &q, GiB, pool, S2), CUDA_ERROR_OUT_OF_MEMORY);
    tp_oom(VT_KIND_MEM_ALLOC_POOL, GiB, SV(S2), ps->flags, fr, tot, self);

    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    CUmemGenericAllocationHandle h = 0;
    TP_CK(CALL(a->vmm_create, &h, 512 * MiB, &prop, 0), CUDA_ERROR_OUT_OF_MEMORY);
    tp_oom(VT_KIND_VMM_CREATE, 512 * MiB, 0, a->vmm_create.flags, fr, tot, self);

    size_t pitch = 0;
    TP_CK(CALL(a->mem_alloc_pitch, &q, &pitch, MiB, 1024, 4), CUDA_ERROR_OUT_OF_MEMORY);
    /* The size a failed pitch allocation asked for is width * height (no pitch came back). */
    tp_oom(VT_KIND_MEM_ALLOC_PITCH, MiB * 1024, 0, a->mem_alloc_pitch.flags, fr, tot, self);

    CUarray arr = NULL;
    CUDA_ARRAY_DESCRIPTOR d = { .Width = 16384, .Height = 16384, .Format = CU_AD_FORMAT_FLOAT, .NumChannels = 4 };
    TP_CK(CALL(a->array_create, &arr, &d), CUDA_ERROR_OUT_OF_MEMORY);
    tp_oom(VT_KIND_ARRAY, 16384ull * 16384 * 16, 0, a->array_create.flags, fr, tot, self);

    TP_CK(CALL(a->mem_free, p), CUDA_SUCCESS);
    tp_free(VT_KIND_MEM_FREE, p, 0, a->mem_free.flags, self);
}

/* ------------------------------------------------------------------------ *
 *  Pass-through: what the recorder does not wrap reaches the variant asked for
 * ------------------------------------------------------------------------ */
TP_NOINLINE void ex_passthrough(const tp_api *a)
{
    CUstream s = NULL;
    TP_CK(a->stream_create(&s, 0), CUDA_SUCCESS);
    if ((uint64_t)(uintptr_t)s < FAKECUDA_STREAM_BASE) tp_die("cuStreamCreate gave %p, not a fake stream", (void *)s);
    fakecuda_stats_t before = tp_fake_stats();
    TP_CK(a->stream_sync.fn(s), CUDA_SUCCESS);
    fakecuda_stats_t after = tp_fake_stats();
    if (after.calls[a->stream_sync.id] != before.calls[a->stream_sync.id] + 1)
        tp_die("cuStreamSynchronize (%s) did not reach fake entry point %d exactly once", a->mode, a->stream_sync.id);
}

/* ------------------------------------------------------------------------ *
 *  Sections by name
 * ------------------------------------------------------------------------ */
void ex_all(const tp_api *a)
{
    ex_basic(a);
    ex_v1(a);
    ex_async(a);
    ex_trim(a);
    ex_vmm(a);
    ex_host(a);
    ex_arrays(a);
    ex_passthrough(a);
}

int ex_run(const char *name, const tp_api *a)
{
    static const struct { const char *name; void (*fn)(const tp_api *); } sections[] = {
        { "basic", ex_basic }, { "v1", ex_v1 }, { "async", ex_async }, { "trim", ex_trim },
        { "vmm", ex_vmm }, { "host", ex_host }, { "arrays", ex_arrays }, { "legacy", ex_legacy },
        { "oom", ex_oom }, { "passthrough", ex_passthrough }, { "all", ex_all },
    };
    for (size_t i = 0; i < sizeof sections / sizeof sections[0]; i++)
        if (strcmp(sections[i].name, name) == 0) { sections[i].fn(a); return 0; }
    return -1;
}
