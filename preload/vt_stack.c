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
 * Dedup, in two levels:
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
 * Both tables are mmap'ed (untouched pages cost nothing) and never grow: when full, the
 * stack id is 0 and a counter says how often. */
#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "vt_internal.h"

#include <pthread.h>
#include <string.h>
#include <sys/mman.h>

#define VT_SKIP_MAX   6           /* our own frames above the caller, at most */
#define VT_NODES_MAX  (1u << 20)  /* stack tree nodes */
#define VT_LEAF_CAP   (1u << 20)  /* table 1 slots (filled to half at most) */
#define VT_NODE_CAP   (1u << 21)  /* table 2 slots (2 per node) */

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

/* Process-wide stack tree: one trace per process, shared by all threads. */
static struct {
    vt_leaf_ent    *leaf;
    vt_node_ent    *node;
    pthread_mutex_t mu;       /* guards node, next_id, leaf inserts */
    uint32_t        next_id;
    uint32_t        nleaf;
    _Atomic uint64_t dropped;
} vt_st = { .mu = PTHREAD_MUTEX_INITIALIZER, .next_id = 1 };

int vt_stack_init(void)
{
    if (vt_g.cfg.depth <= 0) return 0;
    void *a = mmap(NULL, VT_LEAF_CAP * sizeof(vt_leaf_ent), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (a == MAP_FAILED) return -1;
    void *b = mmap(NULL, VT_NODE_CAP * sizeof(vt_node_ent), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (b == MAP_FAILED) { munmap(a, VT_LEAF_CAP * sizeof(vt_leaf_ent)); return -1; }
    vt_st.leaf = a;
    vt_st.node = b;
    unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
    vt_unwind_memo_init();
    return vt_unwind_init();
}

uint64_t vt_stack_dropped(void)
{
    return atomic_load_explicit(&vt_st.dropped, memory_order_relaxed);
}

/* ------------------------------------------------------------------------ *
 *  Hashing (wyhash-style multiply-fold)
 * ------------------------------------------------------------------------ */
static inline uint64_t mix(uint64_t a, uint64_t b)
{
    __uint128_t r = (__uint128_t)a * b;
    return (uint64_t)r ^ (uint64_t)(r >> 64);
}

static uint64_t hash_ips(void *const *ips, int n)
{
    const uint64_t k0 = 0xa0761d6478bd642full, k1 = 0xe7037ed1a0b428dbull;
    uint64_t h = mix((uint64_t)n ^ k0, k1);
    int i = 0;
    for (; i + 1 < n; i += 2)
        h = mix((uint64_t)(uintptr_t)ips[i] ^ h ^ k0, (uint64_t)(uintptr_t)ips[i + 1] ^ k1);
    if (i < n) h = mix((uint64_t)(uintptr_t)ips[i] ^ h ^ k0, k1);
    h = mix(h, k0 ^ k1);
    return h ? h : 1;
}

static inline uint64_t node_hash(uint32_t parent, uint64_t ip)
{
    return mix(ip ^ 0x8ebc6af09c88c6e3ull, ((uint64_t)parent << 1 | 1) ^ 0x589965cc75374cc3ull);
}

/* ------------------------------------------------------------------------ *
 *  Tables
 * ------------------------------------------------------------------------ */
static uint32_t leaf_find(uint64_t h)
{
    uint64_t mask = VT_LEAF_CAP - 1;
    for (uint64_t i = h & mask;; i = (i + 1) & mask) {
        uint64_t k = atomic_load_explicit(&vt_st.leaf[i].key, memory_order_acquire);
        if (k == h) return atomic_load_explicit(&vt_st.leaf[i].leaf, memory_order_relaxed);
        if (k == 0) return 0;
    }
}

/* Under the mutex. The leaf id is stored before the key (release), so a reader that
 * sees the key sees the id. */
static void leaf_insert(uint64_t h, uint32_t id)
{
    if (vt_st.nleaf >= VT_LEAF_CAP / 2) return; /* full: the tree walk still works */
    uint64_t mask = VT_LEAF_CAP - 1;
    for (uint64_t i = h & mask;; i = (i + 1) & mask) {
        uint64_t k = atomic_load_explicit(&vt_st.leaf[i].key, memory_order_relaxed);
        if (k == h) return;
        if (k == 0) {
            atomic_store_explicit(&vt_st.leaf[i].leaf, id, memory_order_relaxed);
            atomic_store_explicit(&vt_st.leaf[i].key, h, memory_order_release);
            vt_st.nleaf++;
            return;
        }
    }
}

/* Under the mutex: the node (parent, ip), created (and queued) if new; 0 when full. */
static uint32_t node_get(uint32_t parent, uint64_t ip)
{
    uint64_t mask = VT_NODE_CAP - 1;
    for (uint64_t i = node_hash(parent, ip) & mask;; i = (i + 1) & mask) {
        vt_node_ent *e = &vt_st.node[i];
        if (e->id == 0) {
            if (vt_st.next_id > VT_NODES_MAX) return 0;
            e->ip = ip;
            e->parent = parent;
            e->id = vt_st.next_id++;
            vt_rec r = { .type = VT_REC_STACK, .kind = VT_FRAME_NATIVE, .device = -1,
                         .id = e->id, .parent = parent, .addr = ip };
            vt_side_push(&r);
            return e->id;
        }
        if (e->ip == ip && e->parent == parent) return e->id;
    }
}

/* ------------------------------------------------------------------------ *
 *  Capture
 * ------------------------------------------------------------------------ */
uint32_t vt_stack_capture(void)
{
    int depth = vt_g.cfg.depth;
    if (depth <= 0 || !vt_st.leaf) return 0;
    void *buf[VT_DEPTH_MAX + VT_SKIP_MAX];
    vt_memo *m = NULL;
    uint32_t hit = 0;
    int n = -1;
    if (VT_LIKELY(!vt_g.cfg.libunwind)) {
        m = vt_unwind_memo(depth + VT_SKIP_MAX);
        n = vt_unwind(buf, depth + VT_SKIP_MAX, m, &hit);
    }
    if (VT_LIKELY(hit)) return hit;
    if (VT_UNLIKELY(n < 0)) { n = unw_backtrace(buf, depth + VT_SKIP_MAX); m = NULL; }
    int s = 0;
    while (s < n && vt_is_self((uintptr_t)buf[s])) s++;
    n -= s;
    if (n > depth) n = depth;
    if (n <= 0) return 0;
    void **ips = buf + s;

    uint64_t h = hash_ips(ips, n);
    uint32_t id = leaf_find(h);
    if (VT_LIKELY(id)) {
        vt_unwind_memo_commit(m, id);
        return id;
    }

    pthread_mutex_lock(&vt_st.mu);
    id = leaf_find(h);
    if (!id) {
        uint32_t parent = 0;
        for (int i = n - 1; i >= 0; i--) {   /* outermost first */
            parent = node_get(parent, (uint64_t)(uintptr_t)ips[i]);
            if (!parent) break;
        }
        id = parent;
        if (id) leaf_insert(h, id);
    }
    pthread_mutex_unlock(&vt_st.mu);
    if (!id) atomic_fetch_add_explicit(&vt_st.dropped, 1, memory_order_relaxed);
    else vt_unwind_memo_commit(m, id);
    return id;
}
