// SPDX-License-Identifier: MIT
/* vt_wrap.h - the table of driver entry points the recorder wraps, each wrapper's
 * "real" slot, and the identification of pointers handed out by lookups.
 *
 * A variant is one exported driver symbol (cuMemAlloc_v2, cuMemAllocAsync_ptsz...); its
 * family is the base name cuGetProcAddress is asked for (cuMemAlloc, cuMemAllocAsync).
 * Each variant has one wrapper with the same name and ABI, and one slot holding the
 * driver's function that wrapper calls. */
#ifndef VT_WRAP_H
#define VT_WRAP_H

#include "vt_cuda.h"
#include "vt_global.h"
#include "vt_record.h"

#define VT_VARIANTS(X) \
    X(cuInit,                       "cuInit") \
    X(cuGetProcAddress,             "cuGetProcAddress") \
    X(cuGetProcAddress_v2,          "cuGetProcAddress") \
    X(cuMemAlloc,                   "cuMemAlloc") \
    X(cuMemAlloc_v2,                "cuMemAlloc") \
    X(cuMemFree,                    "cuMemFree") \
    X(cuMemFree_v2,                 "cuMemFree") \
    X(cuMemAllocPitch,              "cuMemAllocPitch") \
    X(cuMemAllocPitch_v2,           "cuMemAllocPitch") \
    X(cuMemAllocManaged,            "cuMemAllocManaged") \
    X(cuMemAllocAsync,              "cuMemAllocAsync") \
    X(cuMemAllocAsync_ptsz,         "cuMemAllocAsync") \
    X(cuMemAllocFromPoolAsync,      "cuMemAllocFromPoolAsync") \
    X(cuMemAllocFromPoolAsync_ptsz, "cuMemAllocFromPoolAsync") \
    X(cuMemFreeAsync,               "cuMemFreeAsync") \
    X(cuMemFreeAsync_ptsz,          "cuMemFreeAsync") \
    X(cuMemPoolTrimTo,              "cuMemPoolTrimTo") \
    X(cuMemCreate,                  "cuMemCreate") \
    X(cuMemRelease,                 "cuMemRelease") \
    X(cuMemMap,                     "cuMemMap") \
    X(cuMemUnmap,                   "cuMemUnmap") \
    X(cuMemAddressReserve,          "cuMemAddressReserve") \
    X(cuMemAddressFree,             "cuMemAddressFree") \
    X(cuMemRetainAllocationHandle,  "cuMemRetainAllocationHandle") \
    X(cuMemHostAlloc,               "cuMemHostAlloc") \
    X(cuMemAllocHost,               "cuMemAllocHost") \
    X(cuMemAllocHost_v2,            "cuMemAllocHost") \
    X(cuMemFreeHost,                "cuMemFreeHost") \
    X(cuArrayCreate,                "cuArrayCreate") \
    X(cuArrayCreate_v2,             "cuArrayCreate") \
    X(cuArray3DCreate,              "cuArray3DCreate") \
    X(cuArray3DCreate_v2,           "cuArray3DCreate") \
    X(cuArrayDestroy,               "cuArrayDestroy") \
    X(cuMipmappedArrayCreate,       "cuMipmappedArrayCreate") \
    X(cuMipmappedArrayDestroy,      "cuMipmappedArrayDestroy")

#define VT_V_ENUM_(n, fam) VT_V_##n,
enum { VT_VARIANTS(VT_V_ENUM_) VT_NVARIANTS };
#undef VT_V_ENUM_

typedef struct {
    const char *name;    /* exported driver name */
    const char *family;  /* base name for cuGetProcAddress */
    void       *wrapper; /* our function of the same name */
} vt_variant;

extern const vt_variant vt_variants[VT_NVARIANTS];
/* The driver function each wrapper calls; NULL until resolved or identified. Set once
 * (compare-and-swap), never changed: a second, different pointer is passed through. */
extern _Atomic(void *) vt_slots[VT_NVARIANTS];

/* Finds the driver's function for a wrapper reached by direct linking. ra: the
 * wrapper's return address (the caller), for the caller-relative fallback. */
void *vt_wrap_resolve(int id, void *ra);

static inline void *vt_wrap_real(int id, void *ra)
{
    void *p = atomic_load_explicit(&vt_slots[id], memory_order_acquire);
    if (VT_UNLIKELY(!p)) p = vt_wrap_resolve(id, ra);
    return p;
}

/* In a wrapper named like the driver function n: the driver function, typed. */
#define VT_REAL(n) ((__typeof__(&n))vt_wrap_real(VT_V_##n, __builtin_return_address(0)))

/* What a wrapper returns when no driver function can be found: the value the CUDA
 * stub library returns, "this is not a real driver". */
#define VT_NO_DRIVER CUDA_ERROR_STUB_LIBRARY

/* Every wrapper has this shape: find the driver function, pass straight through (a
 * tail call, so the driver sees no extra frame) when not recording, else call it with
 * in_hook set (so driver-internal calls to other exports are not counted twice) and
 * record only what succeeded, or the out-of-memory failure. */
#define VT_WRAP_BEGIN(n, ...)                              \
    __typeof__(&n) real = VT_REAL(n);                      \
    if (VT_UNLIKELY(!real)) return VT_NO_DRIVER;           \
    if (VT_LIKELY(!vt_enter())) return real(__VA_ARGS__);  \
    CUresult r = real(__VA_ARGS__)
#define VT_WRAP_END() vt_leave(); return r

/* Device argument of the record functions: the current context's device. */
#define VT_DEV_CTX vt_rec_device()

/* ------------------------------------------------------------------------ *
 *  Identification
 * ------------------------------------------------------------------------ */
/* A looked-up pointer p for name: returns what the caller gets (our wrapper when p is
 * exactly a known variant of that name's family, else p). how: vt_lookup_how; info:
 * for cuGetProcAddress, the version in the low 32 bits and the flags above. */
void *vt_wrap_identify(const char *name, void *p, int how, uint64_t info, void *ra);

/* For dlsym: our own export p (the global scope found us first) of name. Returns what
 * the caller gets: p, the driver's function when tracing is off, or NULL when there
 * is no driver function to forward to (then the lookup should fail as it would have
 * without the recorder). */
void *vt_wrap_own(const char *name, void *p, void *ra);

/* Is name one of the driver names the recorder cares about (a variant or a family)? */
int vt_wrap_known(const char *name);

/* Debug line for a lookup (VRAMTRACE_DEBUG=1). */
void vt_wrap_log_lookup(const char *name, int how, uint64_t info, void *p, void *ra,
                        const char *verdict);

#endif /* VT_WRAP_H */
