// SPDX-License-Identifier: MIT
/* fakecuda.c - a fake libcuda.so.1 for CI machines without a GPU.
 *
 * It exports the driver allocation API under the exact names and signatures of the
 * real driver: __CUDA_API_VERSION_INTERNAL makes cuda.h declare both the v1 symbols
 * (cuMemAlloc with 32-bit pointers) and the _v2/_ptsz ones, as the driver's own build
 * does. The library is linked with -Bsymbolic so that the addresses cuGetProcAddress
 * hands out are this library's own functions even when a preloaded library exports
 * the same names - which is what the real driver does, and why a recorder that only
 * exports cuMemAlloc_v2 misses the CUDA runtime's calls.
 *
 * Bookkeeping sits behind one mutex (allocation tables); counters are atomics. */
#define _GNU_SOURCE
#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda.h>

#include "fakecuda.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define EXPORT __attribute__((visibility("default")))

/* ------------------------------------------------------------------------ *
 *  Configuration and counters
 * ------------------------------------------------------------------------ */
/* Process-wide driver state: a driver is a process singleton, and so is its fake. */
static struct {
    pthread_once_t once;
    int ndev;
    int no_device;
    int debug;                      /* FAKECUDA_DEBUG=1: log lookups to stderr */
    int private_procs;              /* FAKECUDA_PRIVATE_PROCS=1: cuGetProcAddress returns stubs */
    uint64_t total;                 /* per device */
} g_cfg = { PTHREAD_ONCE_INIT, 1, 0, 0, 0, 80ull << 30 };

static atomic_int g_inited;

/* Counters behind fakecuda_stats(). */
static struct {
    _Atomic uint64_t calls[FAKECUDA_FN_MAX];
    _Atomic uint64_t allocs[FAKECUDA_KIND_MAX], alloc_bytes[FAKECUDA_KIND_MAX];
    _Atomic uint64_t frees[FAKECUDA_KIND_MAX], free_bytes[FAKECUDA_KIND_MAX];
    _Atomic uint64_t free_calls, ooms, releases, maps, unmaps, retains, reserves,
                     address_frees, pool_trims, errors, peak;
    _Atomic uint64_t live[FAKECUDA_MAX_DEVICES];
} g_st;

/* Bump allocators for the fake address ranges (never reused, so every address names
 * one allocation for the whole run). */
static _Atomic uint64_t g_next_devptr = FAKECUDA_DEVPTR_BASE;
static _Atomic uint64_t g_next_devptr_v1 = FAKECUDA_DEVPTR_V1_BASE;
static _Atomic uint64_t g_next_va = FAKECUDA_VA_BASE;
static _Atomic uint64_t g_next_handle = FAKECUDA_HANDLE_BASE;
static _Atomic uint64_t g_next_array = FAKECUDA_ARRAY_BASE;
static _Atomic uint64_t g_next_mipmap = FAKECUDA_MIPMAP_BASE;
static _Atomic uint64_t g_next_pool = FAKECUDA_POOL_BASE + 0x10000;

/* The calling thread's current device (a context per device, made current with
 * cuCtxSetCurrent); every thread starts on device 0 like a runtime-API program. */
static _Thread_local int t_dev;

static const char *const g_fn_names[] = {
#define FAKECUDA_FN_NAME_(name) #name,
    FAKECUDA_ENTRY_POINTS(FAKECUDA_FN_NAME_)
#undef FAKECUDA_FN_NAME_
};

static void cfg_load(void)
{
    const char *s = getenv("FAKECUDA_TOTAL_BYTES");
    if (s && *s) {
        char *end;
        unsigned long long v = strtoull(s, &end, 0);
        if (*end == 0 && v > 0) g_cfg.total = v;
    }
    s = getenv("FAKECUDA_DEVICES");
    if (s && *s) {
        int n = atoi(s);
        if (n >= 1 && n <= FAKECUDA_MAX_DEVICES) g_cfg.ndev = n;
    }
    s = getenv("FAKECUDA_NO_DEVICE");
    g_cfg.no_device = s && *s == '1';
    s = getenv("FAKECUDA_DEBUG");
    g_cfg.debug = s && *s == '1';
    s = getenv("FAKECUDA_PRIVATE_PROCS");
    g_cfg.private_procs = s && *s == '1';
}

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

/* A fork child may call the driver (the recorder's fork tests do): the table lock must
 * not be inherited held by a thread the child does not have. (The real driver refuses
 * to work in a fork child; the fake is more lenient so the recorder's side shows.) */
static void fork_prepare(void) { pthread_mutex_lock(&g_lock); }
static void fork_release(void) { pthread_mutex_unlock(&g_lock); }

__attribute__((constructor)) static void fake_init(void)
{
    pthread_atfork(fork_prepare, fork_release, fork_release);
}

static void cfg(void) { pthread_once(&g_cfg.once, cfg_load); }

#define CALLED(name) atomic_fetch_add(&g_st.calls[FAKECUDA_FN_##name], 1)

static CUresult fail(CUresult r)
{
    if (r == CUDA_ERROR_OUT_OF_MEMORY) atomic_fetch_add(&g_st.ooms, 1);
    else atomic_fetch_add(&g_st.errors, 1);
    return r;
}

#define NEED_INIT() do { if (!atomic_load(&g_inited)) return fail(CUDA_ERROR_NOT_INITIALIZED); } while (0)

static int counts_against_limit(int kind)
{
    return kind != FAKECUDA_KIND_MANAGED && kind != FAKECUDA_KIND_HOST_ALLOC &&
           kind != FAKECUDA_KIND_HOST_ALLOC_HOST;
}

/* Takes bytes from dev's budget; 0 when they do not fit. */
static int budget_take(int dev, uint64_t bytes)
{
    uint64_t cur = atomic_load(&g_st.live[dev]);
    do {
        if (bytes > g_cfg.total || cur > g_cfg.total - bytes) return 0;
    } while (!atomic_compare_exchange_weak(&g_st.live[dev], &cur, cur + bytes));
    uint64_t all = 0;
    for (int d = 0; d < g_cfg.ndev; d++) all += atomic_load(&g_st.live[d]);
    uint64_t peak = atomic_load(&g_st.peak);
    while (all > peak && !atomic_compare_exchange_weak(&g_st.peak, &peak, all)) {}
    return 1;
}

static void budget_give(int dev, uint64_t bytes) { atomic_fetch_sub(&g_st.live[dev], bytes); }

static void count_alloc(int kind, uint64_t bytes)
{
    atomic_fetch_add(&g_st.allocs[kind], 1);
    atomic_fetch_add(&g_st.alloc_bytes[kind], bytes);
}

static void count_free(int kind, uint64_t bytes)
{
    atomic_fetch_add(&g_st.frees[kind], 1);
    atomic_fetch_add(&g_st.free_bytes[kind], bytes);
}

static uint64_t round_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

/* ------------------------------------------------------------------------ *
 *  Object table: (space, address) -> what was allocated there
 * ------------------------------------------------------------------------ */
enum { SP_DEV = 1, SP_HANDLE, SP_HOST, SP_ARRAY, SP_MIPMAP, SP_POOL };

typedef struct obj {
    struct obj *next;
    int space, kind, dev;
    uint64_t addr, size;
    int refs, maps;       /* VMM handles: references (create/retain - release) and mappings */
} obj;

typedef struct map_ent {  /* a VMM mapping or an address reservation */
    struct map_ent *next;
    uint64_t va, size, offset, handle;
} map_ent;

#define NBUCKETS 65536
/* g_lock (above) guards the tables below. */
static obj *g_objs[NBUCKETS];  /* guarded by g_lock */
static map_ent *g_maps;        /* guarded by g_lock */
static map_ent *g_reserved;    /* guarded by g_lock */

static unsigned bucket(int space, uint64_t addr)
{
    uint64_t h = (addr ^ ((uint64_t)space << 59)) * 0x9E3779B97F4A7C15ull;
    return (unsigned)(h >> 48) & (NBUCKETS - 1);
}

/* Callers hold g_lock. */
static obj **obj_slot(int space, uint64_t addr)
{
    obj **pp = &g_objs[bucket(space, addr)];
    while (*pp && !((*pp)->space == space && (*pp)->addr == addr)) pp = &(*pp)->next;
    return pp;
}

static int obj_add(int space, int kind, int dev, uint64_t addr, uint64_t size)
{
    obj *o = calloc(1, sizeof *o);
    if (!o) return 0;
    o->space = space; o->kind = kind; o->dev = dev; o->addr = addr; o->size = size;
    o->refs = 1;
    pthread_mutex_lock(&g_lock);
    obj **pp = &g_objs[bucket(space, addr)];
    o->next = *pp;
    *pp = o;
    pthread_mutex_unlock(&g_lock);
    return 1;
}

/* Removes and returns the object at (space, addr), or NULL. */
static obj *obj_take(int space, uint64_t addr)
{
    pthread_mutex_lock(&g_lock);
    obj **pp = obj_slot(space, addr);
    obj *o = *pp;
    if (o) *pp = o->next;
    pthread_mutex_unlock(&g_lock);
    return o;
}

/* Gives an object's memory back and counts it. */
static void obj_release_memory(obj *o)
{
    if (counts_against_limit(o->kind)) budget_give(o->dev, o->size);
    count_free(o->kind, o->size);
}

/* A successful allocation: remembered, counted, its bytes taken from the budget by the
 * caller beforehand. */
static CUresult track(int space, int kind, int dev, uint64_t addr, uint64_t size)
{
    if (!obj_add(space, kind, dev, addr, size)) {
        if (counts_against_limit(kind)) budget_give(dev, size);
        return fail(CUDA_ERROR_OUT_OF_MEMORY);
    }
    count_alloc(kind, size);
    return CUDA_SUCCESS;
}

static CUresult dev_alloc(int kind, uint64_t size, uint64_t *out)
{
    if (size == 0) return fail(CUDA_ERROR_INVALID_VALUE);
    int dev = t_dev;
    if (counts_against_limit(kind) && !budget_take(dev, size))
        return fail(CUDA_ERROR_OUT_OF_MEMORY);
    uint64_t addr = atomic_fetch_add(&g_next_devptr, round_up(size, 512));
    CUresult r = track(SP_DEV, kind, dev, addr, size);
    if (r == CUDA_SUCCESS) *out = addr;
    return r;
}

static CUresult dev_alloc_v1(uint64_t size, unsigned int *out)
{
    if (size == 0) return fail(CUDA_ERROR_INVALID_VALUE);
    int dev = t_dev;
    uint64_t step = round_up(size, 512);
    uint64_t addr = atomic_fetch_add(&g_next_devptr_v1, step);
    if (addr + step > 0xffffffffull) return fail(CUDA_ERROR_OUT_OF_MEMORY);
    if (!budget_take(dev, size)) return fail(CUDA_ERROR_OUT_OF_MEMORY);
    CUresult r = track(SP_DEV, FAKECUDA_KIND_MEM_ALLOC, dev, addr, size);
    if (r == CUDA_SUCCESS) *out = (unsigned int)addr;
    return r;
}

/* The default pools (stream-ordered allocation): what is in use, and what the pool
 * holds from the driver: freed memory stays reserved until a trim, as in a real pool
 * whose release threshold keeps it (PyTorch's cudaMallocAsync backend sets it high). */
static _Atomic uint64_t g_pool_used[FAKECUDA_MAX_DEVICES], g_pool_reserved[FAKECUDA_MAX_DEVICES];

static void pool_grew(int dev, uint64_t size)
{
    uint64_t u = atomic_fetch_add(&g_pool_used[dev], size) + size;
    uint64_t r = atomic_load(&g_pool_reserved[dev]);
    while (u > r && !atomic_compare_exchange_weak(&g_pool_reserved[dev], &r, u)) {}
}

static CUresult dev_free(uint64_t addr)
{
    obj *o = obj_take(SP_DEV, addr);
    if (!o) return fail(CUDA_ERROR_INVALID_VALUE);
    if (o->kind == FAKECUDA_KIND_ASYNC && o->dev >= 0 && o->dev < FAKECUDA_MAX_DEVICES)
        atomic_fetch_sub(&g_pool_used[o->dev], o->size);
    obj_release_memory(o);
    free(o);
    atomic_fetch_add(&g_st.free_calls, 1);
    return CUDA_SUCCESS;
}

/* ------------------------------------------------------------------------ *
 *  Initialization, devices, contexts
 * ------------------------------------------------------------------------ */
EXPORT CUresult cuInit(unsigned int Flags)
{
    CALLED(cuInit);
    cfg();
    if (Flags != 0) return fail(CUDA_ERROR_INVALID_VALUE);
    if (g_cfg.no_device) return fail(CUDA_ERROR_NO_DEVICE);
    atomic_store(&g_inited, 1);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDriverGetVersion(int *driverVersion)
{
    CALLED(cuDriverGetVersion);
    if (!driverVersion) return fail(CUDA_ERROR_INVALID_VALUE);
    *driverVersion = FAKECUDA_DRIVER_VERSION;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGetCount(int *count)
{
    CALLED(cuDeviceGetCount);
    NEED_INIT();
    if (!count) return fail(CUDA_ERROR_INVALID_VALUE);
    *count = g_cfg.ndev;
    return CUDA_SUCCESS;
}

static int dev_ok(CUdevice d) { return d >= 0 && d < g_cfg.ndev; }

EXPORT CUresult cuDeviceGet(CUdevice *device, int ordinal)
{
    CALLED(cuDeviceGet);
    NEED_INIT();
    if (!device) return fail(CUDA_ERROR_INVALID_VALUE);
    if (!dev_ok(ordinal)) return fail(CUDA_ERROR_INVALID_DEVICE);
    *device = ordinal;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGetName(char *name, int len, CUdevice dev)
{
    CALLED(cuDeviceGetName);
    NEED_INIT();
    if (!name || len <= 0) return fail(CUDA_ERROR_INVALID_VALUE);
    if (!dev_ok(dev)) return fail(CUDA_ERROR_INVALID_DEVICE);
    snprintf(name, (size_t)len, "FakeCUDA Device %d", dev);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev)
{
    CALLED(cuDeviceTotalMem_v2);
    NEED_INIT();
    if (!bytes) return fail(CUDA_ERROR_INVALID_VALUE);
    if (!dev_ok(dev)) return fail(CUDA_ERROR_INVALID_DEVICE);
    *bytes = g_cfg.total;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceTotalMem(unsigned int *bytes, CUdevice dev)
{
    CALLED(cuDeviceTotalMem);
    NEED_INIT();
    if (!bytes) return fail(CUDA_ERROR_INVALID_VALUE);
    if (!dev_ok(dev)) return fail(CUDA_ERROR_INVALID_DEVICE);
    *bytes = g_cfg.total > 0xffffffffull ? 0xffffffffu : (unsigned int)g_cfg.total;
    return CUDA_SUCCESS;
}

static void fill_uuid(CUuuid *u, CUdevice dev)
{
    static const unsigned char base[16] = { 0xfa, 0x6e, 0xc0, 0xda, 0x00, 0x11, 0x42, 0x33,
                                            0x84, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0x00 };
    memcpy(u->bytes, base, 16);
    u->bytes[15] = (char)dev;
}

EXPORT CUresult cuDeviceGetUuid(CUuuid *uuid, CUdevice dev)
{
    CALLED(cuDeviceGetUuid);
    NEED_INIT();
    if (!uuid) return fail(CUDA_ERROR_INVALID_VALUE);
    if (!dev_ok(dev)) return fail(CUDA_ERROR_INVALID_DEVICE);
    fill_uuid(uuid, dev);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice dev)
{
    CALLED(cuDeviceGetUuid_v2);
    NEED_INIT();
    if (!uuid) return fail(CUDA_ERROR_INVALID_VALUE);
    if (!dev_ok(dev)) return fail(CUDA_ERROR_INVALID_DEVICE);
    fill_uuid(uuid, dev);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev)
{
    CALLED(cuDeviceGetAttribute);
    NEED_INIT();
    if (!pi || (int)attrib <= 0 || attrib >= CU_DEVICE_ATTRIBUTE_MAX) return fail(CUDA_ERROR_INVALID_VALUE);
    if (!dev_ok(dev)) return fail(CUDA_ERROR_INVALID_DEVICE);
    switch (attrib) {
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *pi = FAKECUDA_CC_MAJOR; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *pi = FAKECUDA_CC_MINOR; break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *pi = 132; break;
    case CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID: *pi = dev; break;
    case CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING:
    case CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY: *pi = 1; break;
    default: *pi = 0; break;
    }
    return CUDA_SUCCESS;
}

/* Contexts are fake pointers that name a device. */
static CUcontext ctx_of(int dev) { return (CUcontext)(uintptr_t)(FAKECUDA_CTX_BASE + 0x100u * (unsigned)dev); }

static int dev_of_ctx(CUcontext c)
{
    uint64_t v = (uint64_t)(uintptr_t)c;
    if (v < FAKECUDA_CTX_BASE || (v - FAKECUDA_CTX_BASE) % 0x100) return -1;
    uint64_t d = (v - FAKECUDA_CTX_BASE) / 0x100;
    return d < (uint64_t)g_cfg.ndev ? (int)d : -1;
}

EXPORT CUresult cuCtxGetDevice(CUdevice *device)
{
    CALLED(cuCtxGetDevice);
    NEED_INIT();
    if (!device) return fail(CUDA_ERROR_INVALID_VALUE);
    *device = t_dev;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxGetDevice_v2(CUdevice *device, CUcontext ctx)
{
    CALLED(cuCtxGetDevice_v2);
    NEED_INIT();
    if (!device) return fail(CUDA_ERROR_INVALID_VALUE);
    int d = ctx ? dev_of_ctx(ctx) : t_dev;
    if (d < 0) return fail(CUDA_ERROR_INVALID_CONTEXT);
    *device = d;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxGetCurrent(CUcontext *pctx)
{
    CALLED(cuCtxGetCurrent);
    NEED_INIT();
    if (!pctx) return fail(CUDA_ERROR_INVALID_VALUE);
    *pctx = ctx_of(t_dev);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxSetCurrent(CUcontext ctx)
{
    CALLED(cuCtxSetCurrent);
    NEED_INIT();
    int d = dev_of_ctx(ctx);
    if (d < 0) return fail(CUDA_ERROR_INVALID_CONTEXT);
    t_dev = d;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)
{
    CALLED(cuDevicePrimaryCtxRetain);
    NEED_INIT();
    if (!pctx) return fail(CUDA_ERROR_INVALID_VALUE);
    if (!dev_ok(dev)) return fail(CUDA_ERROR_INVALID_DEVICE);
    *pctx = ctx_of(dev);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
    CALLED(cuDevicePrimaryCtxRelease_v2);
    NEED_INIT();
    return dev_ok(dev) ? CUDA_SUCCESS : fail(CUDA_ERROR_INVALID_DEVICE);
}

EXPORT CUresult cuDevicePrimaryCtxRelease(CUdevice dev)
{
    CALLED(cuDevicePrimaryCtxRelease);
    NEED_INIT();
    return dev_ok(dev) ? CUDA_SUCCESS : fail(CUDA_ERROR_INVALID_DEVICE);
}

EXPORT CUresult cuCtxSynchronize(void)
{
    CALLED(cuCtxSynchronize);
    NEED_INIT();
    return CUDA_SUCCESS;
}

/* ------------------------------------------------------------------------ *
 *  Streams: fake handles; every operation completes at once
 * ------------------------------------------------------------------------ */
static _Atomic uint64_t g_next_stream = FAKECUDA_STREAM_BASE;

EXPORT CUresult cuStreamCreate(CUstream *phStream, unsigned int Flags)
{
    CALLED(cuStreamCreate);
    NEED_INIT();
    if (!phStream) return fail(CUDA_ERROR_INVALID_VALUE);
    *phStream = (CUstream)(uintptr_t)atomic_fetch_add(&g_next_stream, 0x100);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuStreamDestroy_v2(CUstream hStream)
{
    CALLED(cuStreamDestroy_v2);
    NEED_INIT();
    return hStream ? CUDA_SUCCESS : fail(CUDA_ERROR_INVALID_HANDLE);
}

EXPORT CUresult cuStreamDestroy(CUstream hStream)
{
    CALLED(cuStreamDestroy);
    NEED_INIT();
    return hStream ? CUDA_SUCCESS : fail(CUDA_ERROR_INVALID_HANDLE);
}

EXPORT CUresult cuStreamSynchronize(CUstream hStream)
{
    CALLED(cuStreamSynchronize);
    NEED_INIT();
    return CUDA_SUCCESS;
}

EXPORT CUresult cuStreamSynchronize_ptsz(CUstream hStream)
{
    CALLED(cuStreamSynchronize_ptsz);
    NEED_INIT();
    return CUDA_SUCCESS;
}

EXPORT CUresult cuMemGetInfo_v2(size_t *free_b, size_t *total)
{
    CALLED(cuMemGetInfo_v2);
    NEED_INIT();
    if (!free_b || !total) return fail(CUDA_ERROR_INVALID_VALUE);
    *total = g_cfg.total;
    *free_b = g_cfg.total - atomic_load(&g_st.live[t_dev]);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuMemGetInfo(unsigned int *free_b, unsigned int *total)
{
    CALLED(cuMemGetInfo);
    NEED_INIT();
    if (!free_b || !total) return fail(CUDA_ERROR_INVALID_VALUE);
    uint64_t f = g_cfg.total - atomic_load(&g_st.live[t_dev]);
    *total = g_cfg.total > 0xffffffffull ? 0xffffffffu : (unsigned int)g_cfg.total;
    *free_b = f > 0xffffffffull ? 0xffffffffu : (unsigned int)f;
    return CUDA_SUCCESS;
}

/* ------------------------------------------------------------------------ *
 *  Device memory: cuMemAlloc, pitch, managed, free
 * ------------------------------------------------------------------------ */
EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize)
{
    CALLED(cuMemAlloc_v2);
    NEED_INIT();
    if (!dptr) return fail(CUDA_ERROR_INVALID_VALUE);
    uint64_t a;
    CUresult r = dev_alloc(FAKECUDA_KIND_MEM_ALLOC, bytesize, &a);
    if (r == CUDA_SUCCESS) *dptr = (CUdeviceptr)a;
    return r;
}

EXPORT CUresult cuMemAlloc(CUdeviceptr_v1 *dptr, unsigned int bytesize)
{
    CALLED(cuMemAlloc);
    NEED_INIT();
    if (!dptr) return fail(CUDA_ERROR_INVALID_VALUE);
    return dev_alloc_v1(bytesize, dptr);
}

EXPORT CUresult cuMemFree_v2(CUdeviceptr dptr)
{
    CALLED(cuMemFree_v2);
    NEED_INIT();
    return dev_free(dptr);
}

EXPORT CUresult cuMemFree(CUdeviceptr_v1 dptr)
{
    CALLED(cuMemFree);
    NEED_INIT();
    return dev_free(dptr);
}

static CUresult pitch_args(uint64_t width, uint64_t height, unsigned elem, uint64_t *pitch)
{
    if (width == 0 || height == 0 || (elem != 4 && elem != 8 && elem != 16)) return CUDA_ERROR_INVALID_VALUE;
    *pitch = round_up(width, FAKECUDA_PITCH_ALIGN);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pPitch, size_t WidthInBytes,
                                   size_t Height, unsigned int ElementSizeBytes)
{
    CALLED(cuMemAllocPitch_v2);
    NEED_INIT();
    uint64_t pitch, a;
    if (!dptr || !pPitch || pitch_args(WidthInBytes, Height, ElementSizeBytes, &pitch))
        return fail(CUDA_ERROR_INVALID_VALUE);
    CUresult r = dev_alloc(FAKECUDA_KIND_PITCH, pitch * Height, &a);
    if (r == CUDA_SUCCESS) { *dptr = (CUdeviceptr)a; *pPitch = pitch; }
    return r;
}

EXPORT CUresult cuMemAllocPitch(CUdeviceptr_v1 *dptr, unsigned int *pPitch, unsigned int WidthInBytes,
                                unsigned int Height, unsigned int ElementSizeBytes)
{
    CALLED(cuMemAllocPitch);
    NEED_INIT();
    uint64_t pitch;
    if (!dptr || !pPitch || pitch_args(WidthInBytes, Height, ElementSizeBytes, &pitch))
        return fail(CUDA_ERROR_INVALID_VALUE);
    uint64_t size = pitch * Height;
    uint64_t step = round_up(size, 512);
    uint64_t a = atomic_fetch_add(&g_next_devptr_v1, step);
    if (a + step > 0xffffffffull || !budget_take(t_dev, size)) return fail(CUDA_ERROR_OUT_OF_MEMORY);
    CUresult r = track(SP_DEV, FAKECUDA_KIND_PITCH, t_dev, a, size);
    if (r == CUDA_SUCCESS) { *dptr = (CUdeviceptr_v1)a; *pPitch = (unsigned int)pitch; }
    return r;
}

EXPORT CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize, unsigned int flags)
{
    CALLED(cuMemAllocManaged);
    NEED_INIT();
    if (!dptr || (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST))
        return fail(CUDA_ERROR_INVALID_VALUE);
    uint64_t a;
    CUresult r = dev_alloc(FAKECUDA_KIND_MANAGED, bytesize, &a);
    if (r == CUDA_SUCCESS) *dptr = (CUdeviceptr)a;
    return r;
}

/* ------------------------------------------------------------------------ *
 *  Stream-ordered allocation and pools
 * ------------------------------------------------------------------------ */
static CUresult alloc_async(int kind, CUdeviceptr *dptr, size_t size, CUmemoryPool pool)
{
    NEED_INIT();
    if (!dptr || (kind == FAKECUDA_KIND_POOL && !pool)) return fail(CUDA_ERROR_INVALID_VALUE);
    uint64_t a;
    CUresult r = dev_alloc(kind, size, &a);
    if (r == CUDA_SUCCESS) *dptr = (CUdeviceptr)a;
    if (r == CUDA_SUCCESS && kind == FAKECUDA_KIND_ASYNC && t_dev >= 0 && t_dev < FAKECUDA_MAX_DEVICES)
        pool_grew(t_dev, size);
    return r;
}

EXPORT CUresult cuMemAllocAsync(CUdeviceptr *dptr, size_t bytesize, CUstream hStream)
{
    CALLED(cuMemAllocAsync);
    return alloc_async(FAKECUDA_KIND_ASYNC, dptr, bytesize, NULL);
}

EXPORT CUresult cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUstream hStream)
{
    CALLED(cuMemAllocAsync_ptsz);
    return alloc_async(FAKECUDA_KIND_ASYNC, dptr, bytesize, NULL);
}

EXPORT CUresult cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool, CUstream hStream)
{
    CALLED(cuMemAllocFromPoolAsync);
    return alloc_async(FAKECUDA_KIND_POOL, dptr, bytesize, pool);
}

EXPORT CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool, CUstream hStream)
{
    CALLED(cuMemAllocFromPoolAsync_ptsz);
    return alloc_async(FAKECUDA_KIND_POOL, dptr, bytesize, pool);
}

EXPORT CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream)
{
    CALLED(cuMemFreeAsync);
    NEED_INIT();
    return dev_free(dptr);
}

EXPORT CUresult cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream hStream)
{
    CALLED(cuMemFreeAsync_ptsz);
    NEED_INIT();
    return dev_free(dptr);
}

static CUmemoryPool default_pool(int dev) { return (CUmemoryPool)(uintptr_t)(FAKECUDA_POOL_BASE + 0x100u * (unsigned)dev); }

EXPORT CUresult cuDeviceGetDefaultMemPool(CUmemoryPool *pool_out, CUdevice dev)
{
    CALLED(cuDeviceGetDefaultMemPool);
    NEED_INIT();
    if (!pool_out) return fail(CUDA_ERROR_INVALID_VALUE);
    if (!dev_ok(dev)) return fail(CUDA_ERROR_INVALID_DEVICE);
    *pool_out = default_pool(dev);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGetMemPool(CUmemoryPool *pool_out, CUdevice dev)
{
    CALLED(cuDeviceGetMemPool);
    NEED_INIT();
    if (!pool_out) return fail(CUDA_ERROR_INVALID_VALUE);
    if (!dev_ok(dev)) return fail(CUDA_ERROR_INVALID_DEVICE);
    *pool_out = default_pool(dev);
    return CUDA_SUCCESS;
}

/* The default pools' figures (other pools: 0, the fake does not model them). */
EXPORT CUresult cuMemPoolGetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void *value)
{
    CALLED(cuMemPoolGetAttribute);
    NEED_INIT();
    if (!pool || !value) return fail(CUDA_ERROR_INVALID_VALUE);
    uint64_t p = (uint64_t)(uintptr_t)pool, v = 0;
    int dev = p >= FAKECUDA_POOL_BASE && p < FAKECUDA_POOL_BASE + 0x10000 ? (int)((p - FAKECUDA_POOL_BASE) / 0x100) : -1;
    int ok = dev >= 0 && dev < FAKECUDA_MAX_DEVICES;
    switch (attr) {
    case CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT: v = ok ? atomic_load(&g_pool_reserved[dev]) : 0; break;
    case CU_MEMPOOL_ATTR_USED_MEM_CURRENT: v = ok ? atomic_load(&g_pool_used[dev]) : 0; break;
    case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD: v = 0; break;
    default: return fail(CUDA_ERROR_INVALID_VALUE);
    }
    *(cuuint64_t *)value = v;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuMemPoolCreate(CUmemoryPool *pool, const CUmemPoolProps *poolProps)
{
    CALLED(cuMemPoolCreate);
    NEED_INIT();
    if (!pool || !poolProps) return fail(CUDA_ERROR_INVALID_VALUE);
    uint64_t p = atomic_fetch_add(&g_next_pool, 0x100);
    if (!obj_add(SP_POOL, 0, t_dev, p, 0)) return fail(CUDA_ERROR_OUT_OF_MEMORY);
    *pool = (CUmemoryPool)(uintptr_t)p;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuMemPoolDestroy(CUmemoryPool pool)
{
    CALLED(cuMemPoolDestroy);
    NEED_INIT();
    obj *o = obj_take(SP_POOL, (uint64_t)(uintptr_t)pool);
    if (!o) return fail(CUDA_ERROR_INVALID_VALUE);
    free(o);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuMemPoolTrimTo(CUmemoryPool pool, size_t minBytesToKeep)
{
    CALLED(cuMemPoolTrimTo);
    NEED_INIT();
    if (!pool) return fail(CUDA_ERROR_INVALID_VALUE);
    atomic_fetch_add(&g_st.pool_trims, 1);
    uint64_t p = (uint64_t)(uintptr_t)pool;
    if (p >= FAKECUDA_POOL_BASE && p < FAKECUDA_POOL_BASE + 0x100u * FAKECUDA_MAX_DEVICES) {
        int dev = (int)((p - FAKECUDA_POOL_BASE) / 0x100);
        uint64_t keep = atomic_load(&g_pool_used[dev]);
        if (keep < minBytesToKeep) keep = minBytesToKeep;
        if (keep < atomic_load(&g_pool_reserved[dev])) atomic_store(&g_pool_reserved[dev], keep);
    }
    return CUDA_SUCCESS;
}

/* ------------------------------------------------------------------------ *
 *  Virtual memory management
 *  A handle's physical memory lives while it has references (create, retain) or
 *  mappings; it goes at the last release or unmap, as in the real driver.
 * ------------------------------------------------------------------------ */
EXPORT CUresult cuMemGetAllocationGranularity(size_t *granularity, const CUmemAllocationProp *prop,
                                              CUmemAllocationGranularity_flags option)
{
    CALLED(cuMemGetAllocationGranularity);
    NEED_INIT();
    if (!granularity || !prop) return fail(CUDA_ERROR_INVALID_VALUE);
    *granularity = FAKECUDA_GRANULARITY;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size,
                            const CUmemAllocationProp *prop, unsigned long long flags)
{
    CALLED(cuMemCreate);
    NEED_INIT();
    if (!handle || !prop || flags != 0 || size == 0 || size % FAKECUDA_GRANULARITY ||
        prop->type != CU_MEM_ALLOCATION_TYPE_PINNED || prop->location.type != CU_MEM_LOCATION_TYPE_DEVICE)
        return fail(CUDA_ERROR_INVALID_VALUE);
    int dev = prop->location.id;
    if (!dev_ok(dev)) return fail(CUDA_ERROR_INVALID_DEVICE);
    if (!budget_take(dev, size)) return fail(CUDA_ERROR_OUT_OF_MEMORY);
    uint64_t h = atomic_fetch_add(&g_next_handle, 1);
    CUresult r = track(SP_HANDLE, FAKECUDA_KIND_VMM_CREATE, dev, h, size);
    if (r == CUDA_SUCCESS) *handle = h;
    return r;
}

/* Drops what kept a handle's memory; frees it when nothing does. Holds g_lock. */
static void handle_maybe_free_locked(obj **pp)
{
    obj *o = *pp;
    if (o->refs > 0 || o->maps > 0) return;
    *pp = o->next;
    obj_release_memory(o);
    free(o);
}

EXPORT CUresult cuMemRelease(CUmemGenericAllocationHandle handle)
{
    CALLED(cuMemRelease);
    NEED_INIT();
    pthread_mutex_lock(&g_lock);
    obj **pp = obj_slot(SP_HANDLE, handle);
    if (!*pp || (*pp)->refs <= 0) {
        pthread_mutex_unlock(&g_lock);
        return fail(CUDA_ERROR_INVALID_VALUE);
    }
    (*pp)->refs--;
    handle_maybe_free_locked(pp);
    pthread_mutex_unlock(&g_lock);
    atomic_fetch_add(&g_st.releases, 1);
    atomic_fetch_add(&g_st.free_calls, 1);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t alignment, CUdeviceptr addr,
                                    unsigned long long flags)
{
    CALLED(cuMemAddressReserve);
    NEED_INIT();
    if (!ptr || size == 0 || size % FAKECUDA_GRANULARITY || (alignment & (alignment - 1)))
        return fail(CUDA_ERROR_INVALID_VALUE);
    uint64_t align = alignment > FAKECUDA_GRANULARITY ? alignment : FAKECUDA_GRANULARITY;
    map_ent *m = calloc(1, sizeof *m);
    if (!m) return fail(CUDA_ERROR_OUT_OF_MEMORY);
    /* The hint is ignored, as the driver may; reservations never overlap. */
    uint64_t va;
    uint64_t cur = atomic_load(&g_next_va);
    do {
        va = round_up(cur, align);
    } while (!atomic_compare_exchange_weak(&g_next_va, &cur, va + size));
    m->va = va; m->size = size;
    pthread_mutex_lock(&g_lock);
    m->next = g_reserved;
    g_reserved = m;
    pthread_mutex_unlock(&g_lock);
    atomic_fetch_add(&g_st.reserves, 1);
    *ptr = (CUdeviceptr)va;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuMemAddressFree(CUdeviceptr ptr, size_t size)
{
    CALLED(cuMemAddressFree);
    NEED_INIT();
    pthread_mutex_lock(&g_lock);
    map_ent **pp = &g_reserved;
    while (*pp && !((*pp)->va == ptr && (*pp)->size == size)) pp = &(*pp)->next;
    int mapped = 0;
    for (map_ent *m = g_maps; m; m = m->next)
        if (m->va >= ptr && m->va < ptr + size) mapped = 1;
    if (!*pp || mapped) {
        pthread_mutex_unlock(&g_lock);
        return fail(CUDA_ERROR_INVALID_VALUE);
    }
    map_ent *m = *pp;
    *pp = m->next;
    pthread_mutex_unlock(&g_lock);
    free(m);
    atomic_fetch_add(&g_st.address_frees, 1);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle handle,
                         unsigned long long flags)
{
    CALLED(cuMemMap);
    NEED_INIT();
    if (flags != 0 || size == 0 || size % FAKECUDA_GRANULARITY || offset % FAKECUDA_GRANULARITY)
        return fail(CUDA_ERROR_INVALID_VALUE);
    map_ent *nm = calloc(1, sizeof *nm);
    if (!nm) return fail(CUDA_ERROR_OUT_OF_MEMORY);
    pthread_mutex_lock(&g_lock);
    obj **pp = obj_slot(SP_HANDLE, handle);
    int ok = *pp && (*pp)->refs > 0 && offset + size <= (*pp)->size;
    int inside = 0;
    for (map_ent *r = g_reserved; r; r = r->next)
        if (ptr >= r->va && ptr + size <= r->va + r->size) inside = 1;
    for (map_ent *m = g_maps; m && ok; m = m->next)
        if (ptr < m->va + m->size && m->va < ptr + size) ok = 0;
    if (!ok || !inside) {
        pthread_mutex_unlock(&g_lock);
        free(nm);
        return fail(CUDA_ERROR_INVALID_VALUE);
    }
    (*pp)->maps++;
    nm->va = ptr; nm->size = size; nm->offset = offset; nm->handle = handle;
    nm->next = g_maps;
    g_maps = nm;
    pthread_mutex_unlock(&g_lock);
    atomic_fetch_add(&g_st.maps, 1);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuMemUnmap(CUdeviceptr ptr, size_t size)
{
    CALLED(cuMemUnmap);
    NEED_INIT();
    pthread_mutex_lock(&g_lock);
    /* The range must cover whole mappings, at least one. */
    int n = 0, partial = 0;
    for (map_ent *m = g_maps; m; m = m->next) {
        int overlap = ptr < m->va + m->size && m->va < ptr + size;
        int whole = m->va >= ptr && m->va + m->size <= ptr + size;
        if (whole) n++;
        else if (overlap) partial = 1;
    }
    if (n == 0 || partial) {
        pthread_mutex_unlock(&g_lock);
        return fail(CUDA_ERROR_INVALID_VALUE);
    }
    map_ent **mp = &g_maps;
    while (*mp) {
        map_ent *m = *mp;
        if (m->va >= ptr && m->va + m->size <= ptr + size) {
            *mp = m->next;
            obj **pp = obj_slot(SP_HANDLE, m->handle);
            if (*pp) {
                (*pp)->maps--;
                handle_maybe_free_locked(pp);
            }
            free(m);
        } else {
            mp = &m->next;
        }
    }
    pthread_mutex_unlock(&g_lock);
    atomic_fetch_add(&g_st.unmaps, 1);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuMemRetainAllocationHandle(CUmemGenericAllocationHandle *handle, void *addr)
{
    CALLED(cuMemRetainAllocationHandle);
    NEED_INIT();
    if (!handle) return fail(CUDA_ERROR_INVALID_VALUE);
    uint64_t a = (uint64_t)(uintptr_t)addr;
    pthread_mutex_lock(&g_lock);
    map_ent *m = g_maps;
    while (m && !(a >= m->va && a < m->va + m->size)) m = m->next;
    obj **pp = m ? obj_slot(SP_HANDLE, m->handle) : NULL;
    if (!pp || !*pp) {
        pthread_mutex_unlock(&g_lock);
        return fail(CUDA_ERROR_INVALID_VALUE);
    }
    (*pp)->refs++;
    *handle = (*pp)->addr;
    pthread_mutex_unlock(&g_lock);
    atomic_fetch_add(&g_st.retains, 1);
    return CUDA_SUCCESS;
}

/* ------------------------------------------------------------------------ *
 *  Pinned host memory (real memory, so tests may write to it)
 * ------------------------------------------------------------------------ */
static CUresult host_alloc(int kind, void **pp, uint64_t size)
{
    NEED_INIT();
    if (!pp || size == 0) return fail(CUDA_ERROR_INVALID_VALUE);
    void *p = NULL;
    if (posix_memalign(&p, 4096, size)) return fail(CUDA_ERROR_OUT_OF_MEMORY);
    memset(p, 0, size);
    CUresult r = track(SP_HOST, kind, t_dev, (uint64_t)(uintptr_t)p, size);
    if (r != CUDA_SUCCESS) { free(p); return r; }
    *pp = p;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags)
{
    CALLED(cuMemHostAlloc);
    if (Flags & ~(unsigned)(CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_WRITECOMBINED))
        return fail(CUDA_ERROR_INVALID_VALUE);
    return host_alloc(FAKECUDA_KIND_HOST_ALLOC, pp, bytesize);
}

EXPORT CUresult cuMemAllocHost_v2(void **pp, size_t bytesize)
{
    CALLED(cuMemAllocHost_v2);
    return host_alloc(FAKECUDA_KIND_HOST_ALLOC_HOST, pp, bytesize);
}

EXPORT CUresult cuMemAllocHost(void **pp, unsigned int bytesize)
{
    CALLED(cuMemAllocHost);
    return host_alloc(FAKECUDA_KIND_HOST_ALLOC_HOST, pp, bytesize);
}

EXPORT CUresult cuMemFreeHost(void *p)
{
    CALLED(cuMemFreeHost);
    NEED_INIT();
    obj *o = obj_take(SP_HOST, (uint64_t)(uintptr_t)p);
    if (!o) return fail(CUDA_ERROR_INVALID_VALUE);
    obj_release_memory(o);
    free(o);
    free(p);
    atomic_fetch_add(&g_st.free_calls, 1);
    return CUDA_SUCCESS;
}

/* ------------------------------------------------------------------------ *
 *  Arrays
 * ------------------------------------------------------------------------ */
static unsigned format_bytes(CUarray_format f)
{
    switch (f) {
    case CU_AD_FORMAT_UNSIGNED_INT8: case CU_AD_FORMAT_SIGNED_INT8: return 1;
    case CU_AD_FORMAT_UNSIGNED_INT16: case CU_AD_FORMAT_SIGNED_INT16: case CU_AD_FORMAT_HALF: return 2;
    case CU_AD_FORMAT_UNSIGNED_INT32: case CU_AD_FORMAT_SIGNED_INT32: case CU_AD_FORMAT_FLOAT: return 4;
    default: return 0; /* the fake knows only the plain formats */
    }
}

/* Bytes of a w x h x d array (0 dimensions count as 1); 0 when the descriptor is bad. */
static uint64_t array_bytes(uint64_t w, uint64_t h, uint64_t d, CUarray_format f, unsigned ch)
{
    unsigned eb = format_bytes(f);
    if (!eb || w == 0 || (ch != 1 && ch != 2 && ch != 4)) return 0;
    return w * (h ? h : 1) * (d ? d : 1) * ch * eb;
}

static CUresult array_create(int kind, int space, _Atomic uint64_t *next, uint64_t bytes, uint64_t *out)
{
    NEED_INIT();
    if (!bytes) return fail(CUDA_ERROR_INVALID_VALUE);
    if (!budget_take(t_dev, bytes)) return fail(CUDA_ERROR_OUT_OF_MEMORY);
    uint64_t a = atomic_fetch_add(next, 0x100);
    CUresult r = track(space, kind, t_dev, a, bytes);
    if (r == CUDA_SUCCESS) *out = a;
    return r;
}

EXPORT CUresult cuArrayCreate_v2(CUarray *pHandle, const CUDA_ARRAY_DESCRIPTOR *d)
{
    CALLED(cuArrayCreate_v2);
    if (!pHandle || !d) return fail(CUDA_ERROR_INVALID_VALUE);
    uint64_t a;
    CUresult r = array_create(FAKECUDA_KIND_ARRAY, SP_ARRAY, &g_next_array,
                              array_bytes(d->Width, d->Height, 1, d->Format, d->NumChannels), &a);
    if (r == CUDA_SUCCESS) *pHandle = (CUarray)(uintptr_t)a;
    return r;
}

EXPORT CUresult cuArrayCreate(CUarray *pHandle, const CUDA_ARRAY_DESCRIPTOR_v1 *d)
{
    CALLED(cuArrayCreate);
    if (!pHandle || !d) return fail(CUDA_ERROR_INVALID_VALUE);
    uint64_t a;
    CUresult r = array_create(FAKECUDA_KIND_ARRAY, SP_ARRAY, &g_next_array,
                              array_bytes(d->Width, d->Height, 1, d->Format, d->NumChannels), &a);
    if (r == CUDA_SUCCESS) *pHandle = (CUarray)(uintptr_t)a;
    return r;
}

EXPORT CUresult cuArray3DCreate_v2(CUarray *pHandle, const CUDA_ARRAY3D_DESCRIPTOR *d)
{
    CALLED(cuArray3DCreate_v2);
    if (!pHandle || !d) return fail(CUDA_ERROR_INVALID_VALUE);
    uint64_t a;
    CUresult r = array_create(FAKECUDA_KIND_ARRAY3D, SP_ARRAY, &g_next_array,
                              array_bytes(d->Width, d->Height, d->Depth, d->Format, d->NumChannels), &a);
    if (r == CUDA_SUCCESS) *pHandle = (CUarray)(uintptr_t)a;
    return r;
}

EXPORT CUresult cuArray3DCreate(CUarray *pHandle, const CUDA_ARRAY3D_DESCRIPTOR_v1 *d)
{
    CALLED(cuArray3DCreate);
    if (!pHandle || !d) return fail(CUDA_ERROR_INVALID_VALUE);
    uint64_t a;
    CUresult r = array_create(FAKECUDA_KIND_ARRAY3D, SP_ARRAY, &g_next_array,
                              array_bytes(d->Width, d->Height, d->Depth, d->Format, d->NumChannels), &a);
    if (r == CUDA_SUCCESS) *pHandle = (CUarray)(uintptr_t)a;
    return r;
}

EXPORT CUresult cuArrayDestroy(CUarray hArray)
{
    CALLED(cuArrayDestroy);
    NEED_INIT();
    obj *o = obj_take(SP_ARRAY, (uint64_t)(uintptr_t)hArray);
    if (!o) return fail(CUDA_ERROR_INVALID_HANDLE);
    obj_release_memory(o);
    free(o);
    atomic_fetch_add(&g_st.free_calls, 1);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuMipmappedArrayCreate(CUmipmappedArray *pHandle, const CUDA_ARRAY3D_DESCRIPTOR *d,
                                       unsigned int numMipmapLevels)
{
    CALLED(cuMipmappedArrayCreate);
    if (!pHandle || !d || numMipmapLevels == 0) return fail(CUDA_ERROR_INVALID_VALUE);
    uint64_t bytes = 0;
    for (unsigned l = 0; l < numMipmapLevels; l++) {
        uint64_t w = d->Width >> l, h = d->Height >> l, z = d->Depth >> l;
        bytes += array_bytes(w ? w : 1, d->Height ? (h ? h : 1) : 0, d->Depth ? (z ? z : 1) : 0,
                             d->Format, d->NumChannels);
    }
    uint64_t a;
    CUresult r = array_create(FAKECUDA_KIND_MIPMAPPED, SP_MIPMAP, &g_next_mipmap, bytes, &a);
    if (r == CUDA_SUCCESS) *pHandle = (CUmipmappedArray)(uintptr_t)a;
    return r;
}

EXPORT CUresult cuMipmappedArrayDestroy(CUmipmappedArray hMipmappedArray)
{
    CALLED(cuMipmappedArrayDestroy);
    NEED_INIT();
    obj *o = obj_take(SP_MIPMAP, (uint64_t)(uintptr_t)hMipmappedArray);
    if (!o) return fail(CUDA_ERROR_INVALID_HANDLE);
    obj_release_memory(o);
    free(o);
    atomic_fetch_add(&g_st.free_calls, 1);
    return CUDA_SUCCESS;
}

/* ------------------------------------------------------------------------ *
 *  cuGetProcAddress: base name + requested version + stream flag -> the exported
 *  function of that version, as the real driver resolves them (versions are those
 *  of cudaTypedefs.h's PFN_<name>_v<version> typedefs).
 * ------------------------------------------------------------------------ */
typedef struct {
    const char *name;  /* base name, as callers ask for it */
    int version;       /* the first CUDA version this variant serves */
    int ptsz;          /* 1: the per-thread-default-stream variant */
    void *fn;
} proc_ent;

static const proc_ent g_procs[] = {
    { "cuInit", 2000, 0, (void *)cuInit },
    { "cuDriverGetVersion", 2020, 0, (void *)cuDriverGetVersion },
    { "cuDeviceGet", 2000, 0, (void *)cuDeviceGet },
    { "cuDeviceGetCount", 2000, 0, (void *)cuDeviceGetCount },
    { "cuDeviceGetName", 2000, 0, (void *)cuDeviceGetName },
    { "cuDeviceTotalMem", 2000, 0, (void *)cuDeviceTotalMem },
    { "cuDeviceTotalMem", 3020, 0, (void *)cuDeviceTotalMem_v2 },
    { "cuDeviceGetUuid", 9020, 0, (void *)cuDeviceGetUuid },
    { "cuDeviceGetUuid", 11040, 0, (void *)cuDeviceGetUuid_v2 },
    { "cuDeviceGetAttribute", 2000, 0, (void *)cuDeviceGetAttribute },
    { "cuCtxGetDevice", 2000, 0, (void *)cuCtxGetDevice },
    { "cuCtxGetDevice", 13000, 0, (void *)cuCtxGetDevice_v2 },
    { "cuCtxGetCurrent", 4000, 0, (void *)cuCtxGetCurrent },
    { "cuCtxSetCurrent", 4000, 0, (void *)cuCtxSetCurrent },
    { "cuDevicePrimaryCtxRetain", 7000, 0, (void *)cuDevicePrimaryCtxRetain },
    { "cuDevicePrimaryCtxRelease", 7000, 0, (void *)cuDevicePrimaryCtxRelease },
    { "cuDevicePrimaryCtxRelease", 11000, 0, (void *)cuDevicePrimaryCtxRelease_v2 },
    { "cuCtxSynchronize", 2000, 0, (void *)cuCtxSynchronize },
    { "cuStreamCreate", 2000, 0, (void *)cuStreamCreate },
    { "cuStreamDestroy", 2000, 0, (void *)cuStreamDestroy },
    { "cuStreamDestroy", 4000, 0, (void *)cuStreamDestroy_v2 },
    { "cuStreamSynchronize", 2000, 0, (void *)cuStreamSynchronize },
    { "cuStreamSynchronize", 7000, 1, (void *)cuStreamSynchronize_ptsz },
    { "cuMemGetInfo", 2000, 0, (void *)cuMemGetInfo },
    { "cuMemGetInfo", 3020, 0, (void *)cuMemGetInfo_v2 },
    { "cuMemAlloc", 2000, 0, (void *)cuMemAlloc },
    { "cuMemAlloc", 3020, 0, (void *)cuMemAlloc_v2 },
    { "cuMemFree", 2000, 0, (void *)cuMemFree },
    { "cuMemFree", 3020, 0, (void *)cuMemFree_v2 },
    { "cuMemAllocPitch", 2000, 0, (void *)cuMemAllocPitch },
    { "cuMemAllocPitch", 3020, 0, (void *)cuMemAllocPitch_v2 },
    { "cuMemAllocManaged", 6000, 0, (void *)cuMemAllocManaged },
    { "cuMemAllocAsync", 11020, 0, (void *)cuMemAllocAsync },
    { "cuMemAllocAsync", 11020, 1, (void *)cuMemAllocAsync_ptsz },
    { "cuMemAllocFromPoolAsync", 11020, 0, (void *)cuMemAllocFromPoolAsync },
    { "cuMemAllocFromPoolAsync", 11020, 1, (void *)cuMemAllocFromPoolAsync_ptsz },
    { "cuMemFreeAsync", 11020, 0, (void *)cuMemFreeAsync },
    { "cuMemFreeAsync", 11020, 1, (void *)cuMemFreeAsync_ptsz },
    { "cuMemPoolTrimTo", 11020, 0, (void *)cuMemPoolTrimTo },
    { "cuDeviceGetDefaultMemPool", 11020, 0, (void *)cuDeviceGetDefaultMemPool },
    { "cuDeviceGetMemPool", 11020, 0, (void *)cuDeviceGetMemPool },
    { "cuMemPoolGetAttribute", 11020, 0, (void *)cuMemPoolGetAttribute },
    { "cuMemPoolCreate", 11020, 0, (void *)cuMemPoolCreate },
    { "cuMemPoolDestroy", 11020, 0, (void *)cuMemPoolDestroy },
    { "cuMemGetAllocationGranularity", 10020, 0, (void *)cuMemGetAllocationGranularity },
    { "cuMemCreate", 10020, 0, (void *)cuMemCreate },
    { "cuMemRelease", 10020, 0, (void *)cuMemRelease },
    { "cuMemMap", 10020, 0, (void *)cuMemMap },
    { "cuMemUnmap", 10020, 0, (void *)cuMemUnmap },
    { "cuMemAddressReserve", 10020, 0, (void *)cuMemAddressReserve },
    { "cuMemAddressFree", 10020, 0, (void *)cuMemAddressFree },
    { "cuMemRetainAllocationHandle", 11000, 0, (void *)cuMemRetainAllocationHandle },
    { "cuMemHostAlloc", 2020, 0, (void *)cuMemHostAlloc },
    { "cuMemAllocHost", 2000, 0, (void *)cuMemAllocHost },
    { "cuMemAllocHost", 3020, 0, (void *)cuMemAllocHost_v2 },
    { "cuMemFreeHost", 2000, 0, (void *)cuMemFreeHost },
    { "cuArrayCreate", 2000, 0, (void *)cuArrayCreate },
    { "cuArrayCreate", 3020, 0, (void *)cuArrayCreate_v2 },
    { "cuArray3DCreate", 2000, 0, (void *)cuArray3DCreate },
    { "cuArray3DCreate", 3020, 0, (void *)cuArray3DCreate_v2 },
    { "cuArrayDestroy", 2000, 0, (void *)cuArrayDestroy },
    { "cuMipmappedArrayCreate", 5000, 0, (void *)cuMipmappedArrayCreate },
    { "cuMipmappedArrayDestroy", 5000, 0, (void *)cuMipmappedArrayDestroy },
    { "cuGetProcAddress", 11030, 0, (void *)cuGetProcAddress },
    { "cuGetProcAddress", 12000, 0, (void *)cuGetProcAddress_v2 },
};

/* FAKECUDA_PRIVATE_PROCS=1: each entry point handed out by cuGetProcAddress is a
 * private stub that jumps to the exported function, so its address equals no exported
 * symbol - a driver is free to hand out internal addresses, and a recorder must not
 * depend on them matching dlsym. x86-64 only; elsewhere the exported address is used. */
#define NPROCS (sizeof g_procs / sizeof g_procs[0])
static void *g_stubs[NPROCS];
static pthread_once_t g_stubs_once = PTHREAD_ONCE_INIT;

static void stubs_make(void)
{
#if defined(__x86_64__)
    uint8_t *page = mmap(NULL, NPROCS * 16, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (page == MAP_FAILED) return;
    for (size_t i = 0; i < NPROCS; i++) {
        uint8_t *st = page + 16 * i;
        uint64_t target = (uint64_t)(uintptr_t)g_procs[i].fn;
        st[0] = 0x48; st[1] = 0xb8;            /* movabs rax, target */
        memcpy(st + 2, &target, 8);
        st[10] = 0xff; st[11] = 0xe0;          /* jmp rax */
        g_stubs[i] = st;
    }
    if (mprotect(page, NPROCS * 16, PROT_READ | PROT_EXEC)) memset(g_stubs, 0, sizeof g_stubs);
#endif
}

static void *proc_addr(const proc_ent *e)
{
    if (!g_cfg.private_procs) return e->fn;
    pthread_once(&g_stubs_once, stubs_make);
    void *st = g_stubs[e - g_procs];
    return st ? st : e->fn;
}

/* What the real driver does (580.159.04, measured): a name it does not know, or knows
 * only from a later version, makes cuGetProcAddress_v2 return CUDA_SUCCESS with *pfn =
 * NULL and the reason in *symbolStatus, while cuGetProcAddress (v1) returns
 * CUDA_ERROR_NOT_FOUND and leaves *pfn alone; bad flags give CUDA_ERROR_INVALID_VALUE
 * and touch nothing. Versioned names ("cuMemAlloc_v2") are not known. */
static CUresult get_proc(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
                         CUdriverProcAddressQueryResult *status, int v2)
{
    if (!symbol || !pfn ||
        (flags & ~(cuuint64_t)(CU_GET_PROC_ADDRESS_LEGACY_STREAM | CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM)))
        return fail(CUDA_ERROR_INVALID_VALUE);
    int want_ptsz = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0;
    const proc_ent *best = NULL;
    int known = 0;
    for (size_t i = 0; i < sizeof g_procs / sizeof g_procs[0]; i++) {
        const proc_ent *e = &g_procs[i];
        if (strcmp(e->name, symbol)) continue;
        known = 1;
        if (e->version > cudaVersion) continue;
        /* A _ptsz variant serves only per-thread lookups; a plain one serves both when
         * no _ptsz variant of the same version exists. */
        if (e->ptsz && !want_ptsz) continue;
        if (!best || e->version > best->version || (e->version == best->version && e->ptsz)) best = e;
    }
    cfg();
    if (g_cfg.debug)
        fprintf(stderr, "fakecuda: cuGetProcAddress%s(%s, %d, %llu) -> %s\n", v2 ? "_v2" : "", symbol, cudaVersion,
                (unsigned long long)flags, best ? "found" : known ? "version not sufficient" : "not found");
    if (best) {
        *pfn = proc_addr(best);
        if (status) *status = CU_GET_PROC_ADDRESS_SUCCESS;
        return CUDA_SUCCESS;
    }
    if (!v2) return fail(CUDA_ERROR_NOT_FOUND);
    *pfn = NULL;
    if (status) *status = known ? CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
                                    CUdriverProcAddressQueryResult *symbolStatus)
{
    CALLED(cuGetProcAddress_v2);
    return get_proc(symbol, pfn, cudaVersion, flags, symbolStatus, 1);
}

EXPORT CUresult cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags)
{
    CALLED(cuGetProcAddress);
    return get_proc(symbol, pfn, cudaVersion, flags, NULL, 0);
}

/* ------------------------------------------------------------------------ *
 *  Test interface
 * ------------------------------------------------------------------------ */
EXPORT fakecuda_stats_t fakecuda_stats(void)
{
    cfg();
    fakecuda_stats_t s;
    memset(&s, 0, sizeof s);
    for (int i = 0; i < FAKECUDA_FN_MAX; i++) s.calls[i] = atomic_load(&g_st.calls[i]);
    for (int k = 0; k < FAKECUDA_KIND_MAX; k++) {
        s.allocs[k] = atomic_load(&g_st.allocs[k]);
        s.alloc_bytes[k] = atomic_load(&g_st.alloc_bytes[k]);
        s.frees[k] = atomic_load(&g_st.frees[k]);
        s.free_bytes[k] = atomic_load(&g_st.free_bytes[k]);
    }
    s.free_calls = atomic_load(&g_st.free_calls);
    s.ooms = atomic_load(&g_st.ooms);
    s.releases = atomic_load(&g_st.releases);
    s.maps = atomic_load(&g_st.maps);
    s.unmaps = atomic_load(&g_st.unmaps);
    s.retains = atomic_load(&g_st.retains);
    s.reserves = atomic_load(&g_st.reserves);
    s.address_frees = atomic_load(&g_st.address_frees);
    s.pool_trims = atomic_load(&g_st.pool_trims);
    s.errors = atomic_load(&g_st.errors);
    for (int d = 0; d < g_cfg.ndev; d++) s.live_bytes += atomic_load(&g_st.live[d]);
    s.peak_bytes = atomic_load(&g_st.peak);
    s.total_bytes = g_cfg.total;
    s.devices = g_cfg.ndev;
    return s;
}

EXPORT const char *fakecuda_fn_name(int fn)
{
    return fn >= 0 && fn < FAKECUDA_FN_MAX ? g_fn_names[fn] : NULL;
}
