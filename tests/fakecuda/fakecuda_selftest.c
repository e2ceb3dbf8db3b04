// SPDX-License-Identifier: MIT
/* fakecuda_selftest.c - checks the fake driver against what the real one does, so the
 * recorder's tests rest on a faithful double. Run with FAKECUDA_TOTAL_BYTES=1 GiB and
 * FAKECUDA_DEVICES=2; with --interposed, under LD_PRELOAD=libfakecuda_interposer.so. */
#define _GNU_SOURCE
#include <cuda.h>
#include <cudaTypedefs.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fakecuda.h"

static int g_failures;

#define CHECK(cond) do { if (!(cond)) { \
    fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); g_failures++; } } while (0)
#define CHECK_EQ(a, b) do { unsigned long long a_ = (unsigned long long)(a), b_ = (unsigned long long)(b); \
    if (a_ != b_) { fprintf(stderr, "%s:%d: CHECK_EQ failed: %s = %llu (0x%llx), %s = %llu (0x%llx)\n", \
        __FILE__, __LINE__, #a, a_, a_, #b, b_, b_); g_failures++; } } while (0)

static void *g_lib;

static void *sym(const char *name)
{
    void *p = dlsym(g_lib, name);
    if (!p) { fprintf(stderr, "missing export %s\n", name); g_failures++; }
    return p;
}

static void *proc(const char *name, int version, cuuint64_t flags, CUdriverProcAddressQueryResult *st)
{
    void *p = (void *)1;
    CUresult r = cuGetProcAddress_v2(name, &p, version, flags, st);
    return r == CUDA_SUCCESS ? p : (void *)2;
}

static void test_exports(void)
{
    for (int i = 0; i < FAKECUDA_FN_MAX; i++) CHECK(sym(fakecuda_fn_name(i)) != NULL);
    CHECK(fakecuda_fn_name(FAKECUDA_FN_MAX) == NULL);
    CHECK(strcmp(fakecuda_fn_name(FAKECUDA_FN_cuMemAlloc_v2), "cuMemAlloc_v2") == 0);
    CHECK(strcmp(fakecuda_fn_name(FAKECUDA_FN_cuMemAlloc), "cuMemAlloc") == 0);
}

static void test_getproc(void)
{
    CUdriverProcAddressQueryResult st = 99;
    const cuuint64_t L = CU_GET_PROC_ADDRESS_LEGACY_STREAM, P = CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM;
    CHECK(proc("cuMemAlloc", 3020, L, &st) == sym("cuMemAlloc_v2"));
    CHECK_EQ(st, CU_GET_PROC_ADDRESS_SUCCESS);
    CHECK(proc("cuMemAlloc", 13000, P, NULL) == sym("cuMemAlloc_v2"));
    CHECK(proc("cuMemAlloc", 2000, 0, NULL) == sym("cuMemAlloc"));
    CHECK(proc("cuMemFree", 12000, 0, NULL) == sym("cuMemFree_v2"));
    CHECK(proc("cuMemAllocAsync", 11020, L, NULL) == sym("cuMemAllocAsync"));
    CHECK(proc("cuMemAllocAsync", 12000, 0, NULL) == sym("cuMemAllocAsync"));
    CHECK(proc("cuMemAllocAsync", 12000, P, NULL) == sym("cuMemAllocAsync_ptsz"));
    CHECK(proc("cuMemFreeAsync", 12000, P, NULL) == sym("cuMemFreeAsync_ptsz"));
    CHECK(proc("cuMemAllocFromPoolAsync", 12000, P, NULL) == sym("cuMemAllocFromPoolAsync_ptsz"));
    CHECK(proc("cuMemAllocFromPoolAsync", 12000, L, NULL) == sym("cuMemAllocFromPoolAsync"));
    CHECK(proc("cuGetProcAddress", 12000, 0, NULL) == sym("cuGetProcAddress_v2"));
    CHECK(proc("cuGetProcAddress", 11030, 0, NULL) == sym("cuGetProcAddress"));
    CHECK(proc("cuDeviceGetUuid", 11040, 0, NULL) == sym("cuDeviceGetUuid_v2"));
    CHECK(proc("cuDeviceGetUuid", 11000, 0, NULL) == sym("cuDeviceGetUuid"));
    CHECK(proc("cuArrayCreate", 3020, 0, NULL) == sym("cuArrayCreate_v2"));
    CHECK(proc("cuMemCreate", 12000, 0, NULL) == sym("cuMemCreate"));

    /* Failed lookups, as driver 580.159.04 answers them: v2 says CUDA_SUCCESS, NULL and
     * why; v1 says CUDA_ERROR_NOT_FOUND and leaves the pointer alone. */
    void *p = (void *)1;
    st = 99;
    CHECK_EQ(cuGetProcAddress_v2("cuMemAllocAsync", &p, 11000, 0, &st), CUDA_SUCCESS);
    CHECK(p == NULL);
    CHECK_EQ(st, CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
    p = (void *)1;
    CHECK_EQ(cuGetProcAddress_v2("cuNoSuchFunction", &p, 13000, 0, &st), CUDA_SUCCESS);
    CHECK(p == NULL);
    CHECK_EQ(st, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
    p = (void *)1;
    CHECK_EQ(cuGetProcAddress_v2("cuMemAlloc_v2", &p, 13000, 0, &st), CUDA_SUCCESS);
    CHECK(p == NULL);
    CHECK_EQ(st, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
    p = (void *)1;
    st = 99;
    CHECK_EQ(cuGetProcAddress_v2("cuMemAlloc", &p, 13000, 4, &st), CUDA_ERROR_INVALID_VALUE);
    CHECK(p == (void *)1);
    CHECK_EQ(st, 99);

    /* The v1 entry point (4 arguments) resolves the same way. */
    PFN_cuGetProcAddress_v11030 v1 = (PFN_cuGetProcAddress_v11030)sym("cuGetProcAddress");
    p = (void *)1;
    CHECK_EQ(v1("cuNoSuchFunction", &p, 13000, 0), CUDA_ERROR_NOT_FOUND);
    CHECK(p == (void *)1);
    CHECK_EQ(v1("cuMemAllocAsync", &p, 11000, 0), CUDA_ERROR_NOT_FOUND);
    CHECK(p == (void *)1);
    p = NULL;
    CHECK_EQ(v1("cuMemAllocAsync", &p, 12000, P), CUDA_SUCCESS);
    CHECK(p == sym("cuMemAllocAsync_ptsz"));
    CHECK_EQ(v1("cuGetProcAddress", &p, 12000, 0), CUDA_SUCCESS);
    CHECK(p == sym("cuGetProcAddress_v2"));
}

static void test_memory(void)
{
    CUdeviceptr a = 0, b = 0;
    CHECK_EQ(cuMemAlloc(&a, 1000), CUDA_SUCCESS);
    CHECK(a >= FAKECUDA_DEVPTR_BASE);
    CHECK_EQ(cuMemAlloc(&b, 1), CUDA_SUCCESS);
    CHECK(b >= a + 1000);
    CHECK_EQ(cuMemAlloc(&b, 0), CUDA_ERROR_INVALID_VALUE);
    CHECK_EQ(cuMemFree(a), CUDA_SUCCESS);
    CHECK_EQ(cuMemFree(a), CUDA_ERROR_INVALID_VALUE);
    CHECK_EQ(cuMemFree(b), CUDA_SUCCESS);

    /* The v1 entry points hand out 32-bit pointers. */
    CUresult (*alloc_v1)(unsigned int *, unsigned int) = (CUresult (*)(unsigned int *, unsigned int))sym("cuMemAlloc");
    CUresult (*free_v1)(unsigned int) = (CUresult (*)(unsigned int))sym("cuMemFree");
    unsigned int p32 = 0;
    CHECK_EQ(alloc_v1(&p32, 4096), CUDA_SUCCESS);
    CHECK(p32 >= FAKECUDA_DEVPTR_V1_BASE);
    CHECK_EQ(free_v1(p32), CUDA_SUCCESS);

    size_t pitch = 0;
    CHECK_EQ(cuMemAllocPitch(&a, &pitch, 1000, 10, 4), CUDA_SUCCESS);
    CHECK_EQ(pitch, 1024);
    CHECK_EQ(cuMemFree(a), CUDA_SUCCESS);

    /* OOM at FAKECUDA_TOTAL_BYTES (1 GiB here), per device. */
    size_t fr = 0, tot = 0;
    CHECK_EQ(cuMemGetInfo(&fr, &tot), CUDA_SUCCESS);
    CHECK_EQ(tot, 1ull << 30);
    CHECK_EQ(fr, 1ull << 30);
    CHECK_EQ(cuMemAlloc(&a, 600u << 20), CUDA_SUCCESS);
    CHECK_EQ(cuMemGetInfo(&fr, &tot), CUDA_SUCCESS);
    CHECK_EQ(fr, (1ull << 30) - (600u << 20));
    fakecuda_stats_t s0 = fakecuda_stats();
    CHECK_EQ(cuMemAlloc(&b, 600u << 20), CUDA_ERROR_OUT_OF_MEMORY);
    CHECK_EQ(cuMemAllocAsync(&b, 2ull << 30, (CUstream)0), CUDA_ERROR_OUT_OF_MEMORY);
    CHECK_EQ(fakecuda_stats().ooms, s0.ooms + 2);
    CUdeviceptr m = 0;  /* managed memory may oversubscribe */
    CHECK_EQ(cuMemAllocManaged(&m, 2ull << 30, CU_MEM_ATTACH_GLOBAL), CUDA_SUCCESS);
    CHECK_EQ(cuMemFree(m), CUDA_SUCCESS);
    /* Device 1 has its own budget. */
    CUcontext c1 = NULL, c0 = NULL;
    CHECK_EQ(cuCtxGetCurrent(&c0), CUDA_SUCCESS);
    CHECK_EQ(cuDevicePrimaryCtxRetain(&c1, 1), CUDA_SUCCESS);
    CHECK_EQ(cuCtxSetCurrent(c1), CUDA_SUCCESS);
    CUdevice d = -1;
    CHECK_EQ(cuCtxGetDevice(&d), CUDA_SUCCESS);
    CHECK_EQ(d, 1);
    CHECK_EQ(cuMemAlloc(&b, 600u << 20), CUDA_SUCCESS);
    CHECK_EQ(cuMemFree(b), CUDA_SUCCESS);
    CHECK_EQ(cuCtxSetCurrent(c0), CUDA_SUCCESS);
    CHECK_EQ(cuMemFree(a), CUDA_SUCCESS);
    CHECK_EQ(fakecuda_stats().live_bytes, 0);
    CHECK(fakecuda_stats().peak_bytes >= (1200ull << 20));

    CUmemoryPool pool = NULL;
    CHECK_EQ(cuDeviceGetDefaultMemPool(&pool, 0), CUDA_SUCCESS);
    CHECK_EQ(cuMemAllocFromPoolAsync(&a, 100, pool, (CUstream)0), CUDA_SUCCESS);
    CHECK_EQ(cuMemFreeAsync(a, (CUstream)0), CUDA_SUCCESS);
    CHECK_EQ(cuMemPoolTrimTo(pool, 0), CUDA_SUCCESS);

    void *h = NULL;
    CHECK_EQ(cuMemHostAlloc(&h, 10000, CU_MEMHOSTALLOC_PORTABLE), CUDA_SUCCESS);
    memset(h, 0xab, 10000);
    CHECK_EQ(cuMemFreeHost(h), CUDA_SUCCESS);
    CHECK_EQ(cuMemAllocHost(&h, 100), CUDA_SUCCESS);
    CHECK_EQ(cuMemFreeHost(h), CUDA_SUCCESS);

    CUDA_ARRAY_DESCRIPTOR ad = { .Width = 1000, .Height = 500, .Format = CU_AD_FORMAT_FLOAT, .NumChannels = 4 };
    CUarray arr = NULL;
    s0 = fakecuda_stats();
    CHECK_EQ(cuArrayCreate(&arr, &ad), CUDA_SUCCESS);
    CHECK_EQ(fakecuda_stats().alloc_bytes[FAKECUDA_KIND_ARRAY] - s0.alloc_bytes[FAKECUDA_KIND_ARRAY], 8000000);
    CHECK_EQ(cuArrayDestroy(arr), CUDA_SUCCESS);
    CHECK_EQ(cuArrayDestroy(arr), CUDA_ERROR_INVALID_HANDLE);
    CUDA_ARRAY3D_DESCRIPTOR a3 = { .Width = 256, .Height = 256, .Depth = 0, .Format = CU_AD_FORMAT_FLOAT, .NumChannels = 1 };
    CUmipmappedArray mm = NULL;
    CHECK_EQ(cuMipmappedArrayCreate(&mm, &a3, 9), CUDA_SUCCESS);
    CHECK_EQ(fakecuda_stats().alloc_bytes[FAKECUDA_KIND_MIPMAPPED] - s0.alloc_bytes[FAKECUDA_KIND_MIPMAPPED], 4 * 87381);
    CHECK_EQ(cuMipmappedArrayDestroy(mm), CUDA_SUCCESS);
}

static void test_vmm(void)
{
    const uint64_t G = FAKECUDA_GRANULARITY;
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    size_t gran = 0;
    CHECK_EQ(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM), CUDA_SUCCESS);
    CHECK_EQ(gran, G);

    fakecuda_stats_t s0 = fakecuda_stats();
    CUdeviceptr va = 0;
    CHECK_EQ(cuMemAddressReserve(&va, 4 * G, 0, 0, 0), CUDA_SUCCESS);
    CHECK(va >= FAKECUDA_VA_BASE);
    CUmemGenericAllocationHandle h1 = 0, h2 = 0, h3 = 0;
    CHECK_EQ(cuMemCreate(&h1, 2 * G, &prop, 0), CUDA_SUCCESS);
    CHECK_EQ(cuMemCreate(&h2, G, &prop, 0), CUDA_SUCCESS);
    CHECK_EQ(cuMemCreate(&h3, G + 1, &prop, 0), CUDA_ERROR_INVALID_VALUE);
    CHECK_EQ(fakecuda_stats().live_bytes - s0.live_bytes, 3 * G);
    CHECK_EQ(cuMemMap(va, 2 * G, 0, h1, 0), CUDA_SUCCESS);
    CHECK_EQ(cuMemMap(va + 2 * G, G, 0, h2, 0), CUDA_SUCCESS);
    CHECK_EQ(cuMemMap(va + G, G, 0, h2, 0), CUDA_ERROR_INVALID_VALUE); /* overlaps */
    CHECK_EQ(cuMemRetainAllocationHandle(&h3, (void *)(uintptr_t)(va + 2 * G + 100)), CUDA_SUCCESS);
    CHECK_EQ(h3, h2);
    CHECK_EQ(cuMemRelease(h1), CUDA_SUCCESS);          /* still mapped: memory stays */
    CHECK_EQ(fakecuda_stats().frees[FAKECUDA_KIND_VMM_CREATE], s0.frees[FAKECUDA_KIND_VMM_CREATE]);
    CHECK_EQ(cuMemUnmap(va, G), CUDA_ERROR_INVALID_VALUE);   /* partial mapping */
    CHECK_EQ(cuMemAddressFree(va, 4 * G), CUDA_ERROR_INVALID_VALUE); /* still mapped */
    CHECK_EQ(cuMemUnmap(va, 3 * G), CUDA_SUCCESS);           /* both mappings at once */
    CHECK_EQ(fakecuda_stats().frees[FAKECUDA_KIND_VMM_CREATE], s0.frees[FAKECUDA_KIND_VMM_CREATE] + 1);
    CHECK_EQ(cuMemRelease(h2), CUDA_SUCCESS);
    CHECK_EQ(fakecuda_stats().frees[FAKECUDA_KIND_VMM_CREATE], s0.frees[FAKECUDA_KIND_VMM_CREATE] + 1);
    CHECK_EQ(cuMemRelease(h2), CUDA_SUCCESS);           /* the retained reference */
    CHECK_EQ(cuMemRelease(h2), CUDA_ERROR_INVALID_VALUE);
    CHECK_EQ(fakecuda_stats().frees[FAKECUDA_KIND_VMM_CREATE], s0.frees[FAKECUDA_KIND_VMM_CREATE] + 2);
    CHECK_EQ(fakecuda_stats().live_bytes, s0.live_bytes);
    CHECK_EQ(cuMemAddressFree(va, 4 * G), CUDA_SUCCESS);
    fakecuda_stats_t s1 = fakecuda_stats();
    CHECK_EQ(s1.releases - s0.releases, 3);
    CHECK_EQ(s1.maps - s0.maps, 2);
    CHECK_EQ(s1.unmaps - s0.unmaps, 1);
    CHECK_EQ(s1.retains - s0.retains, 1);
    CHECK_EQ(s1.reserves - s0.reserves, 1);
    CHECK_EQ(s1.address_frees - s0.address_frees, 1);
}

static void test_interposed(void)
{
    unsigned long *calls = (unsigned long *)dlsym(RTLD_DEFAULT, "fakecuda_interposer_calls");
    CHECK(calls != NULL);
    if (!calls) return;
    unsigned long base = *calls;
    CUdeviceptr a = 0;
    CHECK_EQ(cuMemAlloc(&a, 64), CUDA_SUCCESS);   /* a plain call reaches the hook */
    CHECK_EQ(*calls, base + 1);
    CHECK_EQ(cuMemFree(a), CUDA_SUCCESS);
    PFN_cuMemAlloc_v3020 p = (PFN_cuMemAlloc_v3020)proc("cuMemAlloc", 12000, 0, NULL);
    CHECK(p != NULL && (void *)p != dlsym(RTLD_DEFAULT, "cuMemAlloc_v2"));
    CHECK_EQ(p(&a, 64), CUDA_SUCCESS);              /* ... the driver's pointer does not */
    CHECK_EQ(*calls, base + 1);
    CHECK_EQ(cuMemFree(a), CUDA_SUCCESS);
}

int main(int argc, char **argv)
{
    int interposed = argc > 1 && strcmp(argv[1], "--interposed") == 0;
    g_lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!g_lib) { fprintf(stderr, "libcuda.so.1 is not loaded: %s\n", dlerror()); return 1; }
    Dl_info di;
    if (dladdr(dlsym(g_lib, "fakecuda_stats"), &di) == 0 || !strstr(di.dli_fname, "fakecuda")) {
        fprintf(stderr, "libcuda.so.1 is not the fake: %s\n", di.dli_fname ? di.dli_fname : "?");
        return 1;
    }

    CUdeviceptr a;
    CHECK_EQ(cuMemAlloc(&a, 10), CUDA_ERROR_NOT_INITIALIZED);
    CHECK_EQ(cuInit(1), CUDA_ERROR_INVALID_VALUE);
    CHECK_EQ(cuInit(0), CUDA_SUCCESS);
    int v = 0, n = 0;
    CHECK_EQ(cuDriverGetVersion(&v), CUDA_SUCCESS);
    CHECK_EQ(v, FAKECUDA_DRIVER_VERSION);
    CHECK_EQ(cuDeviceGetCount(&n), CUDA_SUCCESS);
    CHECK_EQ(n, 2);
    char name[64];
    CHECK_EQ(cuDeviceGetName(name, sizeof name, 1), CUDA_SUCCESS);
    CHECK(strcmp(name, "FakeCUDA Device 1") == 0);
    int major = 0;
    CHECK_EQ(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 0), CUDA_SUCCESS);
    CHECK_EQ(major, FAKECUDA_CC_MAJOR);
    CUuuid u;
    CHECK_EQ(cuDeviceGetUuid(&u, 1), CUDA_SUCCESS);
    CHECK_EQ((unsigned char)u.bytes[0], 0xfa);
    CHECK_EQ(u.bytes[15], 1);

    if (interposed) {
        test_interposed();
    } else {
        test_exports();
        test_getproc();
        test_memory();
        test_vmm();
        fakecuda_stats_t s = fakecuda_stats();
        CHECK_EQ(s.live_bytes, 0);
        CHECK(s.calls[FAKECUDA_FN_cuMemAlloc_v2] >= 5);
        CHECK_EQ(s.calls[FAKECUDA_FN_cuMemAlloc], 1);
    }
    if (g_failures) { fprintf(stderr, "fakecuda_selftest: %d failure(s)\n", g_failures); return 1; }
    printf("fakecuda_selftest: ok\n");
    return 0;
}
