// SPDX-License-Identifier: MIT
/* tp.h - shared code of the recorder's test programs (tp_*).
 *
 * A test program drives the (fake) driver through one access path and writes down
 * what it did: every allocation, free, OOM and VMM call with the address, size,
 * stream, thread, device and calling function it saw, into <TP_EXPECT_DIR>/<pid>.expect.
 * vt_tracecheck then demands that the trace holds exactly those events. At exit the
 * program also checks its own log against the fake driver's counters, so an untraced
 * run proves the program does what it claims. */
#ifndef TP_H
#define TP_H

#include <cuda.h>
#include <cudaTypedefs.h>
#include <stdint.h>

#include "fakecuda.h"
#include "vt_format.h"

#define TP_NOINLINE __attribute__((noinline, noclone, used))

/* The v1 (32-bit) entry points: cuda.h declares them only for the driver's own build. */
typedef struct {
    unsigned int Width, Height;
    CUarray_format Format;
    unsigned int NumChannels;
} tp_array_desc_v1;
typedef struct {
    unsigned int Width, Height, Depth;
    CUarray_format Format;
    unsigned int NumChannels, Flags;
} tp_array3d_desc_v1;
typedef CUresult (*tp_cuMemAlloc_v1)(unsigned int *dptr, unsigned int bytesize);
typedef CUresult (*tp_cuMemFree_v1)(unsigned int dptr);
typedef CUresult (*tp_cuMemAllocPitch_v1)(unsigned int *dptr, unsigned int *pitch, unsigned int w,
                                          unsigned int h, unsigned int elem);
typedef CUresult (*tp_cuMemAllocHost_v1)(void **pp, unsigned int bytesize);
typedef CUresult (*tp_cuArrayCreate_v1)(CUarray *arr, const tp_array_desc_v1 *d);
typedef CUresult (*tp_cuArray3DCreate_v1)(CUarray *arr, const tp_array3d_desc_v1 *d);
typedef CUresult (*tp_cuMemGetInfo_v1)(unsigned int *free_b, unsigned int *total);

/* One allocation-API entry point as the program reached it: the pointer, the fake
 * entry point it must land in, and the record flags the call must produce. */
#define TP_SLOT(type) struct { type fn; int id; unsigned flags; }
typedef TP_SLOT(PFN_cuMemAllocAsync_v11020) tp_slot_alloc_async;
typedef TP_SLOT(PFN_cuMemAllocFromPoolAsync_v11020) tp_slot_alloc_pool;
typedef TP_SLOT(PFN_cuMemFreeAsync_v11020) tp_slot_free_async;

typedef struct {
    const char *mode;
    /* set-up calls (the recorder may make these itself, so they are not counted) */
    PFN_cuInit_v2000 init;
    PFN_cuDriverGetVersion_v2020 driver_version;
    PFN_cuDeviceGetCount_v2000 device_count;
    PFN_cuDeviceGetName_v2000 device_name;
    PFN_cuDeviceTotalMem_v3020 device_total;
    PFN_cuDeviceGetUuid_v11040 device_uuid;
    PFN_cuDeviceGetAttribute_v2000 device_attr;
    PFN_cuMemGetInfo_v3020 mem_info;
    PFN_cuCtxSetCurrent_v4000 ctx_set;
    PFN_cuDevicePrimaryCtxRetain_v7000 ctx_retain;
    PFN_cuDeviceGetDefaultMemPool_v11020 default_pool;
    PFN_cuMemGetAllocationGranularity_v10020 granularity;
    /* functions a recorder does not wrap: they must pass through untouched */
    PFN_cuStreamCreate_v2000 stream_create;
    TP_SLOT(PFN_cuStreamSynchronize_v2000) stream_sync;
    /* the allocation API (a NULL fn: not reachable on this path, skipped) */
    TP_SLOT(PFN_cuMemAlloc_v3020) mem_alloc;
    TP_SLOT(PFN_cuMemFree_v3020) mem_free;
    TP_SLOT(tp_cuMemAlloc_v1) mem_alloc_v1;
    TP_SLOT(tp_cuMemFree_v1) mem_free_v1;
    TP_SLOT(PFN_cuMemAllocPitch_v3020) mem_alloc_pitch;
    TP_SLOT(tp_cuMemAllocPitch_v1) mem_alloc_pitch_v1;
    TP_SLOT(PFN_cuMemAllocManaged_v6000) mem_alloc_managed;
    tp_slot_alloc_async alloc_async;            /* legacy stream */
    tp_slot_alloc_async alloc_async_ptsz;       /* per-thread stream */
    tp_slot_alloc_pool alloc_pool;
    tp_slot_alloc_pool alloc_pool_ptsz;
    tp_slot_free_async free_async;
    tp_slot_free_async free_async_ptsz;
    TP_SLOT(PFN_cuMemPoolTrimTo_v11020) pool_trim;
    TP_SLOT(PFN_cuMemCreate_v10020) vmm_create;
    TP_SLOT(PFN_cuMemRelease_v10020) vmm_release;
    TP_SLOT(PFN_cuMemMap_v10020) vmm_map;
    TP_SLOT(PFN_cuMemUnmap_v10020) vmm_unmap;
    TP_SLOT(PFN_cuMemAddressReserve_v10020) vmm_reserve;
    TP_SLOT(PFN_cuMemAddressFree_v10020) vmm_address_free;
    TP_SLOT(PFN_cuMemRetainAllocationHandle_v11000) vmm_retain;
    TP_SLOT(PFN_cuMemHostAlloc_v2020) host_alloc;
    TP_SLOT(PFN_cuMemAllocHost_v3020) alloc_host;
    TP_SLOT(tp_cuMemAllocHost_v1) alloc_host_v1;
    TP_SLOT(PFN_cuMemFreeHost_v2000) free_host;
    TP_SLOT(PFN_cuArrayCreate_v3020) array_create;
    TP_SLOT(tp_cuArrayCreate_v1) array_create_v1;
    TP_SLOT(PFN_cuArray3DCreate_v3020) array3d_create;
    TP_SLOT(tp_cuArray3DCreate_v1) array3d_create_v1;
    TP_SLOT(PFN_cuArrayDestroy_v2000) array_destroy;
    TP_SLOT(PFN_cuMipmappedArrayCreate_v5000) mipmap_create;
    TP_SLOT(PFN_cuMipmappedArrayDestroy_v5000) mipmap_destroy;
} tp_api;

/* Filling a tp_api: from a handle with dlsym (exported names), or through a
 * cuGetProcAddress function (v1 or v2) with a CUDA version and stream flag. */
int tp_api_from_dlsym(tp_api *a, void *handle);
int tp_api_from_getproc(tp_api *a, void *getproc, int getproc_is_v2, cuuint64_t flags);

/* ------------------------------------------------------------------------ *
 *  Expectation log
 * ------------------------------------------------------------------------ */
/* Opens the log (TP_EXPECT_DIR unset: no log, only the self-check). exec_child: this
 * process was exec'ed by a traced process, so an output pattern without %p gains .pid. */
void tp_init(int argc, char **argv, int exec_child);
/* The log's descriptor (-1: none): a program that closes every descriptor spares it. */
int tp_log_fd(void);
/* The thread's current device, as the program set it (records must carry it). */
void tp_set_device(int dev);
/* A call of the allocation API that is about to be made through slot id (checked
 * against the fake's per-entry-point counters at the end). */
void tp_calling(int fake_fn_id);
void tp_alloc(int kind, uint64_t addr, uint64_t size, uint64_t stream, unsigned flags, void *fn);
void tp_free(int kind, uint64_t addr, uint64_t stream, unsigned flags, void *fn);
void tp_oom(int kind, uint64_t size, uint64_t stream, unsigned flags, uint64_t free_b, uint64_t total, void *fn);
void tp_vmm(int op, uint64_t addr, uint64_t size, uint64_t aux0, uint64_t aux1, void *fn);
void tp_trim(uint64_t pool, uint64_t size, void *fn);
/* A call expected to fail with something other than OOM (never recorded). */
void tp_failed_call(void);
/* DEVICE and DRIVER records the trace must hold (queried through a). */
void tp_devices(const tp_api *a);
void tp_flush(void);
/* In a fork child: forget the parent's log without writing to it. */
void tp_detach(void);
/* The fake driver's counters (looked up at run time). */
fakecuda_stats_t tp_fake_stats(void);
/* Writes the fake driver's counters, compares them with the log; returns the exit
 * status (0 when they agree). */
int tp_finish(void);

/* Aborts the program (exit 2) when a call does not return what the test expects. */
#define TP_CK(call, want) tp_ck((call), (want), #call, __FILE__, __LINE__)
void tp_ck(CUresult got, CUresult want, const char *what, const char *file, int line);
void tp_die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

/* ------------------------------------------------------------------------ *
 *  Workloads (tp_exercise.c): each section is one function, the "calling function"
 *  whose address must show up in the recorded stacks.
 * ------------------------------------------------------------------------ */
void ex_basic(const tp_api *a);      /* cuMemAlloc_v2, pitch, managed, failing calls */
void ex_v1(const tp_api *a);         /* cuMemAlloc / cuMemFree (32-bit) */
void ex_async(const tp_api *a);      /* cuMemAllocAsync, FromPool, FreeAsync (+ _ptsz) */
void ex_trim(const tp_api *a);       /* cuMemPoolTrimTo */
void ex_vmm(const tp_api *a);        /* reserve, create, map, retain, release, unmap, free */
void ex_host(const tp_api *a);       /* cuMemHostAlloc, cuMemAllocHost_v2, cuMemFreeHost */
void ex_arrays(const tp_api *a);     /* cuArrayCreate_v2, cuArray3DCreate_v2, mipmapped */
void ex_legacy(const tp_api *a);     /* v1 pitch, host, arrays */
void ex_oom(const tp_api *a);        /* needs FAKECUDA_TOTAL_BYTES = 1 GiB */
void ex_passthrough(const tp_api *a); /* unwrapped functions reach the right driver variant */
void ex_all(const tp_api *a);        /* basic v1 async trim vmm host arrays */
/* Runs a section by name; returns -1 for an unknown name. */
int ex_run(const char *name, const tp_api *a);
/* Common start: cuInit, device records; the section list then runs. */
void ex_start(const tp_api *a);

#endif /* TP_H */
