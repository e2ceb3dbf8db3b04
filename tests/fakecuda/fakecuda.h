// SPDX-License-Identifier: MIT
/* fakecuda.h - the CI test double of libcuda.so.1: what tests can ask it.
 *
 * The fake implements the driver allocation API with the real ABI (both the v1 and
 * the _v2/_ptsz exported names, and cuGetProcAddress(_v2) resolving base names by
 * version and stream flag) without a GPU. It keeps its own counters so that a test
 * can compare what the recorder saw with what the "driver" did.
 *
 * Environment:
 *   FAKECUDA_TOTAL_BYTES  memory per device (default 80 GiB); device allocations that
 *                         would pass it fail with CUDA_ERROR_OUT_OF_MEMORY
 *   FAKECUDA_DEVICES      device count (default 1, at most FAKECUDA_MAX_DEVICES)
 *   FAKECUDA_NO_DEVICE=1  cuInit fails with CUDA_ERROR_NO_DEVICE
 *   FAKECUDA_DEBUG=1      log every cuGetProcAddress lookup to stderr
 *   FAKECUDA_PRIVATE_PROCS=1  cuGetProcAddress hands out private stubs (addresses that
 *                         match no exported symbol) instead of the exported functions
 *
 * Addresses: device pointers are bump-allocated from FAKECUDA_DEVPTR_BASE (never
 * reused, never dereferenceable); cuMemAlloc v1 pointers are 32-bit; VMM address
 * reservations come from FAKECUDA_VA_BASE; pinned host memory is real malloc'ed
 * memory a test may touch; handles, arrays and pools count up from their own bases. */
#ifndef FAKECUDA_H
#define FAKECUDA_H

#include <stdint.h>

#define FAKECUDA_DRIVER_VERSION 13000
#define FAKECUDA_MAX_DEVICES    8
#define FAKECUDA_DEVPTR_BASE    0x200000000000ull
#define FAKECUDA_DEVPTR_V1_BASE 0x10000000ull
#define FAKECUDA_VA_BASE        0x400000000000ull
#define FAKECUDA_ARRAY_BASE     0xa00000000000ull
#define FAKECUDA_MIPMAP_BASE    0xb00000000000ull
#define FAKECUDA_CTX_BASE       0xc00000000000ull
#define FAKECUDA_POOL_BASE      0xf00000000000ull
#define FAKECUDA_STREAM_BASE    0xe00000000000ull
#define FAKECUDA_HANDLE_BASE    0x1000ull
#define FAKECUDA_GRANULARITY    (2ull << 20)
#define FAKECUDA_PITCH_ALIGN    512ull
#define FAKECUDA_CC_MAJOR       9
#define FAKECUDA_CC_MINOR       0

/* Every exported driver entry point, in one list (the order of fakecuda_stats().calls). */
#define FAKECUDA_ENTRY_POINTS(X) \
    X(cuInit) X(cuDriverGetVersion) X(cuDeviceGetCount) X(cuDeviceGet) X(cuDeviceGetName) \
    X(cuDeviceTotalMem) X(cuDeviceTotalMem_v2) X(cuDeviceGetUuid) X(cuDeviceGetUuid_v2) \
    X(cuDeviceGetAttribute) X(cuCtxGetDevice) X(cuCtxGetDevice_v2) X(cuCtxGetCurrent) \
    X(cuCtxSetCurrent) X(cuDevicePrimaryCtxRetain) X(cuMemGetInfo) X(cuMemGetInfo_v2) \
    X(cuMemAlloc) X(cuMemAlloc_v2) X(cuMemFree) X(cuMemFree_v2) X(cuMemAllocPitch) \
    X(cuMemAllocPitch_v2) X(cuMemAllocManaged) X(cuMemAllocAsync) X(cuMemAllocAsync_ptsz) \
    X(cuMemAllocFromPoolAsync) X(cuMemAllocFromPoolAsync_ptsz) X(cuMemFreeAsync) \
    X(cuMemFreeAsync_ptsz) X(cuMemPoolTrimTo) X(cuDeviceGetDefaultMemPool) X(cuDeviceGetMemPool) X(cuMemPoolGetAttribute) X(cuMemPoolCreate) \
    X(cuMemPoolDestroy) X(cuMemGetAllocationGranularity) X(cuMemCreate) X(cuMemRelease) \
    X(cuMemMap) X(cuMemUnmap) X(cuMemAddressReserve) X(cuMemAddressFree) \
    X(cuMemRetainAllocationHandle) X(cuMemHostAlloc) X(cuMemAllocHost) X(cuMemAllocHost_v2) \
    X(cuMemFreeHost) X(cuArrayCreate) X(cuArrayCreate_v2) X(cuArray3DCreate) \
    X(cuArray3DCreate_v2) X(cuArrayDestroy) X(cuMipmappedArrayCreate) \
    X(cuMipmappedArrayDestroy) X(cuGetProcAddress) X(cuGetProcAddress_v2) \
    X(cuDevicePrimaryCtxRelease) X(cuDevicePrimaryCtxRelease_v2) X(cuCtxSynchronize) \
    X(cuStreamCreate) X(cuStreamDestroy) X(cuStreamDestroy_v2) X(cuStreamSynchronize) \
    X(cuStreamSynchronize_ptsz)

/* The ## keeps cuda.h's renaming macros (cuMemAlloc -> cuMemAlloc_v2) out of these names. */
#define FAKECUDA_FN_ENUM_(name) FAKECUDA_FN_##name,
typedef enum { FAKECUDA_ENTRY_POINTS(FAKECUDA_FN_ENUM_) FAKECUDA_FN_MAX } fakecuda_fn;
#undef FAKECUDA_FN_ENUM_

/* Allocation kinds: the same numbers as vt_kind's allocation kinds (vt_format.h), so a
 * test can index one with the other; the fake itself does not depend on vramtrace. */
typedef enum {
    FAKECUDA_KIND_MEM_ALLOC = 1,   /* cuMemAlloc, cuMemAlloc_v2 */
    FAKECUDA_KIND_PITCH = 2,       /* cuMemAllocPitch(_v2): pitch * height bytes */
    FAKECUDA_KIND_MANAGED = 3,     /* cuMemAllocManaged (not counted against the limit) */
    FAKECUDA_KIND_ASYNC = 4,       /* cuMemAllocAsync(_ptsz) */
    FAKECUDA_KIND_POOL = 5,        /* cuMemAllocFromPoolAsync(_ptsz) */
    FAKECUDA_KIND_VMM_CREATE = 6,  /* cuMemCreate; freed when the last reference and mapping go */
    FAKECUDA_KIND_HOST_ALLOC = 7,  /* cuMemHostAlloc (host memory, not counted against the limit) */
    FAKECUDA_KIND_HOST_ALLOC_HOST = 8, /* cuMemAllocHost(_v2) (ditto) */
    FAKECUDA_KIND_ARRAY = 9,       /* cuArrayCreate(_v2): width*height*channels*element bytes */
    FAKECUDA_KIND_ARRAY3D = 10,    /* cuArray3DCreate(_v2): width*height*depth*channels*element */
    FAKECUDA_KIND_MIPMAPPED = 11,  /* cuMipmappedArrayCreate: the sum over levels */
    FAKECUDA_KIND_MAX = 12
} fakecuda_kind;

/* A snapshot of the fake driver's counters (each counter is exact; the snapshot as a
 * whole is not atomic while other threads call the driver). */
typedef struct {
    uint64_t calls[FAKECUDA_FN_MAX];          /* calls per entry point, whatever they returned */
    uint64_t allocs[FAKECUDA_KIND_MAX];       /* successful allocations per kind */
    uint64_t alloc_bytes[FAKECUDA_KIND_MAX];
    uint64_t frees[FAKECUDA_KIND_MAX];        /* memory given back, by the kind it was allocated as
                                                 (VMM: when the physical memory goes) */
    uint64_t free_bytes[FAKECUDA_KIND_MAX];
    uint64_t free_calls;      /* successful cuMemFree*, cuMemFreeAsync*, cuMemRelease, cuMemFreeHost,
                                 cuArrayDestroy, cuMipmappedArrayDestroy calls */
    uint64_t ooms;            /* allocations refused with CUDA_ERROR_OUT_OF_MEMORY */
    uint64_t releases;        /* successful cuMemRelease calls */
    uint64_t maps, unmaps, retains, reserves, address_frees; /* successful VMM calls */
    uint64_t pool_trims;      /* successful cuMemPoolTrimTo calls */
    uint64_t errors;          /* calls that failed with anything but CUDA_ERROR_OUT_OF_MEMORY */
    uint64_t live_bytes;      /* device memory in use, all devices (the limit counts it) */
    uint64_t peak_bytes;      /* highest live_bytes seen */
    uint64_t total_bytes;     /* the per-device limit in force */
    int      devices;
} fakecuda_stats_t;

#ifdef __cplusplus
extern "C" {
#endif
fakecuda_stats_t fakecuda_stats(void);
/* "cuMemAlloc_v2" for FAKECUDA_FN_cuMemAlloc_v2; NULL when out of range. */
const char *fakecuda_fn_name(int fn);
#ifdef __cplusplus
}
#endif

#endif /* FAKECUDA_H */
