// SPDX-License-Identifier: MIT
/* vt_scope.c - scopes: named ranges a thread is inside of (NVTX ranges, nn.Module
 * names), recorded as VT_FRAME_SCOPE frames of every stack the thread captures.
 *
 * Where scopes go in a stack: outermost, above the native frames, in the order they
 * were entered (a frame of the stack tree has a fixed place, and a range has no place
 * among the native frames: it is not a call). So the stack of an allocation made inside
 * "layer.3" > "attention" reads, from the root: [layer.3] [attention] main ... cuMemAlloc.
 *
 * What a thread's scopes are, outermost first:
 *   1. its backward scope: the module whose gradients the thread is computing (set by
 *      the --torch-modules hook on autograd's threads, ended for all threads at once
 *      when a backward pass ends);
 *   2. start/end ranges it started and that have not ended (an NVTX start/end range is
 *      not bound to a thread; it is counted as a scope of the thread that started it,
 *      until any thread ends it);
 *   3. its push/pop ranges, outermost first (NVTX push/pop of every domain, and the
 *      module names pushed through vramtrace_scope_push).
 * A thread keeps at most VT_SCOPE_MAX push/pop ranges: deeper ones are counted, not
 * kept, and the pops that match them are taken from the count.
 *
 * Cost: a push interns its text (a hash and a lock-free probe) and writes one entry of
 * thread-local memory; a pop shifts at most the entries above the one it ends. The
 * allocation path reads vt_scope_live (one thread-local load) and, when it is set,
 * copies the thread's ids. */
#include "vt_scope.h"
#include "vt_global.h"
#include "vt_str.h"

#include <pthread.h>
#include <string.h>
#include <sys/mman.h>

/* ------------------------------------------------------------------------ *
 *  Per thread
 * ------------------------------------------------------------------------ */
#define VT_SE_OWN 16        /* start/end ranges a thread can be inside of */

typedef struct {
    uint32_t    sid;        /* 0: a range without a usable name (kept for the pop) */
    const void *domain;
} vt_scope_ent;

typedef struct {
    uint32_t n;             /* entries in st */
    uint32_t over;          /* pushes past VT_SCOPE_MAX, not kept */
    uint32_t bwd_sid;       /* backward scope, valid while bwd_gen == vt_bwd_gen */
    uint32_t bwd_gen;
    uint32_t nse;
    struct { uint32_t slot; uint64_t id; } se[VT_SE_OWN];
    vt_scope_ent st[VT_SCOPE_MAX];
} vt_scope_t;

/* Thread-local by nature: a range pushed on a thread is popped on it (NVTX's rule).
 * Mapped at the thread's first scope and unmapped when it exits, so that the library's
 * static TLS stays a few bytes (it must still load when NVTX dlopens it without a
 * preload). */
static VT_TLS vt_scope_t *vt_scp;
VT_TLS uint32_t vt_scope_live;
static pthread_key_t vt_scope_key;
static int vt_scope_key_ok;

/* Ends every thread's backward scope at once (a thread cannot clear another's TLS). */
static _Atomic uint32_t vt_bwd_gen = 1;

static void scope_free(void *p)
{
    vt_scp = NULL;
    vt_scope_live = 0;
    if (p) munmap(p, sizeof(vt_scope_t));
}

void vt_scope_init(void)
{
    vt_scope_key_ok = pthread_key_create(&vt_scope_key, scope_free) == 0;
}

/* This thread's scopes, mapped when first needed; NULL when that fails. */
static inline vt_scope_t *sc_get(void)
{
    vt_scope_t *s = vt_scp;
    if (VT_LIKELY(s) || !vt_scope_key_ok) return s;
    void *p = mmap(NULL, sizeof *s, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return NULL;
    if (pthread_setspecific(vt_scope_key, p) != 0) { munmap(p, sizeof *s); return NULL; }
    return vt_scp = p;
}

static inline void refresh(const vt_scope_t *s)
{
    vt_scope_live = s->n | s->over | s->nse | s->bwd_sid;
}

/* ------------------------------------------------------------------------ *
 *  Push/pop
 * ------------------------------------------------------------------------ */
int vt_scope_push(uint32_t sid, const void *domain)
{
    vt_scope_t *s = sc_get();
    if (!s) return -1;
    if (s->n < VT_SCOPE_MAX && !s->over) {
        s->st[s->n].sid = sid;
        s->st[s->n].domain = domain;
        s->n++;
    } else {
        s->over++;
    }
    refresh(s);
    return (int)(s->n + s->over) - 1;
}

int vt_scope_pop(const void *domain)
{
    vt_scope_t *s = vt_scp;
    if (!s) return -1;
    if (s->over) {
        s->over--;
        return (int)(s->n + s->over);
    }
    for (uint32_t i = s->n; i-- > 0;) {
        if (s->st[i].domain != domain) continue;
        memmove(&s->st[i], &s->st[i + 1], (s->n - i - 1) * sizeof s->st[0]);
        s->n--;
        refresh(s);
        return (int)s->n;
    }
    return -1;  /* a pop without its push (NVTX says: negative on error) */
}

/* ------------------------------------------------------------------------ *
 *  Start/end ranges: a process-wide table of the ranges not ended yet
 * ------------------------------------------------------------------------ */
#define VT_SE_CAP 1024
#define VT_SE_BUSY UINT64_MAX   /* a slot being filled */

/* Process-wide: a range started on one thread may be ended on any other. */
static struct {
    _Atomic uint64_t id;        /* 0 = free */
    uint32_t sid;
} vt_se[VT_SE_CAP];
static _Atomic uint64_t vt_se_next = 1;

static inline uint32_t se_home(uint64_t id) { return (uint32_t)((id * 0x9e3779b97f4a7c15ull) >> 54); }

uint64_t vt_scope_start(uint32_t sid)
{
    uint64_t id = atomic_fetch_add_explicit(&vt_se_next, 1, memory_order_relaxed);
    vt_scope_t *s = sc_get();
    if (!s || s->nse >= VT_SE_OWN) return id;  /* not a scope; the id is still unique */
    for (uint32_t k = 0, i = se_home(id); k < VT_SE_CAP; k++, i = (i + 1) & (VT_SE_CAP - 1)) {
        uint64_t zero = 0;
        if (!atomic_compare_exchange_strong_explicit(&vt_se[i].id, &zero, VT_SE_BUSY,
                                                     memory_order_acquire, memory_order_relaxed))
            continue;
        vt_se[i].sid = sid;
        atomic_store_explicit(&vt_se[i].id, id, memory_order_release);
        s->se[s->nse].slot = i;
        s->se[s->nse].id = id;
        s->nse++;
        refresh(s);
        break;
    }
    return id;
}

void vt_scope_end(uint64_t id)
{
    if (!id || id == VT_SE_BUSY) return;
    for (uint32_t k = 0, i = se_home(id); k < VT_SE_CAP; k++, i = (i + 1) & (VT_SE_CAP - 1)) {
        uint64_t cur = id;
        if (atomic_compare_exchange_strong_explicit(&vt_se[i].id, &cur, 0, memory_order_release,
                                                    memory_order_relaxed))
            return;
    }
}

/* ------------------------------------------------------------------------ *
 *  Collecting
 * ------------------------------------------------------------------------ */
int vt_scope_collect(uint32_t *sids, int max)
{
    vt_scope_t *s = vt_scp;
    if (!s) return 0;
    int k = 0;
    if (s->bwd_sid) {
        if (s->bwd_gen == atomic_load_explicit(&vt_bwd_gen, memory_order_relaxed)) {
            if (k < max) sids[k++] = s->bwd_sid;
        } else {
            s->bwd_sid = 0;
        }
    }
    uint32_t keep = 0;
    for (uint32_t i = 0; i < s->nse; i++) {
        uint32_t slot = s->se[i].slot;
        if (atomic_load_explicit(&vt_se[slot].id, memory_order_acquire) != s->se[i].id) continue;
        if (vt_se[slot].sid && k < max) sids[k++] = vt_se[slot].sid;
        s->se[keep++] = s->se[i];
    }
    s->nse = keep;
    for (uint32_t i = 0; i < s->n; i++)
        if (s->st[i].sid && k < max) sids[k++] = s->st[i].sid;
    refresh(s);
    return k;
}

/* ------------------------------------------------------------------------ *
 *  The API for the Python hook (docs/python.md): exported, called through ctypes
 * ------------------------------------------------------------------------ */
/* The domain tag of scopes pushed through this API: their pops never take an NVTX
 * range, and NVTX pops never take them. */
static const char vt_own_domain = 0;

static inline int tracing(void)
{
    return atomic_load_explicit(&vt_g.state, memory_order_acquire) >= VT_ST_IDLE;
}

/* Enters scope `name` on this thread. Returns its depth (0 = outermost), -1 when the
 * recorder is off. */
VT_EXPORT int vramtrace_scope_push(const char *name)
{
    if (!tracing()) return -1;
    return vt_scope_push(name ? vt_str_intern(name, strlen(name)) : 0, &vt_own_domain);
}

/* Leaves the innermost scope entered with vramtrace_scope_push on this thread.
 * Returns the depth left, -1 when there was none. */
VT_EXPORT int vramtrace_scope_pop(void)
{
    return vt_scope_pop(&vt_own_domain);
}

/* Sets this thread's backward scope (NULL or "" clears it). */
VT_EXPORT void vramtrace_scope_backward(const char *name)
{
    if (!tracing()) return;
    vt_scope_t *s = sc_get();
    if (!s) return;
    s->bwd_sid = name && *name ? vt_str_intern(name, strlen(name)) : 0;
    s->bwd_gen = atomic_load_explicit(&vt_bwd_gen, memory_order_relaxed);
    refresh(s);
}

/* Ends the backward scope of every thread (a backward pass is over). */
VT_EXPORT void vramtrace_scope_backward_end(void)
{
    atomic_fetch_add_explicit(&vt_bwd_gen, 1, memory_order_relaxed);
}
