// SPDX-License-Identifier: MIT
/* vt_stack.c - call stacks: capture with libunwind, dedup into a tree of nodes.
 *
 * Capture: vt_unwind() walks the caller's frames with DWARF CFI rules cached per return
 * address (most of a Python/PyTorch process has no frame pointers); for the stacks it
 * cannot walk (signal frames, unusual CFI) libunwind's unw_backtrace() with per-thread
 * caching does it.
 * The recorder's own frames (the wrapper, the record function) are skipped by address,
 * so the first stored frame is the return address in the caller of the driver
 * function, whatever inlining did to our frames.
 *
 * Dedup, in two levels (and, for stacks with Python frames or scopes, a per-thread copy
 * of level 1's answers in the thread's memo, vt_memo_stack_find, asked first):
 *   1. a lock-free open-addressing table: 64-bit hash of the whole IP array -> leaf node
 *      id. The steady state (a stack seen before) is one hash and one or two probes,
 *      no lock. Two different stacks with one 64-bit hash would share an id; at
 *      1M stacks the odds are ~1e-8.
 *   2. on a miss, under a mutex: walk the tree from the outermost frame, (parent id,
 *      ip) -> node id in a second table, create the nodes that are missing, queue a
 *      STACK record for each, then publish hash -> leaf in table 1.
 * Nothing is symbolized in the process: the analyzer does that offline from the
 * MODULE records.
 *
 * Both tables are mmap'ed (untouched pages cost nothing) and grow by doubling when half
 * full, under the mutex: table 2 is only used there, so it is rehashed and the old one
 * unmapped; table 1 is read without the lock, so the new one is filled, then published
 * with one pointer store, and the old one is left mapped for readers still in it (all
 * the old ones together are smaller than the current one). A reader that misses in an
 * old table takes the mutex and finds the stack in the current one. Only past
 * VT_NODES_MAX nodes (ids are 32 bits) does a stack get id 0, counted. */
#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "vt_stack.h"
#include "vt_arch.h"
#include "vt_config.h"
#include "vt_format.h"
#include "vt_global.h"
#include "vt_memo.h"
#include "vt_py.h"
#include "vt_pycut.h"
#include "vt_scope.h"
#include "vt_side.h"
#include "vt_stats.h"
#include "vt_unwind.h"

#include <pthread.h>
#include <string.h>
#include <sys/mman.h>

#define VT_SKIP_MAX   6           /* our own frames above the caller, at most */
#define VT_NODES_MAX  (1u << 30)  /* stack tree nodes, at most */
#define VT_LEAF_CAP   (1u << 19)  /* table 1 slots at the start (filled to half at most) */
#define VT_NODE_CAP   (1u << 21)  /* table 2 slots at the start (2 per node) */

typedef struct {
    _Atomic uint64_t key;   /* 0 = empty */
    _Atomic uint32_t leaf;
    uint32_t pad_;
} vt_leaf_ent;

typedef struct {
    uint64_t ip;
    uint32_t parent;
    uint32_t id;            /* 0 = empty */
} vt_node_ent;

/* Table 1: its size, then its slots. */
typedef struct {
    uint64_t    mask;
    vt_leaf_ent ent[];
} vt_leaf_tab;

/* Process-wide stack tree: one trace per process, shared by all threads. */
static VT_HOT_DATA struct {
    _Atomic(vt_leaf_tab *) leaf;
    vt_node_ent    *node;
    uint64_t        node_mask;
    pthread_mutex_t mu;       /* guards node, next_id, leaf inserts */
    uint32_t        next_id;
    uint32_t        nleaf;
    _Atomic uint64_t dropped;
} vt_st = { .mu = PTHREAD_MUTEX_INITIALIZER, .next_id = 1 };

static void *map_zero(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static vt_leaf_tab *leaf_tab_new(uint64_t cap)
{
    vt_leaf_tab *t = map_zero(sizeof *t + cap * sizeof(vt_leaf_ent));
    if (t) t->mask = cap - 1;
    return t;
}

int vt_stack_init(void)
{
    if (vt_g.cfg.depth <= 0) return 0;
    vt_leaf_tab *a = leaf_tab_new(VT_LEAF_CAP);
    if (!a) return -1;
    void *b = map_zero(VT_NODE_CAP * sizeof(vt_node_ent));
    if (!b) { munmap(a, sizeof *a + VT_LEAF_CAP * sizeof(vt_leaf_ent)); return -1; }
    atomic_store_explicit(&vt_st.leaf, a, memory_order_release);
    vt_st.node = b;
    vt_st.node_mask = VT_NODE_CAP - 1;
    unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
    vt_memo_init();
    return vt_unwind_init();
}

uint64_t vt_stack_dropped(void)
{
    return atomic_load_explicit(&vt_st.dropped, memory_order_relaxed);
}

/* ------------------------------------------------------------------------ *
 *  Hashing (wyhash-style multiply-fold)
 * ------------------------------------------------------------------------ */
static uint64_t hash_ips(void *const *ips, int n)
{
    const uint64_t k0 = 0xa0761d6478bd642full, k1 = 0xe7037ed1a0b428dbull;
    uint64_t h = vt_mix((uint64_t)n ^ k0, k1);
    int i = 0;
    for (; i + 1 < n; i += 2)
        h = vt_mix((uint64_t)(uintptr_t)ips[i] ^ h ^ k0, (uint64_t)(uintptr_t)ips[i + 1] ^ k1);
    if (i < n) h = vt_mix((uint64_t)(uintptr_t)ips[i] ^ h ^ k0, k1);
    h = vt_mix(h, k0 ^ k1);
    return h ? h : 1;
}

static inline uint64_t node_hash(uint32_t parent, uint64_t ip)
{
    return vt_mix(ip ^ 0x8ebc6af09c88c6e3ull, ((uint64_t)parent << 1 | 1) ^ 0x589965cc75374cc3ull);
}

/* ------------------------------------------------------------------------ *
 *  Tables
 * ------------------------------------------------------------------------ */
static uint32_t leaf_find(uint64_t h)
{
    vt_leaf_tab *t = atomic_load_explicit(&vt_st.leaf, memory_order_acquire);
    uint64_t mask = t->mask;
    for (uint64_t i = h & mask;; i = (i + 1) & mask) {
        uint64_t k = atomic_load_explicit(&t->ent[i].key, memory_order_acquire);
        if (k == h) return atomic_load_explicit(&t->ent[i].leaf, memory_order_relaxed);
        if (k == 0) return 0;
    }
}

/* Under the mutex. The leaf id is stored before the key (release), so a reader that
 * sees the key sees the id. */
static void leaf_put(vt_leaf_tab *t, uint64_t h, uint32_t id)
{
    for (uint64_t i = h & t->mask;; i = (i + 1) & t->mask) {
        uint64_t k = atomic_load_explicit(&t->ent[i].key, memory_order_relaxed);
        if (k == h) return;
        if (k == 0) {
            atomic_store_explicit(&t->ent[i].leaf, id, memory_order_relaxed);
            atomic_store_explicit(&t->ent[i].key, h, memory_order_release);
            vt_st.nleaf++;
            return;
        }
    }
}

/* Under the mutex: table 1 twice as big, filled, then published (see the top). */
static int leaf_grow(void)
{
    vt_leaf_tab *old = atomic_load_explicit(&vt_st.leaf, memory_order_relaxed);
    vt_leaf_tab *t = leaf_tab_new((old->mask + 1) * 2);
    if (!t) return -1;
    vt_st.nleaf = 0;
    for (uint64_t i = 0; i <= old->mask; i++) {
        uint64_t k = atomic_load_explicit(&old->ent[i].key, memory_order_relaxed);
        if (k) leaf_put(t, k, atomic_load_explicit(&old->ent[i].leaf, memory_order_relaxed));
    }
    atomic_store_explicit(&vt_st.leaf, t, memory_order_release);
    return 0;
}

static void leaf_insert(uint64_t h, uint32_t id)
{
    vt_leaf_tab *t = atomic_load_explicit(&vt_st.leaf, memory_order_relaxed);
    if (vt_st.nleaf >= (t->mask + 1) / 2) {
        /* no memory for a bigger one: the tree walk under the mutex still finds it */
        if (leaf_grow()) return;
        t = atomic_load_explicit(&vt_st.leaf, memory_order_relaxed);
    }
    leaf_put(t, h, id);
}

/* Under the mutex: table 2 twice as big, rehashed; the old one is unmapped (only the
 * mutex's holder ever reads it). */
static int node_grow(void)
{
    uint64_t cap = (vt_st.node_mask + 1) * 2;
    vt_node_ent *n = map_zero(cap * sizeof *n);
    if (!n) return -1;
    for (uint64_t i = 0; i <= vt_st.node_mask; i++) {
        vt_node_ent *e = &vt_st.node[i];
        if (!e->id) continue;
        uint64_t j = node_hash(e->parent, e->ip) & (cap - 1);
        while (n[j].id) j = (j + 1) & (cap - 1);
        n[j] = *e;
    }
    munmap(vt_st.node, (vt_st.node_mask + 1) * sizeof *n);
    vt_st.node = n;
    vt_st.node_mask = cap - 1;
    return 0;
}

/* Node values of the three frame kinds share one table: Python and scope values (small
 * ids) are tagged in the top bits, where no user-space return address has a bit set. */
#define VT_TAG_PYTHON (1ull << 63)
#define VT_TAG_SCOPE  (1ull << 62)

/* Under the mutex: the node (parent, value), created (and queued) if new; 0 when full. */
static uint32_t node_get(uint32_t parent, uint64_t value)
{
    /* at most half full: grow first (a failed grow goes on while there is room) */
    if ((uint64_t)vt_st.next_id * 2 > vt_st.node_mask + 1 && node_grow()
        && (uint64_t)vt_st.next_id + 1 >= vt_st.node_mask) return 0;
    uint64_t mask = vt_st.node_mask;
    for (uint64_t i = node_hash(parent, value) & mask;; i = (i + 1) & mask) {
        vt_node_ent *e = &vt_st.node[i];
        if (e->id == 0) {
            if (vt_st.next_id > VT_NODES_MAX) return 0;
            e->ip = value;
            e->parent = parent;
            e->id = vt_st.next_id++;
            unsigned kind = value & VT_TAG_PYTHON ? VT_FRAME_PYTHON : value & VT_TAG_SCOPE ? VT_FRAME_SCOPE
                                                                                          : VT_FRAME_NATIVE;
            vt_rec r = { .type = VT_REC_STACK, .kind = (uint8_t)kind, .device = -1,
                         .id = e->id, .parent = parent, .addr = value & ~(VT_TAG_PYTHON | VT_TAG_SCOPE) };
            vt_side_push(&r);
            return e->id;
        }
        if (e->ip == value && e->parent == parent) return e->id;
    }
}

/* ------------------------------------------------------------------------ *
 *  Splicing: Python frames and scopes into the native stack
 * ------------------------------------------------------------------------ */
/* The native frame whose stack range holds a, or n when none of the walked frames
 * does (the anchor is further out than the walk went). Frame i spans [sps[i], sps[i+1]);
 * the range of the outermost walked frame is not known, so it never matches. */
static int frame_of(const uintptr_t *sps, int n, uintptr_t a)
{
    if (!a || !sps || n < 2 || a < sps[0] || a >= sps[n - 1]) return n;
    int lo = 0, hi = n - 1;      /* sps[lo] <= a < sps[hi] */
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (sps[mid] <= a) lo = mid;
        else hi = mid;
    }
    return lo;
}

/* What a stack is made of besides its native frames. */
typedef struct {
    int        nscope;
    uint32_t   scope[VT_SCOPE_MAX];      /* outermost first */
    vt_pystack py;
    int        at[VT_PY_GROUPS];         /* native frame each Python group goes inside of */
} vt_extra;

/* Where each Python group goes among the native frames of w (x->at). */
static void place_groups(const vt_walk *w, vt_extra *x)
{
    int n = (int)w->n;
    vt_pystack *ps = &x->py;
    int next_eval = 0;
    for (int g = 0; g < ps->ngroups; g++) {
        if (ps->anchor[g]) {
            x->at[g] = frame_of(w->sps, n, ps->anchor[g]);
        } else if (ps->by_ip) {
            /* 3.9: the next native frame inside the interpreter loop */
            while (next_eval < n && !vt_py_eval_ip((uintptr_t)w->ips[next_eval])) next_eval++;
            x->at[g] = next_eval < n ? next_eval++ : n;
        } else {
            x->at[g] = n;
        }
    }
}

/* The id of the stack made of the native walk w (ips may be the memo's copy) and x;
 * m: the thread's memo, whose copy of the table is asked first (NULL: none).
 * The key holds each group's anchor (a C stack address) rather than the native frame it
 * falls in: with the walk's first and last stack pointers, the anchors decide the
 * placing, and finding it (a binary search of the frames' stack pointers per group, a
 * chain of loads from the memo's cold copy of the walk, for each group: one per module
 * level in a PyTorch model, each called through the C slot of nn.Module.__call__) cost
 * more than the rest of the lookup. It is done only for a stack this thread has not seen.
 * The price: a stack run on two threads has two keys (the tables map both to one id).
 * kw: w when the memo holds it (its last few stacks are asked first, by what was added
 * alone: the kept walk stands for its frames and where they lie), else NULL. */
static uint32_t splice(vt_memo *m, const vt_walk *w, const vt_walk *kw, vt_extra *x)
{
    int n = (int)w->n;
    vt_pystack *ps = &x->py;
    /* what is added to the walk: the scopes, the Python frames' own key (their ids, each
     * group's end and anchor: vt_py.c) */
    uint64_t a = vt_mix(ps->key ^ 0x53504c4943452121ull, (uint64_t)x->nscope << 32 | (uint64_t)ps->ngroups);
    for (int i = 0; i < x->nscope; i++) a = vt_mix(a ^ x->scope[i], 0x9e3779b97f4a7c15ull);
    if (!a) a = 1;
    uint32_t id = kw ? vt_memo_walk_stack_find(kw, a) : 0;
    if (VT_LIKELY(id)) {
        if (VT_UNLIKELY(vt_g.cfg.stats)) vt_stats_add(VT_STAT_SPLICE_WALK, 1);
        return id;
    }
    /* the key: that, with the native walk and where it lies */
    uint64_t h = vt_mix(w->hash ^ a, 0xe7037ed1a0b428dbull);
    if (w->sps && n > 0) h = vt_mix(h ^ w->sps[0], w->sps[n - 1] | 1);
    if (!h) h = 1;
    id = m ? vt_memo_stack_find(m, h) : 0;
    if (VT_LIKELY(id)) {
        if (VT_UNLIKELY(vt_g.cfg.stats)) vt_stats_add(VT_STAT_SPLICE_LOCAL, 1);
        if (kw) vt_memo_walk_stack_keep(kw, a, id);
        return id;
    }
    id = leaf_find(h);
    if (VT_LIKELY(id)) {
        if (m) vt_memo_stack_keep(m, h, id);
        if (kw) vt_memo_walk_stack_keep(kw, a, id);
        return id;
    }

    place_groups(w, x);
    pthread_mutex_lock(&vt_st.mu);
    id = leaf_find(h);
    if (!id) {
        if (VT_UNLIKELY(vt_g.cfg.stats)) vt_stats_add(VT_STAT_SPLICE_NEW, 1);
        uint32_t parent = 0;
        int ok = 1;
        for (int i = 0; i < x->nscope && ok; i++) ok = (parent = node_get(parent, VT_TAG_SCOPE | x->scope[i])) != 0;
        /* outermost first: a native frame, then the groups that go inside it (outer
         * groups first, each from its outermost frame) */
        for (int f = n; f >= 0 && ok; f--) {
            if (f < n) ok = (parent = node_get(parent, (uint64_t)(uintptr_t)w->ips[f])) != 0;
            for (int g = ps->ngroups - 1; g >= 0 && ok; g--) {
                if (x->at[g] != f) continue;
                int lo = g ? ps->end[g - 1] : 0;
                for (int i = ps->end[g] - 1; i >= lo && ok; i--)
                    ok = (parent = node_get(parent, VT_TAG_PYTHON | ps->id[i])) != 0;
            }
        }
        id = ok ? parent : 0;
        if (id) leaf_insert(h, id);
    }
    pthread_mutex_unlock(&vt_st.mu);
    if (id && m) vt_memo_stack_keep(m, h, id);
    if (id && kw) vt_memo_walk_stack_keep(kw, a, id);
    return id;
}

/* Under no lock: the stack id of the native frames alone. */
static uint32_t native_id(const vt_walk *w)
{
    uint32_t id = leaf_find(w->hash);
    if (VT_LIKELY(id)) return id;
    pthread_mutex_lock(&vt_st.mu);
    id = leaf_find(w->hash);
    if (!id) {
        uint32_t parent = 0;
        for (int i = (int)w->n - 1; i >= 0; i--) {   /* outermost first */
            parent = node_get(parent, (uint64_t)(uintptr_t)w->ips[i]);
            if (!parent) break;
        }
        id = parent;
        if (id) leaf_insert(w->hash, id);
    }
    pthread_mutex_unlock(&vt_st.mu);
    return id;
}

/* ------------------------------------------------------------------------ *
 *  Capture
 * ------------------------------------------------------------------------ */
/* Rare paths of a capture that has scopes or Python frames: kept out of line so the
 * native-only path stays small. Returns 0 when there is nothing to add. */
static __attribute__((noinline)) int extra_of(vt_extra *x)
{
    uint64_t t0 = VT_UNLIKELY(vt_g.cfg.stats) ? vt_now_abs() : 0;
    x->nscope = vt_scope_live ? vt_scope_collect(x->scope, VT_SCOPE_MAX) : 0;
    x->py.n = x->py.ngroups = 0;
    if (atomic_load_explicit(&vt_py_found, memory_order_acquire)) vt_py_capture(&x->py);
    if (VT_UNLIKELY(t0)) {
        vt_stats_add(VT_STAT_NS_EXTRA, vt_now_abs() - t0);
        vt_stats_add(VT_STAT_N_EXTRA, 1);
        vt_stats_add(VT_STAT_PY_FRAMES, (uint64_t)x->py.n);
    }
    return x->nscope || x->py.n;
}

static __attribute__((noinline)) uint32_t capture_extra(vt_memo *m, const vt_walk *w, const vt_walk *kw,
                                                      vt_extra *x)
{
    uint64_t t0 = VT_UNLIKELY(vt_g.cfg.stats) ? vt_now_abs() : 0;
    uint32_t id = splice(m, w, kw, x);
    if (VT_UNLIKELY(t0)) vt_stats_add(VT_STAT_NS_SPLICE, vt_now_abs() - t0);
    if (!id) atomic_fetch_add_explicit(&vt_st.dropped, 1, memory_order_relaxed);
    return id;
}

/* libunwind, for the stacks the cached walker cannot do, keeping each frame's stack
 * pointer (Python frames are placed by it). */
static __attribute__((noinline)) int unwind_slow(void **ips, uintptr_t *sps, int max)
{
    unw_context_t ctx;
    unw_cursor_t cur;
    if (unw_getcontext(&ctx) || unw_init_local(&cur, &ctx)) return 0;
    int n = 0;
    while (n < max && unw_step(&cur) > 0) {
        unw_word_t ip, sp;
        if (unw_get_reg(&cur, UNW_REG_IP, &ip) || unw_get_reg(&cur, UNW_REG_SP, &sp) || !ip) break;
        ips[n] = (void *)(uintptr_t)ip;
        sps[n++] = (uintptr_t)sp;
    }
    return n;
}

uint32_t vt_stack_capture(void)
{
    int depth = vt_g.cfg.depth;
    if (depth <= 0 || !atomic_load_explicit(&vt_st.leaf, memory_order_relaxed)) return 0;
    void *buf[VT_DEPTH_MAX + VT_SKIP_MAX];
    uintptr_t spbuf[VT_DEPTH_MAX + VT_SKIP_MAX];
    vt_memo *m = NULL;
    const vt_walk *hit = NULL;
    int n = -1;
    /* A thread in a scope or running Python needs more than the native frames. */
    int more = vt_scope_live || atomic_load_explicit(&vt_py_found, memory_order_relaxed);
    if (VT_LIKELY(!vt_g.cfg.libunwind)) {
        m = vt_memo_get(depth + VT_SKIP_MAX);
        uint64_t t0 = VT_UNLIKELY(vt_g.cfg.stats) ? vt_now_abs() : 0;
        n = vt_unwind(buf, spbuf, depth + VT_SKIP_MAX, m, &hit);
        if (VT_UNLIKELY(t0)) {
            vt_stats_add(hit ? VT_STAT_NS_HIT : VT_STAT_NS_WALK, vt_now_abs() - t0);
            if (!hit && n > 0) vt_stats_add(VT_STAT_FRAMES_WALKED, (uint64_t)n);
        }
    }
    vt_extra x;
    if (VT_UNLIKELY(vt_g.cfg.stats))
        vt_stats_add(hit ? VT_STAT_MEMO_HIT : n < 0 ? VT_STAT_FALLBACK : VT_STAT_WALKED, 1);
    if (VT_LIKELY(hit)) {
        if (!more || !extra_of(&x)) {
            if (VT_LIKELY(hit->id)) return hit->id;
            uint32_t id = native_id(hit);
            if (id) vt_memo_set_id(hit, id);
            else atomic_fetch_add_explicit(&vt_st.dropped, 1, memory_order_relaxed);
            return id;
        }
        if (VT_UNLIKELY(vt_g.cfg.stats)) vt_stats_add(VT_STAT_EXTRA, 1);
        return capture_extra(m, hit, hit, &x);
    }
    const uintptr_t *sps = spbuf;
    if (VT_UNLIKELY(n < 0)) {
        m = NULL;
        if (more) n = unwind_slow(buf, spbuf, depth + VT_SKIP_MAX);
        else {
            n = unw_backtrace(buf, depth + VT_SKIP_MAX);
            for (int i = 0; i < n; i++) buf[i] = (void *)vt_arch_backtrace_ip((uintptr_t)buf[i]);
            sps = NULL;
        }
    }
    int s = 0;
    while (s < n && vt_is_self((uintptr_t)buf[s])) s++;
    n -= s;
    if (n > depth) n = depth;
    if (n <= 0) return 0;
    int extra = more && extra_of(&x);
    if (extra && x.py.n && !vt_g.cfg.interp_frames) {
        /* the interpreter's own frames outside the Python ones: not kept (vt_pycut.c) */
        int e = vt_pycut_at(buf + s, n);
        if (e < n && (!m || vt_memo_cut(m, (uint32_t)(s + e)))) n = e;
    }
    vt_walk w = { hash_ips(buf + s, n), 0, (uint32_t)n, buf + s, sps ? sps + s : NULL };
    if (extra) {
        if (VT_UNLIKELY(vt_g.cfg.stats)) vt_stats_add(VT_STAT_EXTRA, 1);
        vt_memo_keep(m, &w);
        return capture_extra(m, &w, NULL, &x);
    }
    w.id = native_id(&w);
    if (!w.id) atomic_fetch_add_explicit(&vt_st.dropped, 1, memory_order_relaxed);
    else vt_memo_keep(m, &w);
    return w.id;
}
