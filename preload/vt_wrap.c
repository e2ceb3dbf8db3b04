// SPDX-License-Identifier: MIT
/* vt_wrap.c - the variant table, each wrapper's real slot, and identification: which
 * exact driver function a looked-up pointer is.
 *
 * Why identify by address and never by (name, version): the driver decides which
 * variant a lookup returns (cuMemAlloc at version 2000 is the 32-bit v1 function, at
 * 3020 the _v2 one; cuMemAllocAsync with the per-thread flag is the _ptsz one), and a
 * wrapper with the wrong ABI would corrupt the caller's arguments. The driver's own
 * exports are the ground truth: a pointer equal to variant V's exported address gets
 * V's wrapper, anything else is passed through untouched and reported. */
#include "vt_wrap.h"
#include "vt_dlsym.h"
#include "vt_elf.h"
#include "vt_format.h"
#include "vt_global.h"
#include "vt_helpers.h"
#include "vt_record.h"

#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------------ *
 *  The table
 * ------------------------------------------------------------------------ */
#define VT_V_ROW_(n, fam) { #n, fam, (void *)n },
const vt_variant vt_variants[VT_NVARIANTS] = { VT_VARIANTS(VT_V_ROW_) };
#undef VT_V_ROW_

/* One slot per wrapper: written once by whoever finds the driver function first. */
_Atomic(void *) vt_slots[VT_NVARIANTS];

int vt_wrap_known(const char *name)
{
    for (int i = 0; i < VT_NVARIANTS; i++)
        if (!strcmp(name, vt_variants[i].name) || !strcmp(name, vt_variants[i].family)) return 1;
    return 0;
}

/* ------------------------------------------------------------------------ *
 *  Driver objects: the exported address of every variant, per loaded object
 * ------------------------------------------------------------------------ */
#define VT_NDRV 4

typedef struct {
    _Atomic int state;        /* 0 free, 1 being filled, 2 ready */
    uintptr_t   base;         /* dli_fbase of the object */
    void       *addr[VT_NVARIANTS];
    vt_helpers  h;
    int         helpers_ok;
} vt_drvobj;

/* Lock-free registry: filling one needs loader calls, and no lock of ours may be held
 * across those. Two threads may fill duplicates of one object; both are correct. */
static vt_drvobj vt_drv[VT_NDRV];
/* name in this object's own symbol table (the object is pinned by drv_of). */
static void *sym_in(struct link_map *lm, const char *name)
{
    vt_elf_sym s;
    if (vt_elf_lookup(lm->l_addr, lm->l_ld, name, &s) || s.needs_glibc) return NULL;
    return (void *)s.addr;
}

static void fill_helpers(vt_helpers *h, struct link_map *lm)
{
    h->ctx_get_device = (__typeof__(h->ctx_get_device))sym_in(lm, "cuCtxGetDevice");
    h->mem_get_info = (__typeof__(h->mem_get_info))sym_in(lm, "cuMemGetInfo_v2");
    h->driver_get_version = (__typeof__(h->driver_get_version))sym_in(lm, "cuDriverGetVersion");
    h->device_get_count = (__typeof__(h->device_get_count))sym_in(lm, "cuDeviceGetCount");
    h->device_get = (__typeof__(h->device_get))sym_in(lm, "cuDeviceGet");
    h->device_get_name = (__typeof__(h->device_get_name))sym_in(lm, "cuDeviceGetName");
    h->device_total_mem = (__typeof__(h->device_total_mem))sym_in(lm, "cuDeviceTotalMem_v2");
    h->device_get_uuid = (__typeof__(h->device_get_uuid))sym_in(lm, "cuDeviceGetUuid_v2");
    if (!h->device_get_uuid)  /* same ABI: (CUuuid *, CUdevice) */
        h->device_get_uuid = (__typeof__(h->device_get_uuid))sym_in(lm, "cuDeviceGetUuid");
    h->device_get_attribute = (__typeof__(h->device_get_attribute))sym_in(lm, "cuDeviceGetAttribute");
    h->device_get_mem_pool = (__typeof__(h->device_get_mem_pool))sym_in(lm, "cuDeviceGetMemPool");
    h->pool_get_attribute = (__typeof__(h->pool_get_attribute))sym_in(lm, "cuMemPoolGetAttribute");
}

/* The driver object holding p, described once. NULL when p is in no object. */
static vt_drvobj *drv_of(void *p)
{
    Dl_info di;
    struct link_map *lm = NULL;
    if (!dladdr1(p, &di, (void **)&lm, RTLD_DL_LINKMAP) || !lm) return NULL;
    uintptr_t base = (uintptr_t)di.dli_fbase;
    for (int i = 0; i < VT_NDRV; i++)
        if (atomic_load_explicit(&vt_drv[i].state, memory_order_acquire) == 2 && vt_drv[i].base == base)
            return &vt_drv[i];
    for (int i = 0; i < VT_NDRV; i++) {
        int expect = 0;
        if (!atomic_compare_exchange_strong(&vt_drv[i].state, &expect, 1)) continue;
        vt_drvobj *d = &vt_drv[i];
        d->base = base;
        /* Keep the object loaded: our slots will point into it. RTLD_NOLOAD only takes a
         * reference to what is already there. */
        if (lm->l_prev && lm->l_name && lm->l_name[0]) (void)dlopen(lm->l_name, RTLD_NOLOAD | RTLD_LAZY);
        for (int v = 0; v < VT_NVARIANTS; v++) d->addr[v] = sym_in(lm, vt_variants[v].name);
        fill_helpers(&d->h, lm);
        d->helpers_ok = d->h.ctx_get_device && d->h.device_get_count && d->h.device_get;
        dlerror(); /* our failed probes must not leave an error for the caller to find */
        atomic_store_explicit(&d->state, 2, memory_order_release);
        if (d->helpers_ok) vt_helpers_offer(&d->h);
        return d;
    }
    return NULL;
}

/* When the object the wrappers forward to has no helpers (another interposer, say),
 * take them from libcuda.so.1 itself if it is loaded. */
static void helpers_from_libcuda(void)
{
    if (vt_wrap_helpers()) return;
    void *h = dlopen("libcuda.so.1", RTLD_NOLOAD | RTLD_LAZY);
    if (!h) { dlerror(); return; }
    void *p = vt_real_dlsym(h, "cuCtxGetDevice");
    dlerror();
    if (p) (void)drv_of(p);
}

/* ------------------------------------------------------------------------ *
 *  Direct-link resolution
 * ------------------------------------------------------------------------ */
void *vt_wrap_resolve(int id, void *ra)
{
    const char *name = vt_variants[id].name;
    /* 1. The next definition after us in the global scope: libcuda linked or dlopen'ed
     *    RTLD_GLOBAL, or another interposer loaded after us (chaining to it is right). */
    void *p = vt_real_dlsym(RTLD_NEXT, name);
    /* 2. libcuda.so.1 loaded RTLD_LOCAL (a Python extension's dependency): our global
     *    export won the binding, but RTLD_NEXT cannot see the driver. */
    if (!p) {
        void *h = dlopen("libcuda.so.1", RTLD_NOLOAD | RTLD_LAZY);
        if (h) p = vt_real_dlsym(h, name);
    }
    /* 3. Whatever the caller itself would find among its own dependencies. */
    if (!p) p = vt_dl_scope_lookup(ra, name);
    dlerror();
    if (!p || vt_is_self((uintptr_t)p)) return NULL;
    void *expect = NULL;
    if (!atomic_compare_exchange_strong(&vt_slots[id], &expect, p)) p = expect;
    (void)drv_of(p);
    helpers_from_libcuda();
    return p;
}

/* ------------------------------------------------------------------------ *
 *  Lookups
 * ------------------------------------------------------------------------ */
static const char *how_name(int how)
{
    switch (how) {
    case VT_LOOKUP_DLSYM: return "dlsym";
    case VT_LOOKUP_GETPROC: return "getproc";
    case VT_LOOKUP_GETPROC_V2: return "getproc_v2";
    case VT_LOOKUP_RUNTIME: return "runtime";
    default: return "?";
    }
}

void vt_wrap_log_lookup(const char *name, int how, uint64_t info, void *p, void *ra,
                        const char *verdict)
{
    Dl_info di;
    const char *caller = "?";
    if (ra && dladdr(ra, &di) && di.dli_fname) {
        caller = strrchr(di.dli_fname, '/');
        caller = caller ? caller + 1 : di.dli_fname;
        if (!caller[0]) caller = "main";
    }
    if (how == VT_LOOKUP_DLSYM)
        vt_warn("lookup how=%s name=%s ptr=%p caller=%s -> %s", how_name(how), name, p, caller, verdict);
    else
        vt_warn("lookup how=%s name=%s ver=%u flags=0x%x ptr=%p caller=%s -> %s", how_name(how), name,
                (unsigned)(info & 0xffffffffu), (unsigned)(info >> 32), p, caller, verdict);
}

/* One warning per process when a tracked function cannot be wrapped: the trace will
 * miss what goes through it, and the user should not have to guess why. */
static _Atomic int vt_warned_unwrapped;

static void report(const char *name, int how, uint64_t info, void *p, void *ra,
                   int unwrapped, const char *verdict)
{
    if (vt_g.cfg.debug) vt_wrap_log_lookup(name, how, info, p, ra, verdict);
    else if (unwrapped && !atomic_exchange(&vt_warned_unwrapped, 1))
        vt_warn("cannot wrap %s (looked up by %s: %s); calls through it are not traced "
                "(VRAMTRACE_DEBUG=1 lists every lookup)", name, how_name(how), verdict);
    if (unwrapped || vt_g.cfg.debug) vt_rec_lookup(name, how, (uint64_t)(uintptr_t)p, info, unwrapped);
}

static int is_ptsz(int v)
{
    const char *n = vt_variants[v].name;
    size_t l = strlen(n);
    return l > 5 && !strcmp(n + l - 5, "_ptsz");
}

void *vt_wrap_identify(const char *name, void *p, int how, uint64_t info, void *ra)
{
    if (!p || !vt_g.lookups_on) return p;
    int tls_was = vt_tls.in_hook;
    vt_tls.in_hook = 1;  /* nothing below may record */

    /* The family asked for: an exact export name for dlsym, a base name otherwise. */
    const char *family = NULL;
    int exact = -1;
    for (int v = 0; v < VT_NVARIANTS; v++) {
        if (!strcmp(name, vt_variants[v].name)) { exact = v; family = vt_variants[v].family; break; }
    }
    if (how != VT_LOOKUP_DLSYM || !family) {
        for (int v = 0; v < VT_NVARIANTS && !family; v++)
            if (!strcmp(name, vt_variants[v].family)) family = vt_variants[v].family;
        if (how != VT_LOOKUP_DLSYM) exact = -1;
    }
    if (!family) {
        if (vt_g.cfg.debug) report(name, how, info, p, ra, 0, "passed (not tracked)");
        vt_tls.in_hook = tls_was;
        return p;
    }
    if (vt_is_self((uintptr_t)p)) {  /* already one of ours (an interposer before us chained) */
        if (vt_g.cfg.debug) report(name, how, info, p, ra, 0, "wrapped (already ours)");
        vt_tls.in_hook = tls_was;
        return p;
    }

    vt_drvobj *d = drv_of(p);
    int match = -1;
    if (d) {
        for (int v = 0; v < VT_NVARIANTS; v++) {
            if (strcmp(vt_variants[v].family, family) || d->addr[v] != p) continue;
            /* Several variants at one address (an aliasing driver): prefer the exact name,
             * then the stream flavour the caller asked for. */
            int better = match < 0 || v == exact
                      || (match != exact && (is_ptsz(v) == !!((info >> 32) & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM)));
            if (better) match = v;
        }
    }
    void *out = p;
    if (match < 0) {
        report(name, how, info, p, ra, 1, "passed (matches no known variant)");
    } else {
        void *expect = NULL;
        if (atomic_compare_exchange_strong(&vt_slots[match], &expect, p) || expect == p) {
            out = vt_variants[match].wrapper;
            if (vt_g.cfg.debug) {
                char v[96];
                snprintf(v, sizeof v, "wrapped %s", vt_variants[match].name);
                report(name, how, info, p, ra, 0, v);
            }
        } else {
            report(name, how, info, p, ra, 1, "passed (a different driver object is already wrapped)");
        }
    }
    vt_tls.in_hook = tls_was;
    return out;
}

void *vt_wrap_own(const char *name, void *p, void *ra)
{
    for (int v = 0; v < VT_NVARIANTS; v++) {
        if (vt_variants[v].wrapper != p) continue;
        int tls_was = vt_tls.in_hook;
        vt_tls.in_hook = 1;
        void *real = vt_wrap_real(v, ra);
        vt_tls.in_hook = tls_was;
        if (!real) return NULL;             /* no driver: fail as the lookup would have */
        if (!vt_g.lookups_on) return real;  /* tracing off: stay out of the way */
        if (vt_g.cfg.debug) report(name, VT_LOOKUP_DLSYM, 0, p, ra, 0, "wrapped (our export)");
        return p;
    }
    return p;
}
