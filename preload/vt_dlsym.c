// SPDX-License-Identifier: MIT
/* vt_dlsym.c - glibc's own dlsym, for the recorder's lookups: our dlsym export
 * (vt_hook_dl.c) stands in front of it, so it is found by version with dlvsym. */
#include "vt_dlsym.h"
#include "vt_global.h"


#include <dlfcn.h>
#include <stdatomic.h>

/* glibc's dlsym. Found with dlvsym so that our own export is never returned; not
 * exported ourselves (a dlvsym of ours would be found instead of glibc's). */
static _Atomic(vt_dlsym_fn) vt_dlsym_real;

vt_dlsym_fn vt_real_dlsym_get(void)
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
    vt_dlsym_fn f = vt_real_dlsym_get();
    return f ? f(handle, name) : NULL;
}
