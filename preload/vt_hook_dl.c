// SPDX-License-Identifier: MIT
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
#include "vt_dlsym.h"
#include "vt_elf.h"
#include "vt_format.h"
#include "vt_global.h"
#include "vt_wrap.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

/* Leaves a "not found" error for dlerror() after a lookup emulated without glibc:
 * a lookup in the vDSO, which exports only __vdso_* names, fails with name in it. */
static void set_not_found(vt_dlsym_fn f, const char *name)
{
    static void *vdso;  /* the vDSO's handle, looked up once; never closed */
    if (!vdso) vdso = dlopen("linux-vdso.so.1", RTLD_NOLOAD | RTLD_LAZY);
    if (vdso && strncmp(name, "__vdso", 6) != 0) (void)f(vdso, name);
}

/* RTLD_NEXT relative to the caller: the first object after the caller's (in
 * dl_iterate_phdr's order, the link-map chain) whose own dynamic symbol table defines
 * name. This is glibc's search order for objects of the initial load; for an object
 * dlopen'ed RTLD_LOCAL glibc walks only its load group (a sub-sequence of the chain), so
 * a definition in an object of another group may be found where glibc would fail
 * (docs/design-recorder.md). */
static void *next_after(vt_dlsym_fn f, const char *name, void *ra)
{
    void *p = NULL;
    int rc = vt_elf_next(ra, name, &p);
    if (rc == -2) return f(RTLD_NEXT, name);  /* caller in no object (JIT): after us */
    if (rc == 0 && p) {
        dlerror();  /* like glibc's dlsym: a success clears older errors */
        return p;
    }
    set_not_found(f, name);
    return NULL;
}

static void *lookup(vt_dlsym_fn f, void *handle, const char *name, void *ra)
{
    if (handle == RTLD_NEXT) return next_after(f, name, ra);
    void *p = f(handle, name);
    if (!p && handle == RTLD_DEFAULT) {
        /* glibc would also search the caller's own load group (RTLD_LOCAL objects) */
        void *q = vt_dl_scope_lookup(ra, name);
        if (q) { dlerror(); return q; }
        (void)f(handle, name);  /* restore the original error */
    }
    return p;
}

VT_EXPORT void *dlsym(void *handle, const char *name)
{
    void *ra = __builtin_return_address(0);
    vt_dlsym_fn f = vt_real_dlsym_get();
    if (VT_UNLIKELY(!f)) return NULL;
    /* The common path: not a driver name ("cu" + capital: cuMemAlloc, not cudnnCreate)
     * and not the runtime's entry-point lookup. Only RTLD_NEXT/RTLD_DEFAULT need
     * emulation. (glibc declares name nonnull.) */
    int driver = name[0] == 'c' && name[1] == 'u' && name[2] >= 'A' && name[2] <= 'Z';
    if (!driver && (name[0] != 'c' || strncmp(name, "cudaGetDriverEntryPoint", 23) != 0)) {
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
        if (!driver) {  /* cudaGetDriverEntryPoint*: only if a runtime is there */
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
    return driver ? vt_wrap_identify(name, p, VT_LOOKUP_DLSYM, 0, ra) : p;
}
