/* vt_hook_dl.c - dlsym interposition.
 *
 * Frameworks rarely link -lcuda: they dlopen libcuda.so.1 and dlsym what they need
 * (FACTS.md: libcudart asks dlsym for cuGetProcAddress_v2, other libraries for
 * cuMemAlloc_v2, cuMemCreate...). So dlsym is exported here, and a driver name we
 * wrap comes back as our wrapper.
 *
 * Exporting dlsym has two traps, both because glibc's dlsym looks at its caller's
 * return address, and calling it from here makes libvramtrace the caller:
 *   RTLD_NEXT    must mean "after the CALLER", or an interposer doing
 *                dlsym(RTLD_NEXT, "malloc") gets its own malloc back and recurses;
 *   RTLD_DEFAULT from an object loaded RTLD_LOCAL also searches that object's own
 *                dependencies, which the global scope does not hold.
 * Both are emulated from the caller's link map (dladdr1 of the return address). */
#include "vt_wrap.h"

#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

typedef void *(*vt_dlsym_fn)(void *, const char *);

/* glibc's dlsym. Found with dlvsym so that our own export is never returned; not
 * exported ourselves (a dlvsym of ours would be found instead of glibc's). */
static _Atomic(vt_dlsym_fn) vt_dlsym_real;

static vt_dlsym_fn real_dlsym_get(void)
{
    vt_dlsym_fn f = atomic_load_explicit(&vt_dlsym_real, memory_order_acquire);
    if (VT_LIKELY(f)) return f;
    f = (vt_dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
    if (!f) f = (vt_dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
    if (f) atomic_store_explicit(&vt_dlsym_real, f, memory_order_release);
    return f;
}

void *vt_real_dlsym(void *handle, const char *name)
{
    vt_dlsym_fn f = real_dlsym_get();
    return f ? f(handle, name) : NULL;
}

/* The caller's link map, or NULL (code in no object: a JIT, say). */
static struct link_map *caller_map(void *ra)
{
    Dl_info di;
    struct link_map *lm = NULL;
    if (!ra || !dladdr1(ra, &di, (void **)&lm, RTLD_DL_LINKMAP)) return NULL;
    return lm;
}

/* RTLD_NEXT relative to the caller: the first object after the caller's in the link-map
 * chain that itself defines name. This is the chain order glibc's own RTLD_NEXT walks
 * for objects of the initial load; for an object dlopen'ed RTLD_LOCAL glibc walks only
 * its load group (a sub-sequence of the chain), so in that case objects of other groups
 * could be found too (documented in docs/design-recorder.md). */
static void *next_after(vt_dlsym_fn f, const char *name, void *ra)
{
    struct link_map *lm = caller_map(ra);
    if (!lm) return f(RTLD_NEXT, name);
    for (struct link_map *m = lm->l_next; m; m = m->l_next) {
        void *p = f(m, name);
        if (!p) continue;
        Dl_info di;
        struct link_map *pm = NULL;
        if (dladdr1(p, &di, (void **)&pm, RTLD_DL_LINKMAP) && pm == m) {
            dlerror(); /* the misses before this hit must not be reported */
            return p;
        }
    }
    return NULL;
}

static void *lookup(vt_dlsym_fn f, void *handle, const char *name, void *ra)
{
    if (handle == RTLD_NEXT) return next_after(f, name, ra);
    void *p = f(handle, name);
    if (!p && handle == RTLD_DEFAULT) {
        struct link_map *lm = caller_map(ra);
        if (lm) {
            p = f(lm, name);
            if (p) dlerror();
        }
    }
    return p;
}

VT_EXPORT void *dlsym(void *handle, const char *name)
{
    void *ra = __builtin_return_address(0);
    vt_dlsym_fn f = real_dlsym_get();
    if (VT_UNLIKELY(!f)) return NULL;
    /* The common path: not a driver name. Only RTLD_NEXT/RTLD_DEFAULT need emulation. */
    if (name[0] != 'c' || name[1] != 'u') {  /* glibc declares name nonnull */
        if (handle != RTLD_NEXT && handle != RTLD_DEFAULT) return f(handle, name);
        return lookup(f, handle, name, ra);
    }
    void *p = lookup(f, handle, name, ra);
    if (!p) {
        if (vt_g.lookups_on && vt_g.cfg.debug && vt_wrap_known(name))
            vt_wrap_log_lookup(name, VT_LOOKUP_DLSYM, 0, NULL, ra, "not found");
        return NULL;
    }
    if (vt_is_self((uintptr_t)p)) {
        /* The global scope found our own export (we are preloaded, so first). */
        if (!strncmp(name, "cuda", 4)) {  /* cudaGetDriverEntryPoint*: only if a runtime is there */
            void *next = vt_runtime_next(name, ra);
            if (!next) (void)f(RTLD_NEXT, name);
            return !next ? NULL : vt_g.lookups_on ? p : next;
        }
        void *q = vt_wrap_own(name, p, ra);
        if (!q) {
            /* No driver behind our export: fail like the lookup would have without us.
             * The failing lookup sets dlerror's message. */
            (void)f(RTLD_NEXT, name);
        }
        return q;
    }
    return vt_wrap_identify(name, p, VT_LOOKUP_DLSYM, 0, ra);
}
