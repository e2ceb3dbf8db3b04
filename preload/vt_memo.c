// SPDX-License-Identifier: MIT
/* vt_memo.c - the per-thread memo of stack walks: a walk known by the words it read.
 *
 * A walk (vt_unwind.c) is a pure function of its start (RSP; the first return address
 * is always the same) and of the values it reads: the rules it applies depend only on
 * the return addresses read, and the addresses it reads next only on the values read
 * so far. So two walks from one RSP that read the same values read the same addresses
 * in the same order and produce the same frames. The walker logs each (address, value)
 * it reads; the memo keeps, per start, the logs of the walks it has seen, and a new
 * capture checks whether every word of a kept log still holds its value. Checking is a
 * load and compare per word, in order; a walk is a chain of dependent loads and table
 * probes per frame, each a likely cache miss inside a program that runs megabytes of
 * its own code between allocations.
 *
 * The logs of one start form a decision tree. Two logs from one start agree up to the
 * first read where they differ, which has the same address in both; the memo indexes
 * each log by (the log it first differed from, the index of that read, its value). A
 * lookup checks the log kept for its start; at the first word that differs it takes the
 * log that has the word's current value there and goes on from the next read. A walk
 * is thus found whichever of the thread's call paths came before it, in one pass over
 * its log plus one table probe per point where it parts from another known walk: a
 * training step that allocates from hundreds of call paths in turn hits on each.
 * (Round-robin ways, an earlier design, missed every path of a cycle longer than the
 * ways; keeping only the part of a walk after where it left the walk before missed
 * whenever two paths share that part's first frame but not its outer frames: the
 * operator called from two places.)
 *
 * RBP: in code built without frame pointers it is an ordinary register that often
 * holds data (CPython 3.11 keeps the current frame object there), so logging every RBP
 * a frame saved would make each walk unique. The walker logs a restored RBP only when a
 * later frame uses it, and the RBP the walk started with as a read of `rbp0`, a word of
 * the memo that each lookup sets to the current RBP.
 *
 * Memory: per thread, one MAP_NORESERVE mapping (about 8.3 MB of address space at
 * depth 64, rounded to 10 MiB of huge pages, map_huge; touched as logs are kept: ~2 KB
 * per call path, in huge pages where the kernel gives them; with it a 16 KiB copy of the
 * ids of the thread's stacks with Python frames or scopes, at the end of this file).
 * When the arena or a table is full, new walks are not kept, so that a program with a
 * few more call paths than fit still finds most of them; only after VT_MEMO_REFRESH
 * walks could not be kept is everything dropped and the memo starts over (counted in
 * VRAMTRACE_STATS), so that a program whose call paths changed (training, then
 * evaluation) is learnt again. Dropping at once when full would find nothing at all in
 * a cycle of paths a little longer than what fits (tests/bench/memo_check.sh). */
#include "vt_memo.h"
#include "vt_global.h"
#include "vt_stats.h"

#include <pthread.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>

#define VT_MEMO_ARENA    (8u << 20)  /* bytes of kept walks */
#define VT_MEMO_ROOTS    4096u       /* start -> first kept walk; filled to half at most */
#define VT_MEMO_BRANCHES 16384u      /* (walk, read, value) -> walk; filled to half at most */
#define VT_MEMO_REFRESH  8192u       /* walks not kept for want of room before a reset */
#define VT_MEMO_STACKS   1024u       /* spliced stack key -> id, direct-mapped */

/* The stacks with Python frames or scopes last made on a kept walk: the key of what
 * was added to the walk (vt_stack.c) and the stack's id. A native walk runs under a few
 * Python call paths at most, and this walk's header, just read by the lookup, is in the
 * cache where the thread's table of stacks (below) is a likely miss a stack. */
#define VT_KEPT_PY 4
typedef struct {
    uint64_t key;          /* 0 = empty */
    uint32_t id;
    uint32_t pad_;
} vt_kept_py;

/* The first walks kept that part from a walk (at read i, with value v there) are listed
 * in its header, next to the log the lookup reads: the branches table, a
 * probe of a few hundred KiB that missed the cache on most lookups that part somewhere
 * (perf, tests/bench/bench_blocks.py --module-calls: a fifth of vt_memo_find's time), is
 * asked only for a walk with more of them. */
#define VT_KEPT_KIDS 7
typedef struct {
    uint64_t v;
    uint32_t i;
    uint32_t to;           /* the kept walk */
} vt_kept_kid;

/* A kept walk: its log, then its frames and their stack pointers. What every hit reads
 * (nreads, w: its id) and the first py[] entry share its first cache line; the kids and
 * the other entries, read on a branch or a Python stack, the next ones. */
typedef struct {
    uint32_t nreads;
    uint16_t py_next;      /* the py[] entry to take next (round robin) */
    uint8_t  nkids;
    uint8_t  more_kids;    /* others are in the branches table */
    vt_walk  w;            /* w.ips, w.sps point into rv[], after the log */
    vt_kept_py py[VT_KEPT_PY];
    vt_kept_kid kids[VT_KEPT_KIDS];
    uint64_t rv[];         /* nreads (address, value) pairs */
} vt_kept;
_Static_assert(offsetof(vt_kept, py) + sizeof(vt_kept_py) <= 64, "vt_kept: the hot fields in one line");

typedef struct {
    uintptr_t rsp0;
    uint32_t  at;          /* arena offset of the first kept walk; 0 = empty */
    uint32_t  pad_;
} vt_root;

/* A stack with Python frames or scopes: its key (vt_stack.c's hash of the native walk
 * and the rest) and the id the process-wide table gave it. */
typedef struct {
    uint64_t key;          /* 0 = empty */
    uint32_t id;
    uint32_t pad_;
} vt_stack_ent;

typedef struct {
    uint64_t v;            /* the value read */
    uint32_t from, i;      /* the kept walk it differs from, at read i */
    uint32_t to;           /* the kept walk with v there; 0 = empty */
    uint32_t pad_;
} vt_branch;

struct vt_memo {
    uintptr_t  rbp0;       /* the RBP the walk in progress started with (a logged "word") */
    uintptr_t  rsp0;
    uint32_t   cap;        /* log pairs */
    uint32_t   fmax;       /* frames */
    uint32_t   top;        /* arena bytes used (offset 0 is never a walk) */
    uint32_t   nroots, nbranches;
    uint32_t   att_from, att_i;  /* where the last lookup ended: what a new walk hangs off */
    uint64_t   att_v;
    uint32_t   nlog;       /* the walk just done: pairs logged; 0 = not to be kept */
    uint32_t   refused;    /* walks not kept since the last reset, for want of room */
    uint64_t  *log;        /* cap pairs */
    uint32_t  *frame_at;   /* fmax: pairs logged when each frame of the walk was known */
    vt_root   *roots;
    vt_branch *br;
    vt_stack_ent *stacks;
    char      *arena;
    size_t     bytes;
};

static pthread_key_t vt_memo_key;
static int vt_memo_key_ok;
/* This thread's memo; freed by the key's destructor when the thread exits. */
static VT_TLS vt_memo *vt_memo_tls;

static void memo_free(void *p)
{
    vt_memo *m = p;
    vt_memo_tls = NULL;
    if (m) munmap(m, m->bytes);
}

int vt_memo_init(void)
{
    vt_memo_key_ok = pthread_key_create(&vt_memo_key, memo_free) == 0;
    return 0;
}

/* The tables every lookup probes (roots, branches, the copy of the stacks' ids) and the
 * first kept walks lie in the mapping's first 2 MiB. Between two allocations a training
 * step touches far more memory than the TLB maps, so each of those probes, on a 4 KiB
 * page of its own, also missed the TLB: the mapping is aligned to 2 MiB and asks for
 * huge pages (MADV_HUGEPAGE; where the kernel gives none, nothing changes). The price:
 * the first touch of each 2 MiB is a whole huge page of memory. */
#define VT_MEMO_HUGE (2u << 20)

static void *map_huge(size_t bytes)
{
    char *raw = mmap(NULL, bytes + VT_MEMO_HUGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                     -1, 0);
    if (raw == MAP_FAILED) return NULL;
    char *p = (char *)(((uintptr_t)raw + VT_MEMO_HUGE - 1) & ~(uintptr_t)(VT_MEMO_HUGE - 1));
    if (p > raw) munmap(raw, (size_t)(p - raw));
    size_t tail = (size_t)(raw + bytes + VT_MEMO_HUGE - (p + bytes));
    if (tail) munmap(p + bytes, tail);
    (void)madvise(p, bytes, MADV_HUGEPAGE);
    return p;
}

vt_memo *vt_memo_get(int max)
{
    vt_memo *m = vt_memo_tls;
    if (VT_LIKELY(m) || !vt_memo_key_ok) return m;
    uint32_t cap = (uint32_t)max * 3;   /* at most 3 reads per frame */
    size_t bytes = sizeof *m + (size_t)cap * 16 + (size_t)max * 4 + 8 + VT_MEMO_ROOTS * sizeof(vt_root)
                 + VT_MEMO_BRANCHES * sizeof(vt_branch) + VT_MEMO_STACKS * sizeof(vt_stack_ent) + 64 + VT_MEMO_ARENA;
    bytes = (bytes + VT_MEMO_HUGE - 1) & ~(size_t)(VT_MEMO_HUGE - 1);
    void *p = map_huge(bytes);
    if (!p) return NULL;
    m = p;
    m->cap = cap;
    m->fmax = (uint32_t)max;
    m->bytes = bytes;
    m->top = 64;
    m->log = (uint64_t *)(m + 1);
    m->frame_at = (uint32_t *)(m->log + (size_t)cap * 2);
    m->roots = (vt_root *)(((uintptr_t)(m->frame_at + max) + 7) & ~(uintptr_t)7);
    m->br = (vt_branch *)(m->roots + VT_MEMO_ROOTS);
    m->stacks = (vt_stack_ent *)(m->br + VT_MEMO_BRANCHES);
    /* kept walks start on cache lines: a walk's first line holds what every hit reads */
    m->arena = (char *)(((uintptr_t)(m->stacks + VT_MEMO_STACKS) + 63) & ~(uintptr_t)63);
    if (pthread_setspecific(vt_memo_key, m) != 0) { munmap(p, bytes); return NULL; }
    vt_memo_tls = m;
    return m;
}

/* ------------------------------------------------------------------------ *
 *  Tables
 * ------------------------------------------------------------------------ */
static inline vt_kept *kept(const vt_memo *m, uint32_t at) { return (vt_kept *)(m->arena + at); }

static inline uint32_t root_slot(uintptr_t rsp0)
{
    return (uint32_t)(vt_mix(rsp0, 0x9e3779b97f4a7c15ull) & (VT_MEMO_ROOTS - 1));
}

static inline uint32_t branch_slot(uint32_t from, uint32_t i, uint64_t v)
{
    return (uint32_t)(vt_mix(v ^ ((uint64_t)from << 20 | i), 0xe7037ed1a0b428dbull) & (VT_MEMO_BRANCHES - 1));
}

static inline uint32_t root_find(const vt_memo *m, uintptr_t rsp0)
{
    for (uint32_t s = root_slot(rsp0);; s = (s + 1) & (VT_MEMO_ROOTS - 1)) {
        const vt_root *r = &m->roots[s];
        if (!r->at || r->rsp0 == rsp0) return r->at;
    }
}

static inline uint32_t branch_find(const vt_memo *m, uint32_t from, uint32_t i, uint64_t v)
{
    for (uint32_t s = branch_slot(from, i, v);; s = (s + 1) & (VT_MEMO_BRANCHES - 1)) {
        const vt_branch *b = &m->br[s];
        if (!b->to || (b->v == v && b->from == from && b->i == i)) return b->to;
    }
}

/* Drops every kept walk (the arena or a table is full). */
static void memo_reset(vt_memo *m)
{
    memset(m->roots, 0, VT_MEMO_ROOTS * sizeof(vt_root));
    memset(m->br, 0, VT_MEMO_BRANCHES * sizeof(vt_branch));
    m->nroots = m->nbranches = 0;
    m->top = 64;
    m->att_from = 0;
    m->refused = 0;
    if (VT_UNLIKELY(vt_g.cfg.stats)) vt_stats_add(VT_STAT_MEMO_RESET, 1);
}

/* ------------------------------------------------------------------------ *
 *  Lookup and keeping
 * ------------------------------------------------------------------------ */
const vt_walk *vt_memo_find(vt_memo *m, uintptr_t rsp0, uintptr_t rbp0)
{
    m->rbp0 = rbp0;
    m->rsp0 = rsp0;
    m->att_from = 0;
    m->nlog = 0;
    uint32_t at = root_find(m, rsp0), i = 0;
    while (at) {
        const vt_kept *k = kept(m, at);
        const uint64_t *rv = k->rv;
        /* Every address was a word of this thread's stack at or above rsp0 when it was
         * logged (or m->rbp0), so it is readable now: the start is the same. */
        uint32_t nr = k->nreads;
        /* four words a test: the loads are independent, one branch for the four */
        for (; i + 4 <= nr; i += 4) {
            const uint64_t *p = rv + 2 * i;
            uint64_t d = (*(const uint64_t *)(uintptr_t)p[0] ^ p[1]) | (*(const uint64_t *)(uintptr_t)p[2] ^ p[3])
                       | (*(const uint64_t *)(uintptr_t)p[4] ^ p[5]) | (*(const uint64_t *)(uintptr_t)p[6] ^ p[7]);
            if (d) break;
        }
        for (; i < nr; i++)
            if (*(const uint64_t *)(uintptr_t)rv[2 * i] != rv[2 * i + 1]) break;
        if (i == nr) return &k->w;
        uint64_t v = *(const uint64_t *)(uintptr_t)rv[2 * i];
        m->att_from = at;
        m->att_i = i;
        m->att_v = v;
        uint32_t to = 0;
        for (int c = 0; c < k->nkids; c++)
            if (k->kids[c].i == i && k->kids[c].v == v) { to = k->kids[c].to; break; }
        at = to ? to : k->more_kids ? branch_find(m, at, i, v) : 0;
        i++;   /* the walk found shares reads 0..i with this one */
    }
    return NULL;
}

uint64_t *vt_memo_log(vt_memo *m, uint32_t *cap, uintptr_t *rbp0_word, uint32_t **frame_at)
{
    *cap = m->cap;
    *rbp0_word = (uintptr_t)&m->rbp0;
    *frame_at = m->frame_at;
    return m->log;
}

void vt_memo_walked(vt_memo *m, uint32_t nlog)
{
    m->nlog = nlog;
}

/* The walk is a pure function of its start and of the words it read up to frame f: the
 * log cut there is the log of a walk that stops at f. It cannot be kept where the lookup
 * that missed parted from a kept walk at a later read than the cut: it would be the same
 * walk as that one up to its end. */
int vt_memo_cut(vt_memo *m, uint32_t f)
{
    if (!m->nlog || f >= m->fmax) return 0;
    uint32_t nlog = m->frame_at[f];
    if (!nlog || nlog > m->nlog || (m->att_from && m->att_i >= nlog)) return 0;
    m->nlog = nlog;
    return 1;
}

void vt_memo_keep(vt_memo *m, const vt_walk *w)
{
    if (!m || !m->nlog || !w->n || w->n > m->fmax) return;
    uint32_t nlog = m->nlog;
    m->nlog = 0;
    size_t need = sizeof(vt_kept) + (size_t)nlog * 16 + (size_t)w->n * sizeof(uintptr_t) * (w->sps ? 2 : 1);
    need = (need + 63) & ~(size_t)63;
    if (m->top + need > VT_MEMO_ARENA || m->nroots >= VT_MEMO_ROOTS / 2 || m->nbranches >= VT_MEMO_BRANCHES / 2) {
        if (++m->refused < VT_MEMO_REFRESH) return;  /* full: keep what is known */
        memo_reset(m);
    }
    if (m->top + need > VT_MEMO_ARENA) return;
    uint32_t at = m->top;
    if (m->att_from) {
        /* It hangs off the walk it parted from, at the read where it did: the same
         * address, the value this walk read. Anything else would be a walker bug;
         * keeping nothing is then the safe answer. */
        vt_kept *p = kept(m, m->att_from);
        uint32_t i = m->att_i;
        if (i >= nlog || m->log[2 * i] != p->rv[2 * i] || m->log[2 * i + 1] != m->att_v) return;
        if (p->nkids < VT_KEPT_KIDS) {
            p->kids[p->nkids++] = (vt_kept_kid){ .v = m->att_v, .i = i, .to = at };
        } else {
            uint32_t s = branch_slot(m->att_from, i, m->att_v);
            while (m->br[s].to) s = (s + 1) & (VT_MEMO_BRANCHES - 1);
            m->br[s] = (vt_branch){ .v = m->att_v, .from = m->att_from, .i = i, .to = at };
            m->nbranches++;
            p->more_kids = 1;
        }
    } else {
        uint32_t s = root_slot(m->rsp0);
        while (m->roots[s].at) {
            if (m->roots[s].rsp0 == m->rsp0) return;  /* the lookup ended elsewhere: a reset */
            s = (s + 1) & (VT_MEMO_ROOTS - 1);
        }
        m->roots[s] = (vt_root){ .rsp0 = m->rsp0, .at = at };
        m->nroots++;
    }
    vt_kept *k = kept(m, at);
    k->nreads = nlog;
    k->py_next = 0;
    k->nkids = 0;
    k->more_kids = 0;
    memset(k->py, 0, sizeof k->py);
    memcpy(k->rv, m->log, (size_t)nlog * 16);
    uintptr_t *fr = (uintptr_t *)(k->rv + (size_t)nlog * 2);
    memcpy(fr, w->ips, (size_t)w->n * sizeof(uintptr_t));
    k->w = *w;
    k->w.ips = (void *const *)fr;
    k->w.sps = NULL;
    if (w->sps) {
        memcpy(fr + w->n, w->sps, (size_t)w->n * sizeof(uintptr_t));
        k->w.sps = fr + w->n;
    }
    m->top += (uint32_t)need;
    m->att_from = 0;
}

void vt_memo_set_id(const vt_walk *w, uint32_t id)
{
    ((vt_walk *)w)->id = id;  /* w is in this thread's own arena */
}

static inline vt_kept *kept_of(const vt_walk *w)
{
    return (vt_kept *)((char *)(uintptr_t)w - offsetof(vt_kept, w));
}

uint32_t vt_memo_walk_stack_find(const vt_walk *w, uint64_t key)
{
    const vt_kept_py *p = kept_of(w)->py;
    for (int i = 0; i < VT_KEPT_PY; i++)
        if (p[i].key == key) return p[i].id;
    return 0;
}

void vt_memo_walk_stack_keep(const vt_walk *w, uint64_t key, uint32_t id)
{
    vt_kept *k = kept_of(w);
    vt_kept_py *p = &k->py[k->py_next++ % VT_KEPT_PY];
    p->key = key;
    p->id = id;
}

/* ------------------------------------------------------------------------ *
 *  Spliced stacks
 * ------------------------------------------------------------------------ */
/* The ids of the stacks this thread made with Python frames or scopes: a key maps to one
 * id for the life of the process (vt_stack.c never changes a published one), so a copy
 * is never stale, and the thread's few hundred stacks stay in a few of its own cache
 * lines rather than spread over the process-wide table's megabytes (a cache and TLB miss
 * a stack there). Never reset: what it holds stays true. */
static inline vt_stack_ent *stack_slot(vt_memo *m, uint64_t key)
{
    return &m->stacks[(key * 0x9e3779b97f4a7c15ull) >> (64 - 10)];
}

uint32_t vt_memo_stack_find(vt_memo *m, uint64_t key)
{
    const vt_stack_ent *e = stack_slot(m, key);
    return e->key == key ? e->id : 0;
}

void vt_memo_stack_keep(vt_memo *m, uint64_t key, uint32_t id)
{
    vt_stack_ent *e = stack_slot(m, key);
    e->key = key;
    e->id = id;
}
