// SPDX-License-Identifier: MIT
/* vt_py.c - Python frames: the interpreter's call stack of the allocating thread, when
 * that thread holds the GIL, read without calling into Python on the common path.
 *
 * Finding the interpreter: nothing is linked. The first event of the process (and the
 * writer, whenever the set of loaded objects changes) looks the C API up with dlsym in
 * the global scope: a python executable exports it (static builds), or its libpython
 * does. The layout comes from the interpreter's own _Py_DebugOffsets (3.13, 3.14:
 * vt_pyoffsets.c), else from the table's row for the version Py_GetVersion() reports
 * (3.9 to 3.12), in their usual builds (64-bit, GIL, no Py_TRACE_REFS). Anything else,
 * and free-threaded builds, get no Python frames and one warning on stderr.
 *
 * Which frames: those of the allocating thread's own Python thread state (the one
 * PyGILState_GetThisThreadState finds in thread-specific storage; none for a thread
 * Python never ran on), whether or not the thread holds the GIL at that moment. The GIL
 * is never taken, and it is usually not held: PyTorch releases it around every
 * operator, ctypes around every foreign call. Reading without it is safe because a
 * thread's frame chain is changed only by that thread, which is inside this capture;
 * and nothing on this path calls into Python or touches a reference count. (A daemon
 * thread allocating while another thread finalizes the interpreter is the one case not
 * covered: Py_IsInitialized is checked first, but the finalization may start during
 * the walk.)
 *
 * Reading the frames: the public API (PyThreadState_GetFrame, PyFrame_GetBack) would
 * create a frame object for every frame on 3.11+, allocating on the hot path and, on
 * 3.11, possibly running the garbage collector inside a CUDA call. So the frame chain is
 * read directly, with the layout of each version (vt_pylayouts, checked against the
 * headers of each version by tests/python/py_layout.sh):
 *   3.9, 3.10  tstate->frame, a chain of PyFrameObject (f_back, f_code, f_lasti);
 *   3.11       tstate->cframe->current_frame, a chain of _PyInterpreterFrame (previous,
 *              f_code, prev_instr, is_entry, owner);
 *   3.12       the same, with shim frames (owner FRAME_OWNED_BY_CSTACK) between calls;
 *   3.13       tstate->current_frame, f_executable, instr_ptr;
 *   3.14       the same, f_executable a tagged _PyStackRef, the entry frame owned by
 *              FRAME_OWNED_BY_INTERPRETER (3, what CSTACK was before).
 * Frames still being set up (3.11+: before their first traceable instruction) are
 * skipped, and every code pointer is checked to be a code object (its type is
 * PyCode_Type) before anything else of it is read.
 *
 * Splicing: since 3.11 one C-level call of the interpreter loop runs several Python
 * frames (a Python-to-Python call does not recurse in C). The frames are grouped by the
 * C call that runs them, each group with an anchor, an address on the C stack inside
 * that call's own frame:
 *   3.10  the call's CFrame (a local of _PyEval_EvalFrameDefault; one per frame);
 *   3.11  the call's _PyCFrame (a local), whose entry frame has is_entry set;
 *   3.12+ the call's shim frame (a local), owner FRAME_OWNED_BY_CSTACK.
 * vt_stack.c places a group just inside the native frame whose stack range holds its
 * anchor, which is that interpreter call's return address. 3.9 has no such local: there
 * each frame is its own C call, matched in order to the native frames whose return
 * address lies inside _PyEval_EvalFrameDefault (its extent from the dynamic symbol
 * table). A group whose native frame was not walked (the native depth ran out, or a
 * cold split of the function on 3.9) goes to the outer end of the stack.
 *
 * Code locations: (code object, instruction offset) -> PYFRAME id, cached in a
 * lock-free table. A miss computes the line (PyCode_Addr2Line, a pure function of the
 * code object) and reads the names (co_filename; co_qualname, co_name before 3.11)
 * straight from the str objects (compact strings, any kind, converted to UTF-8), and
 * for a (code, line) never seen queues STRING and PYFRAME records. A code object can be
 * freed and its address reused by another one; no reference can be taken without the
 * GIL, so every cache key also holds a tag of the code object's identity (the
 * addresses of its file and name objects and its first line), checked at every lookup:
 * a stale entry no longer matches and the new code object gets an entry of its own.
 * The tables never grow; when full, frames are left out. */
#include "vt_py.h"
#include "vt_dlsym.h"
#include "vt_format.h"
#include "vt_global.h"
#include "vt_pylayout.h"
#include "vt_pyoffsets.h"
#include "vt_side.h"
#include "vt_stats.h"
#include "vt_str.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* ------------------------------------------------------------------------ *
 *  The interpreter's API, resolved once (process-wide, read-only once vt_py_found)
 * ------------------------------------------------------------------------ */
typedef void PyObj;
static VT_HOT_DATA struct {
    const vt_pylayout *L;
    int  (*is_initialized)(void);
    void *(*this_thread_state)(void);     /* PyGILState_GetThisThreadState */
    int  (*addr2line)(PyObj *, int);
    const void *code_type;                /* &PyCode_Type */
    const void *str_type;                 /* &PyUnicode_Type */
    uintptr_t eval_lo, eval_hi;           /* _PyEval_EvalFrameDefault (3.9) */
    vt_pylayout own;                      /* from _Py_DebugOffsets (3.13+), or the table's row */
    int from_offsets;
} vt_api;

VT_HOT_DATA _Atomic int vt_py_found;
/* Set once the lookup failed for good (an unknown version): no more tries. */
static _Atomic int vt_py_refused;
static pthread_mutex_t vt_py_init_mu = PTHREAD_MUTEX_INITIALIZER;

static void *sym(const char *name)
{
    return vt_real_dlsym(RTLD_DEFAULT, name);
}

/* The layout of this interpreter: its own _Py_DebugOffsets when it publishes them (3.13+),
 * else the table's row for the version Py_GetVersion() reports (3.9-3.12). *why says
 * what was wrong when there is none. */
static int pick_layout(const char *ver, int *minor, const char **why)
{
    int major = 0;
    if (!ver || sscanf(ver, "%d.%d", &major, minor) != 2) major = *minor = -1;
    if (strstr(ver ? ver : "", "free-threading")) { *why = "a free-threaded build"; return -1; }
    const unsigned char *rt = sym("_PyRuntime");
    if (rt) {
        /* _PyRuntimeState is tens of KiB: its first 1 KiB is readable */
        int ominor;
        int rc = vt_pyoffsets_layout(rt, 1024, &vt_api.own, &ominor);
        if (rc == VT_PYOFF_OK && ominor == *minor) {
            vt_api.L = &vt_api.own;
            vt_api.from_offsets = 1;
            return 0;
        }
        if (rc == VT_PYOFF_FREE_THREADED) { *why = "a free-threaded build"; return -1; }
        if (rc == VT_PYOFF_BAD) { *why = "its _Py_DebugOffsets hold values no build with a GIL has"; return -1; }
        if (rc != VT_PYOFF_NONE) { *why = "a version this vramtrace does not know"; return -1; }
    }
    for (size_t i = 0; i < sizeof vt_pylayouts / sizeof vt_pylayouts[0]; i++)
        if (major == 3 && vt_pylayouts[i].minor == *minor) {
            vt_api.own = vt_pylayouts[i];  /* a copy beside the rest of vt_api (VT_HOT_DATA) */
            vt_api.L = &vt_api.own;
        }
    if (!vt_api.L) { *why = "a version this vramtrace does not know"; return -1; }
    return 0;
}

void vt_py_try_init(void)
{
    if (!vt_g.cfg.python || vt_g.cfg.depth <= 0) return;
    if (atomic_load(&vt_py_found) || atomic_load(&vt_py_refused)) return;
    pthread_mutex_lock(&vt_py_init_mu);
    if (atomic_load(&vt_py_found) || atomic_load(&vt_py_refused)) goto out;
    const char *(*get_version)(void) = (const char *(*)(void))sym("Py_GetVersion");
    if (!get_version) goto out;  /* no interpreter (yet) */
    const char *ver = get_version();
    int minor = -1;
    const char *why = "";
    if (pick_layout(ver, &minor, &why)) {
        /* Not only under VRAMTRACE_DEBUG: a user who expects Python lines must learn why
         * there are none. Once per process (refused for good). */
        vt_warn("Python %.*s (%s): no Python frames in the stacks (vramtrace reads CPython 3.9 to 3.14 "
                "with a GIL); everything else is recorded", ver ? (int)strcspn(ver, " \n") : 1, ver ? ver : "?", why);
        vt_api.L = NULL;
        atomic_store(&vt_py_refused, 1);
        goto out;
    }
    vt_api.is_initialized = (int (*)(void))sym("Py_IsInitialized");
    vt_api.this_thread_state = (void *(*)(void))sym("PyGILState_GetThisThreadState");
    vt_api.addr2line = (int (*)(PyObj *, int))sym("PyCode_Addr2Line");
    vt_api.code_type = sym("PyCode_Type");
    vt_api.str_type = sym("PyUnicode_Type");
    void *eval = sym("_PyEval_EvalFrameDefault");
    if (eval) {
        Dl_info di;
        const ElfW(Sym) *es = NULL;
        if (dladdr1(eval, &di, (void **)&es, RTLD_DL_SYMENT) && es && es->st_size) {
            vt_api.eval_lo = (uintptr_t)eval;
            vt_api.eval_hi = (uintptr_t)eval + es->st_size;
        }
    }
    dlerror();
    if (!vt_api.is_initialized || !vt_api.this_thread_state || !vt_api.addr2line || !vt_api.code_type ||
        !vt_api.str_type || (minor == 9 && !vt_api.eval_hi)) {
        vt_warn("Python %.*s: part of its C API is missing from the process; no Python frames",
                (int)strcspn(ver, " \n"), ver);
        vt_api.L = NULL;
        atomic_store(&vt_py_refused, 1);
        goto out;
    }
    if (vt_g.cfg.debug)
        vt_warn("Python %d.%d: frame layout from %s", 3, minor,
                vt_api.from_offsets ? "its _Py_DebugOffsets" : "vramtrace's table");
    atomic_store_explicit(&vt_py_found, 1, memory_order_release);
out:
    pthread_mutex_unlock(&vt_py_init_mu);
}

int vt_py_eval_ip(uintptr_t ip)
{
    return ip - 1 >= vt_api.eval_lo && ip - 1 < vt_api.eval_hi;
}

uintptr_t vt_py_eval_lo(void)
{
    return vt_api.eval_lo;
}

/* ------------------------------------------------------------------------ *
 *  Code locations -> PYFRAME ids
 * ------------------------------------------------------------------------ */
#define VT_LOC_CAP  (1u << 18)   /* (code, offset) slots, filled to half at most */
#define VT_LINE_CAP (1u << 17)   /* (code, line) slots, filled to half at most */

typedef struct {
    _Atomic uintptr_t code;      /* 0 = empty; published last */
    int32_t  key2;               /* instruction offset, or line */
    uint32_t id;
    uint64_t tag;                /* the code object's identity (code_tag) */
} vt_loc_ent;

/* Process-wide caches: a code location gets one id wherever it runs. Inserts take
 * vt_loc.mu; lookups take nothing. Entries are never changed once published. */
static struct {
    vt_loc_ent *loc, *line;
    pthread_mutex_t mu;
    uint32_t nloc, nline;
    uint32_t next_id;
    _Atomic int mapped;          /* 1 ok, -1 failed */
} vt_loc = { .mu = PTHREAD_MUTEX_INITIALIZER, .next_id = 1 };

static inline PyObj *field(const void *base, int off)
{
    return *(PyObj *const *)((const char *)base + off);
}

/* What tells a code object from a later one at the same address. */
static inline uint64_t code_tag(const PyObj *code)
{
    const vt_pylayout *L = vt_api.L;
    uint64_t f = (uint64_t)(uintptr_t)field(code, L->co_filename);
    uint64_t q = (uint64_t)(uintptr_t)field(code, L->co_qualname >= 0 ? L->co_qualname : L->co_name);
    int line = *(const int *)((const char *)code + L->co_firstlineno);
    return vt_mix(f ^ 0x9e3779b97f4a7c15ull, q ^ ((uint64_t)(uint32_t)line << 1 | 1));
}

static inline uint64_t loc_hash(uintptr_t code, int32_t k)
{
    return vt_mix(code ^ ((uint64_t)(uint32_t)k << 40), 0x9e3779b97f4a7c15ull);
}

static uint32_t loc_find(const vt_loc_ent *t, uint32_t cap, uintptr_t code, int32_t k, uint64_t tag)
{
    uint64_t mask = cap - 1;
    for (uint64_t i = loc_hash(code, k) & mask;; i = (i + 1) & mask) {
        uintptr_t c = atomic_load_explicit(&t[i].code, memory_order_acquire);
        if (c == code && t[i].key2 == k && t[i].tag == tag) return t[i].id;
        if (!c) return 0;
    }
}

/* Under vt_loc.mu. */
static void loc_put(vt_loc_ent *t, uint32_t cap, uint32_t *n, uintptr_t code, int32_t k, uint64_t tag, uint32_t id)
{
    if (*n >= cap / 2) return;
    uint64_t mask = cap - 1;
    for (uint64_t i = loc_hash(code, k) & mask;; i = (i + 1) & mask) {
        uintptr_t c = atomic_load_explicit(&t[i].code, memory_order_relaxed);
        if (c == code && t[i].key2 == k && t[i].tag == tag) return;
        if (!c) {
            t[i].key2 = k;
            t[i].id = id;
            t[i].tag = tag;
            atomic_store_explicit(&t[i].code, code, memory_order_release);
            (*n)++;
            return;
        }
    }
}

static int loc_map(void)
{
    int st = atomic_load_explicit(&vt_loc.mapped, memory_order_acquire);
    if (st) return st > 0;
    pthread_mutex_lock(&vt_loc.mu);
    if (!atomic_load_explicit(&vt_loc.mapped, memory_order_relaxed)) {
        void *a = mmap(NULL, VT_LOC_CAP * sizeof(vt_loc_ent), PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        void *b = mmap(NULL, VT_LINE_CAP * sizeof(vt_loc_ent), PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (a != MAP_FAILED && b != MAP_FAILED) {
            vt_loc.loc = a;
            vt_loc.line = b;
            atomic_store_explicit(&vt_loc.mapped, 1, memory_order_release);
        } else {
            if (a != MAP_FAILED) munmap(a, VT_LOC_CAP * sizeof(vt_loc_ent));
            if (b != MAP_FAILED) munmap(b, VT_LINE_CAP * sizeof(vt_loc_ent));
            atomic_store_explicit(&vt_loc.mapped, -1, memory_order_release);
        }
    }
    pthread_mutex_unlock(&vt_loc.mu);
    return atomic_load_explicit(&vt_loc.mapped, memory_order_acquire) > 0;
}

/* A str object's text as a STRING id, read from the object (compact strings: ASCII as
 * it is, Latin-1, UCS-2 and UCS-4 converted to UTF-8). 0 for anything else. */
static uint32_t str_sid(const PyObj *s)
{
    const vt_pylayout *L = vt_api.L;
    if (!s || *(const void *const *)((const char *)s + 8) != vt_api.str_type) return 0;
    const char *o = (const char *)s;
    unsigned st = *(const unsigned *)(o + VT_STR_STATE_OFF);
    int64_t len = *(const int64_t *)(o + VT_STR_LENGTH_OFF);
    if (!(st & VT_STR_COMPACT) || (L->str_ready && !(st & L->str_ready)) || len <= 0) return 0;
    if (st & VT_STR_ASCII) return vt_str_intern(o + L->str_ascii, (size_t)len);
    unsigned kind = VT_STR_KIND(st);
    if (kind != 1 && kind != 2 && kind != 4) return 0;
    const uint8_t *d = (const uint8_t *)(o + L->str_compact);
    char buf[1024];
    size_t n = 0;
    for (int64_t i = 0; i < len && n + 4 < sizeof buf; i++) {
        uint32_t c = kind == 1 ? d[i] : kind == 2 ? ((const uint16_t *)d)[i] : ((const uint32_t *)d)[i];
        if (c < 0x80) buf[n++] = (char)c;
        else if (c < 0x800) { buf[n++] = (char)(0xc0 | c >> 6); buf[n++] = (char)(0x80 | (c & 0x3f)); }
        else if (c < 0x10000) {
            buf[n++] = (char)(0xe0 | c >> 12); buf[n++] = (char)(0x80 | ((c >> 6) & 0x3f));
            buf[n++] = (char)(0x80 | (c & 0x3f));
        } else if (c < 0x110000) {
            buf[n++] = (char)(0xf0 | c >> 18); buf[n++] = (char)(0x80 | ((c >> 12) & 0x3f));
            buf[n++] = (char)(0x80 | ((c >> 6) & 0x3f)); buf[n++] = (char)(0x80 | (c & 0x3f));
        } else {
            buf[n++] = '?';
        }
    }
    return vt_str_intern(buf, n);
}

/* Rare: the first time a (code, offset) is seen. */
static __attribute__((noinline)) uint32_t loc_miss(PyObj *code, int32_t off, uint64_t tag)
{
    if (!loc_map()) return 0;
    const vt_pylayout *L = vt_api.L;
    int line = vt_api.addr2line(code, off);
    if (line < 0) line = 0;
    uintptr_t c = (uintptr_t)code;
    uint32_t id = loc_find(vt_loc.line, VT_LINE_CAP, c, line, tag);
    if (!id) {
        uint32_t file = str_sid(field(code, L->co_filename));
        uint32_t fn = str_sid(field(code, L->co_qualname >= 0 ? L->co_qualname : L->co_name));
        pthread_mutex_lock(&vt_loc.mu);
        id = loc_find(vt_loc.line, VT_LINE_CAP, c, line, tag);
        if (!id && vt_loc.nline < VT_LINE_CAP / 2) {
            id = vt_loc.next_id++;
            vt_rec r = { .type = VT_REC_PYFRAME, .device = -1, .id = id, .aux0 = file, .aux1 = fn,
                         .line = (uint32_t)line };
            vt_side_push(&r);
            loc_put(vt_loc.line, VT_LINE_CAP, &vt_loc.nline, c, line, tag, id);
        }
        pthread_mutex_unlock(&vt_loc.mu);
        if (!id) return 0;
    }
    pthread_mutex_lock(&vt_loc.mu);
    loc_put(vt_loc.loc, VT_LOC_CAP, &vt_loc.nloc, c, off, tag, id);
    pthread_mutex_unlock(&vt_loc.mu);
    return id;
}

static inline uint32_t loc_id(PyObj *code, int32_t off)
{
    if (VT_UNLIKELY(vt_g.cfg.stats)) vt_stats_add(VT_STAT_PY_LOOKUP, 1);
    uint64_t tag = code_tag(code);
    uint32_t id = 0;
    if (VT_LIKELY(atomic_load_explicit(&vt_loc.mapped, memory_order_acquire) > 0))
        id = loc_find(vt_loc.loc, VT_LOC_CAP, (uintptr_t)code, off, tag);
    return VT_LIKELY(id) ? id : loc_miss(code, off, tag);
}

/* ------------------------------------------------------------------------ *
 *  The walk
 * ------------------------------------------------------------------------ */
static inline int is_code(const PyObj *o)
{
    return o && *(const void *const *)((const char *)o + 8) == vt_api.code_type;
}

/* Ends the group of frames [end of the last group, n). n is passed, not read back from
 * ps->n: a load of the word just stored stalled the walk (perf, bench_blocks.py). */
static inline void close_group(vt_pystack *ps, int n, uintptr_t anchor, uint64_t *key)
{
    int g = ps->ngroups;
    if (g >= VT_PY_GROUPS) return;
    if (g ? ps->end[g - 1] == n : !n) return;  /* empty group */
    ps->end[g] = (uint16_t)n;
    ps->anchor[g] = anchor;
    ps->ngroups = g + 1;
    *key = vt_mix(*key ^ anchor, 0xe7037ed1a0b428dbull ^ (uint64_t)n);
}

/* The key's step for one frame's id. It is taken as the walk goes: the multiplies then
 * overlap the walk's loads instead of making a chain of their own after it. */
static inline uint64_t key_id(uint64_t key, uint32_t id)
{
    return vt_mix(key ^ id, 0xa0761d6478bd642full);
}

/* ------------------------------------------------------------------------ *
 *  The thread's earlier lookups: frames that did not move keep their ids
 * ------------------------------------------------------------------------ */
/* A training loop allocates from frames that stay where they are (the outer frames wait
 * in their calls; the inner ones are re-entered at the same place): a frame at the same
 * address, running the same code object at the same instruction as a frame the thread
 * looked up before gets that lookup's id, without the code object's tag and the table
 * lookup. The thread keeps them in a small direct-mapped table of its own rather than
 * one per position of its last walk, since a frame that waits at one position calls
 * from several lines in turn (a layer's forward: the query, key, value projections...),
 * where the last walk's entry misses on each (on the H200: ~4 lookups a stack of ~20
 * frames). (The one way this can be wrong: the code object was freed and another one
 * made at its address, and a frame of the new one sits at the same address at the same
 * instruction offset.) */
#define VT_PL_SLOTS 1024   /* per thread: 32 KiB, a few hundred call sites in use */

typedef struct {
    uintptr_t frame, code, instr;
    uint32_t  id;
    uint32_t  pad_;
} vt_pyseen_ent;

typedef struct {
    vt_pyseen_ent e[VT_PL_SLOTS];            /* (frame, code, instruction) -> id, direct-mapped */
} vt_pyseen;

/* Per thread: its earlier lookups. Mapped at the thread's first walk with frames,
 * unmapped when it exits. */
static VT_TLS vt_pyseen *vt_pl;
static pthread_key_t vt_pl_key;
static int vt_pl_key_ok;

static void pl_free(void *p)
{
    vt_pl = NULL;
    if (p) munmap(p, sizeof(vt_pyseen));
}

void vt_py_init(void)
{
    vt_pl_key_ok = pthread_key_create(&vt_pl_key, pl_free) == 0;
}

static vt_pyseen *pl_get(void)
{
    vt_pyseen *p = vt_pl;
    if (VT_LIKELY(p) || !vt_pl_key_ok) return p;
    void *m = mmap(NULL, sizeof *p, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return NULL;
    if (pthread_setspecific(vt_pl_key, m) != 0) { munmap(m, sizeof *p); return NULL; }
    return vt_pl = m;
}

static inline vt_pyseen_ent *pl_slot(vt_pyseen *pl, uintptr_t f, uintptr_t instr)
{
    return &pl->e[((f ^ (instr << 7)) * 0x9e3779b97f4a7c15ull) >> (64 - 10)];
}

/* The id kept for this frame, or 0. */
static inline uint32_t kept_id(vt_pyseen *pl, uintptr_t f, uintptr_t code, uintptr_t instr)
{
    const vt_pyseen_ent *e = pl_slot(pl, f, instr);
    return ((e->frame ^ f) | (e->code ^ code) | (e->instr ^ instr)) ? 0 : e->id;
}

static inline void remember(vt_pyseen *pl, uintptr_t f, uintptr_t code, uintptr_t instr, uint32_t id)
{
    if (!pl) return;
    vt_pyseen_ent *e = pl_slot(pl, f, instr);
    e->frame = f;
    e->code = code;
    e->instr = instr;
    e->id = id;
}

/* ------------------------------------------------------------------------ *
 *  The walks
 * ------------------------------------------------------------------------ */
/* 3.9, 3.10: one PyFrameObject per interpreter call. */
static void walk_objects(const vt_pylayout *L, const char *ts, vt_pystack *ps, vt_pyseen *pl)
{
    const char *f = (const char *)field(ts, L->ts_frame);
    const char *cf = L->ts_cframe >= 0 ? (const char *)field(ts, L->ts_cframe) : NULL;
    const int o_code = L->fr_code, o_instr = L->fr_instr, o_back = L->fr_back, o_cfprev = L->cf_previous;
    uint64_t key = 0;
    for (int left = 4096; f && left > 0 && ps->n < VT_PY_MAX; left--) {
        PyObj *code = field(f, o_code);
        int lasti = *(const int *)(f + o_instr);
        uint32_t id = pl ? kept_id(pl, (uintptr_t)f, (uintptr_t)code, (uintptr_t)(intptr_t)lasti) : 0;
        if (!id && is_code(code)) {
            id = loc_id(code, lasti < 0 ? -1 : lasti * L->lasti_unit);
            if (id) remember(pl, (uintptr_t)f, (uintptr_t)code, (uintptr_t)(intptr_t)lasti, id);
        }
        if (id) {
            ps->id[ps->n++] = id;
            key = key_id(key, id);
            close_group(ps, ps->n, (uintptr_t)cf, &key);
        }
        if (cf) cf = (const char *)field(cf, o_cfprev);
        f = (const char *)field(f, o_back);
    }
    ps->key = key;
}

/* 3.11+: _PyInterpreterFrame chains. minor is a constant at each call (the function is
 * inlined per version), so the version tests fold away. */
static inline __attribute__((always_inline)) void walk_frames(const vt_pylayout *L, const char *ts,
                                                              vt_pystack *ps, vt_pyseen *pl, const int minor)
{
    const char *cf = NULL, *f;
    if (minor >= 13) {
        f = (const char *)field(ts, L->ts_current);
    } else {
        cf = (const char *)field(ts, L->ts_cframe);
        f = cf ? (const char *)field(cf, L->cf_current) : NULL;
    }
    const int o_owner = L->fr_owner, o_code = L->fr_code, o_instr = L->fr_instr, o_back = L->fr_back;
    const int o_entry = L->fr_is_entry, o_cfprev = L->cf_previous;
    /* ps->n in a register (the id stores could alias it), stored at the end */
    int n = ps->n;
    uint64_t key = 0;
    for (int left = 4096; f && left > 0 && n < VT_PY_MAX; left--) {
        char owner = f[o_owner];
        if (minor >= 12 && owner >= VT_PY_OWNED_CSTACK) {
            /* the entry frame is a local of its C call: 3.12/3.13 FRAME_OWNED_BY_CSTACK,
             * 3.14 FRAME_OWNED_BY_INTERPRETER (3; its CSTACK, 4, is assigned nowhere) */
            close_group(ps, n, (uintptr_t)f, &key);
        } else {
            /* 3.14: f_executable is a _PyStackRef, its low bit a tag */
            PyObj *code = minor >= 13 ? (PyObj *)((uintptr_t)field(f, o_code) & ~(uintptr_t)3) : field(f, o_code);
            const char *instr = (const char *)field(f, o_instr);
            uint32_t id = pl ? kept_id(pl, (uintptr_t)f, (uintptr_t)code, (uintptr_t)instr) : 0;
            if (id) {
                ps->id[n++] = id;
                key = key_id(key, id);
            } else if (is_code(code)) {
                const char *start = (const char *)code + L->co_code;
                int first = *(const int *)((const char *)code + L->co_firsttraceable);
                /* frames still being set up have not reached their first instruction */
                if (owner == VT_PY_OWNED_GENERATOR || instr >= start + 2 * first) {
                    long off = instr - start;
                    id = loc_id(code, off >= 0 && off < (1L << 30) ? (int32_t)off : 0);
                    if (id) {
                        remember(pl, (uintptr_t)f, (uintptr_t)code, (uintptr_t)instr, id);
                        ps->id[n++] = id;
                        key = key_id(key, id);
                    }
                }
            }
            if (minor == 11 && f[o_entry]) {
                close_group(ps, n, (uintptr_t)cf, &key);
                if (cf) cf = (const char *)field(cf, o_cfprev);
            }
        }
        f = (const char *)field(f, o_back);
    }
    ps->n = n;
    close_group(ps, n, 0, &key);  /* frames after the last boundary: no native frame known */
    ps->key = key;
}

int vt_py_capture(vt_pystack *ps)
{
    ps->n = ps->ngroups = 0;
    ps->key = 0;
    const vt_pylayout *L = vt_api.L;
    ps->by_ip = L->minor == 9;
    if (!vt_api.is_initialized()) return 0;
    const char *ts = vt_api.this_thread_state();  /* this thread's own, GIL or not */
    if (!ts) return 0;
    vt_pyseen *pl = pl_get();
    switch (L->minor) {
    case 9: case 10: walk_objects(L, ts, ps, pl); break;
    case 11: walk_frames(L, ts, ps, pl, 11); break;
    case 12: walk_frames(L, ts, ps, pl, 12); break;
    default: walk_frames(L, ts, ps, pl, 13); break;  /* 3.13, 3.14 */
    }
    return ps->n;
}
