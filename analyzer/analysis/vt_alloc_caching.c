/* SPDX-License-Identifier: MIT */
/* vt_alloc_caching.c - a model of PyTorch's native CUDA caching allocator
 * (c10/cuda/CUDACachingAllocator.cpp), with and without expandable segments, written
 * from its documented behaviour (docs/fit.md says what is modelled and what is not):
 *
 * - sizes round up to 512 bytes, or to a power-of-two division (roundup_power2_divisions);
 * - requests of at most 1 MiB come from the small pool, whose segments are 2 MiB; larger
 *   ones from the large pool: under 10 MiB a 20 MiB segment, else the size rounded up
 *   to 2 MiB (the segment sizes of vt_am_segment_size);
 * - each pool and stream keeps its free blocks ordered by (size, address) and a request
 *   takes the smallest that fits (best fit); a block is split when what remains is at
 *   least 512 bytes (small pool) or more than 1 MiB (large pool, and only for requests
 *   under max_split_size); blocks of max_split_size or more serve only requests within
 *   20 MiB of their size;
 * - a freed block merges with free neighbours of its segment;
 * - when no free block fits: garbage collection (garbage_collection_threshold), a new
 *   segment, else the release of oversize cached blocks (max_split_size) and a retry,
 *   else the release of every unsplit cached segment and a last retry, else OOM;
 * - expandable segments: one segment per pool and stream that grows by mapping pages
 *   (2 MiB in the small pool, 20 MiB in the large one) at its lowest free address;
 *   any free remainder of at least 512 bytes is split off; releasing the cache unmaps
 *   the whole pages of free blocks.
 * The same engine with one pool, no stream separation and 2 MiB pages is the async
 * model (vt_alloc_async.c).
 *
 * Blocks live in one array (indices, not pointers: it grows); the free blocks of a
 * (stream, pool) are a treap keyed by (size, address). Handles are block indices: an
 * allocated block keeps its index until it is released. */
#include "vt_alloc_model_int.h"

#include <stdlib.h>
#include <string.h>

#define NIL UINT32_MAX
#define MIB 1048576ull
#define K_MIN_BLOCK 512ull
#define K_SMALL_SIZE MIB
#define K_LARGE_BUFFER (20 * MIB)
#define SEG_SPACE (1ull << 44)  /* address space of one expandable segment: never runs out */

typedef struct {
    uint64_t addr, size;
    uint64_t gc_base;       /* the pool's get-free-block count when it was cached */
    uint32_t prev, next;    /* neighbours in the segment (by address), or NIL */
    uint32_t l, r, prio;    /* treap of its pool's free blocks */
    uint32_t pool;          /* index into the heap's pools */
    uint8_t  allocated, mapped, expandable, in_tree;
} blk;

typedef struct {
    uint32_t root;          /* free mapped blocks */
    uint32_t *unmapped;     /* expandable: unmapped blocks, by address */
    size_t nun, capun;
    uint64_t seg_base;      /* expandable: its segment (0: none yet) */
    uint8_t is_small, used;
} pool_t;

typedef struct {
    vt_am base;
    vt_am_heap_opts o;
    blk *b;
    uint32_t nb, capb, free_head;
    pool_t *pools;          /* (stream, small) -> stream * 2 + small */
    size_t npools;
    uint64_t next_addr;     /* where the next segment goes */
    uint64_t gc_calls[2];   /* get_free_block calls per pool kind (large 0, small 1) */
    uint32_t rng;
    uint32_t *scratch;      /* block lists being walked */
    size_t nscratch, capscratch;
} heap;

/* ------------------------------------------------------------------------ *
 *  Blocks
 * ------------------------------------------------------------------------ */
static uint32_t blk_new(heap *h)
{
    uint32_t i;
    if (h->free_head != NIL) {
        i = h->free_head;
        h->free_head = h->b[i].next;
    } else {
        if (h->nb == h->capb) {
            uint32_t cap = h->capb ? h->capb * 2 : 1024;
            blk *nbk = realloc(h->b, (size_t)cap * sizeof *nbk);
            if (!nbk) return NIL;
            h->b = nbk;
            h->capb = cap;
        }
        i = h->nb++;
    }
    memset(&h->b[i], 0, sizeof h->b[i]);
    h->b[i].prev = h->b[i].next = h->b[i].l = h->b[i].r = NIL;
    h->rng ^= h->rng << 13;
    h->rng ^= h->rng >> 17;
    h->rng ^= h->rng << 5;
    h->b[i].prio = h->rng;
    return i;
}

static void blk_del(heap *h, uint32_t i)
{
    h->b[i].next = h->free_head;
    h->free_head = i;
}

/* ------------------------------------------------------------------------ *
 *  Treap of free blocks, by (size, address)
 * ------------------------------------------------------------------------ */
static int key_lt(const blk *a, const blk *b)
{
    return a->size < b->size || (a->size == b->size && a->addr < b->addr);
}

static uint32_t tr_insert(heap *h, uint32_t t, uint32_t x)
{
    if (t == NIL) return x;
    blk *bt = &h->b[t], *bx = &h->b[x];
    if (bx->prio > bt->prio) {
        /* x becomes the root of this subtree: split t around x */
        uint32_t l = NIL, r = NIL, *lp = &l, *rp = &r, cur = t;
        while (cur != NIL) {
            if (key_lt(&h->b[cur], bx)) { *lp = cur; lp = &h->b[cur].r; cur = h->b[cur].r; }
            else { *rp = cur; rp = &h->b[cur].l; cur = h->b[cur].l; }
        }
        *lp = *rp = NIL;
        bx->l = l;
        bx->r = r;
        return x;
    }
    if (key_lt(bx, bt)) bt->l = tr_insert(h, bt->l, x);
    else bt->r = tr_insert(h, bt->r, x);
    return t;
}

static uint32_t tr_merge(heap *h, uint32_t a, uint32_t b)
{
    if (a == NIL) return b;
    if (b == NIL) return a;
    if (h->b[a].prio > h->b[b].prio) {
        h->b[a].r = tr_merge(h, h->b[a].r, b);
        return a;
    }
    h->b[b].l = tr_merge(h, a, h->b[b].l);
    return b;
}

static uint32_t tr_erase(heap *h, uint32_t t, uint32_t x)
{
    if (t == x) return tr_merge(h, h->b[t].l, h->b[t].r);
    if (key_lt(&h->b[x], &h->b[t])) h->b[t].l = tr_erase(h, h->b[t].l, x);
    else h->b[t].r = tr_erase(h, h->b[t].r, x);
    return t;
}

static void tree_add(heap *h, uint32_t x)
{
    blk *b = &h->b[x];
    pool_t *p = &h->pools[b->pool];
    b->l = b->r = NIL;
    b->in_tree = 1;
    b->gc_base = h->gc_calls[p->is_small];
    p->root = tr_insert(h, p->root, x);
}

static void tree_del(heap *h, uint32_t x)
{
    pool_t *p = &h->pools[h->b[x].pool];
    p->root = tr_erase(h, p->root, x);
    h->b[x].in_tree = 0;
}

/* The smallest block of at least size bytes (the lowest address among equals). */
static uint32_t tr_lower(const heap *h, uint32_t t, uint64_t size)
{
    uint32_t cand = NIL;
    while (t != NIL) {
        if (h->b[t].size >= size) { cand = t; t = h->b[t].l; }
        else t = h->b[t].r;
    }
    return cand;
}

/* The next block after x in (size, address) order, or NIL; the one before (tr_prev). */
static uint32_t tr_next(const heap *h, uint32_t t, uint32_t x)
{
    uint32_t cand = NIL;
    while (t != NIL) {
        if (key_lt(&h->b[x], &h->b[t])) { cand = t; t = h->b[t].l; }
        else t = h->b[t].r;
    }
    return cand;
}

static uint32_t tr_prev(const heap *h, uint32_t t, uint32_t x)
{
    uint32_t cand = NIL;
    while (t != NIL) {
        if (key_lt(&h->b[t], &h->b[x])) { cand = t; t = h->b[t].r; }
        else t = h->b[t].l;
    }
    return cand;
}

static uint32_t tr_max(const heap *h, uint32_t t)
{
    if (t == NIL) return NIL;
    while (h->b[t].r != NIL) t = h->b[t].r;
    return t;
}

/* The pool's free blocks in (size, address) order into h->scratch; returns how many,
 * or -1 when out of memory. */
static int scratch_push(heap *h, uint32_t x)
{
    if (h->nscratch == h->capscratch) {
        size_t cap = h->capscratch ? h->capscratch * 2 : 256;
        uint32_t *s = realloc(h->scratch, cap * sizeof *s);
        if (!s) return -1;
        h->scratch = s;
        h->capscratch = cap;
    }
    h->scratch[h->nscratch++] = x;
    return 0;
}

static int tr_collect(heap *h, uint32_t t)
{
    /* iterative in-order walk: successors from the minimum (depth O(log n)) */
    uint32_t x = t;
    if (x == NIL) return 0;
    while (h->b[x].l != NIL) x = h->b[x].l;
    for (; x != NIL; x = tr_next(h, t, x))
        if (scratch_push(h, x)) return -1;
    return 0;
}

/* ------------------------------------------------------------------------ *
 *  Pools
 * ------------------------------------------------------------------------ */
static uint32_t pool_of(heap *h, uint32_t stream, int small)
{
    if (h->o.one_stream) stream = 0;
    if (h->o.one_pool) small = 0;
    size_t i = (size_t)stream * 2 + (size_t)small;
    if (i >= h->npools) {
        size_t n = i + 1 > h->npools * 2 ? i + 1 : h->npools * 2;
        pool_t *p = realloc(h->pools, n * sizeof *p);
        if (!p) return NIL;
        memset(p + h->npools, 0, (n - h->npools) * sizeof *p);
        for (size_t k = h->npools; k < n; k++) {
            p[k].root = NIL;
            p[k].is_small = (uint8_t)(k & 1);
        }
        h->pools = p;
        h->npools = n;
    }
    h->pools[i].used = 1;
    return (uint32_t)i;
}

static uint64_t page_of(const heap *h, const pool_t *p)
{
    return p->is_small ? h->o.small_page : h->o.large_page;
}

static int unmapped_add(heap *h, pool_t *p, uint32_t x)
{
    if (p->nun == p->capun) {
        size_t cap = p->capun ? p->capun * 2 : 8;
        uint32_t *u = realloc(p->unmapped, cap * sizeof *u);
        if (!u) return -1;
        p->unmapped = u;
        p->capun = cap;
    }
    size_t i = p->nun++;
    for (; i > 0 && h->b[p->unmapped[i - 1]].addr > h->b[x].addr; i--) p->unmapped[i] = p->unmapped[i - 1];
    p->unmapped[i] = x;
    return 0;
}

static void unmapped_del(pool_t *p, uint32_t x)
{
    for (size_t i = 0; i < p->nun; i++)
        if (p->unmapped[i] == x) {
            memmove(&p->unmapped[i], &p->unmapped[i + 1], (p->nun - i - 1) * sizeof *p->unmapped);
            p->nun--;
            return;
        }
}

/* ------------------------------------------------------------------------ *
 *  Segments
 * ------------------------------------------------------------------------ */
/* Merges free neighbour src into dst (neither in a tree); returns 1 if it did. */
static int try_merge(heap *h, uint32_t dst, uint32_t src)
{
    if (src == NIL) return 0;
    blk *s = &h->b[src], *d = &h->b[dst];
    if (s->allocated || s->mapped != d->mapped) return 0;
    if (d->prev == src) {
        d->addr = s->addr;
        d->prev = s->prev;
        if (d->prev != NIL) h->b[d->prev].next = dst;
    } else {
        d->next = s->next;
        if (d->next != NIL) h->b[d->next].prev = dst;
    }
    d->size += s->size;
    if (s->mapped) {
        if (s->in_tree) tree_del(h, src);
    } else {
        unmapped_del(&h->pools[s->pool], src);
    }
    blk_del(h, src);
    return 1;
}

/* cudaFree of a whole cached segment (in its tree). */
static void release_block(heap *h, uint32_t x)
{
    tree_del(h, x);
    h->base.st.reserved -= h->b[x].size;
    h->base.st.segments--;
    h->base.st.device_frees++;
    blk_del(h, x);
}

/* Maps the pages under the first size bytes of unmapped block x; 0 when the device
 * has no room (nothing is mapped then), -1 when out of memory. */
static int map_block(heap *h, uint32_t x, uint64_t size)
{
    pool_t *p = &h->pools[h->b[x].pool];
    uint64_t page = page_of(h, p);
    uint64_t off = h->b[x].addr - p->seg_base;
    uint64_t begin = off / page, end = (off + size + page - 1) / page;
    uint64_t len = (end - begin) * page;
    if (h->base.limit != VT_AM_NO_LIMIT && h->base.st.reserved + len > h->base.limit) return 0;
    if (len < h->b[x].size) {
        uint32_t rem = blk_new(h);
        if (rem == NIL) return -1;
        blk *r = &h->b[rem], *b = &h->b[x];
        r->addr = b->addr + len;
        r->size = b->size - len;
        r->pool = b->pool;
        r->expandable = 1;
        r->prev = x;
        r->next = b->next;
        if (b->next != NIL) h->b[b->next].prev = rem;
        b->next = rem;
        b->size = len;
        if (unmapped_add(h, p, rem)) return -1;
    }
    unmapped_del(p, x);
    h->b[x].mapped = 1;
    try_merge(h, x, h->b[x].prev);
    try_merge(h, x, h->b[x].next);
    tree_add(h, x);
    h->base.st.reserved += len;
    h->base.st.segments += end - begin;
    h->base.st.device_allocs++;
    return 1;
}

/* Unmaps the whole pages of free mapped block x (in its tree). */
static int unmap_block(heap *h, uint32_t x)
{
    pool_t *p = &h->pools[h->b[x].pool];
    uint64_t page = page_of(h, p);
    uint64_t off = h->b[x].addr - p->seg_base;
    uint64_t begin = (off + page - 1) / page, end = (off + h->b[x].size) / page;
    if (begin >= end) return 0;
    tree_del(h, x);
    uint64_t ustart = p->seg_base + begin * page, uend = p->seg_base + end * page;
    uint64_t before = ustart - h->b[x].addr, after = h->b[x].addr + h->b[x].size - uend;
    if (before) {
        uint32_t nb = blk_new(h);
        if (nb == NIL) return -1;
        blk *n = &h->b[nb], *b = &h->b[x];
        n->addr = b->addr;
        n->size = before;
        n->pool = b->pool;
        n->expandable = n->mapped = 1;
        n->prev = b->prev;
        n->next = x;
        if (b->prev != NIL) h->b[b->prev].next = nb;
        b->prev = nb;
        tree_add(h, nb);
    }
    if (after) {
        uint32_t na = blk_new(h);
        if (na == NIL) return -1;
        blk *n = &h->b[na], *b = &h->b[x];
        n->addr = uend;
        n->size = after;
        n->pool = b->pool;
        n->expandable = n->mapped = 1;
        n->next = b->next;
        n->prev = x;
        if (b->next != NIL) h->b[b->next].prev = na;
        b->next = na;
        tree_add(h, na);
    }
    h->b[x].addr = ustart;
    h->b[x].size = uend - ustart;
    h->b[x].mapped = 0;
    try_merge(h, x, h->b[x].prev);
    try_merge(h, x, h->b[x].next);
    if (unmapped_add(h, p, x)) return -1;
    h->base.st.reserved -= uend - ustart;
    h->base.st.segments -= end - begin;
    h->base.st.device_frees++;
    return 0;
}

/* ------------------------------------------------------------------------ *
 *  The allocator's steps
 * ------------------------------------------------------------------------ */
static uint64_t expandable_size(const heap *h, uint32_t x)
{
    uint32_t n = h->b[x].next;
    return h->b[x].size + (n != NIL && !h->b[n].mapped ? h->b[n].size : 0);
}

static uint32_t get_free_block(heap *h, uint32_t pi, uint64_t size)
{
    pool_t *p = &h->pools[pi];
    uint64_t msplit = h->base.conf.max_split_size;
    if (h->base.limit != VT_AM_NO_LIMIT && h->base.conf.gc_threshold > 0) h->gc_calls[p->is_small]++;
    uint32_t x = tr_lower(h, p->root, size);
    if (x == NIL) return NIL;
    if (h->b[x].expandable) {
        /* best fit by the size a block at a segment's end can grow to */
        uint32_t nx = tr_next(h, p->root, x);
        while (h->b[x].expandable && nx != NIL && expandable_size(h, nx) < expandable_size(h, x)) {
            x = nx;
            nx = tr_next(h, p->root, nx);
        }
    }
    if (size < msplit && h->b[x].size >= msplit) return NIL;
    if (size >= msplit && h->b[x].size >= size + K_LARGE_BUFFER) return NIL;
    tree_del(h, x);
    return x;
}

/* The lowest address of the pool's segment where size bytes of free and unmapped
 * blocks follow one another. */
static uint32_t find_expandable_block(heap *h, uint32_t pi, uint64_t size)
{
    pool_t *p = &h->pools[pi];
    for (size_t i = 0; i < p->nun; i++) {
        uint32_t c = p->unmapped[i];
        uint32_t pv = h->b[c].prev;
        if (pv != NIL && !h->b[pv].allocated) c = pv;
        uint64_t bytes = 0;
        for (uint32_t y = c; bytes < size && y != NIL && !h->b[y].allocated; y = h->b[y].next) bytes += h->b[y].size;
        if (bytes >= size) return c;
    }
    /* a new segment (the first: one never fills its address space) */
    uint32_t x = blk_new(h);
    if (x == NIL) return NIL;
    p = &h->pools[pi];
    p->seg_base = h->next_addr;
    h->next_addr += SEG_SPACE;
    h->b[x].addr = p->seg_base;
    h->b[x].size = SEG_SPACE;
    h->b[x].pool = pi;
    h->b[x].expandable = 1;
    if (unmapped_add(h, p, x)) return NIL;
    return x;
}

static uint32_t try_allocate_expandable(heap *h, uint32_t pi, uint64_t size, int *nomem)
{
    uint32_t c = find_expandable_block(h, pi, size);
    if (c == NIL) { *nomem = 1; return NIL; }
    if (!h->b[c].mapped) {
        int r = map_block(h, c, size < h->b[c].size ? size : h->b[c].size);
        if (r <= 0) { *nomem = r < 0; return NIL; }
    }
    while (h->b[c].size < size) {
        uint64_t rem = size - h->b[c].size;
        uint32_t nc = h->b[c].next;
        int r = map_block(h, nc, rem < h->b[nc].size ? rem : h->b[nc].size);
        if (r <= 0) { *nomem = r < 0; return NIL; }
        c = nc;  /* it took c in */
    }
    tree_del(h, c);
    return c;
}

/* A new segment (cudaMalloc) or more mapped pages; NIL when the device has no room. */
static uint32_t alloc_block(heap *h, uint32_t pi, uint64_t size, uint64_t alloc_size, int *nomem)
{
    if (h->o.expandable) return try_allocate_expandable(h, pi, size, nomem);
    if (h->base.limit != VT_AM_NO_LIMIT && h->base.st.reserved + alloc_size > h->base.limit) return NIL;
    uint32_t x = blk_new(h);
    if (x == NIL) { *nomem = 1; return NIL; }
    /* The driver hands out a new segment below the ones before it (as cudaMalloc's
     * addresses on the H200 go down), and best fit prefers the lowest address among
     * equal sizes: so the newest equal segment wins, as in PyTorch. Giving them rising
     * addresses instead cost one 90 MiB segment on BERT-base (docs/fit.md). */
    h->next_addr -= (alloc_size + 2 * MIB - 1) / (2 * MIB) * (2 * MIB);
    h->b[x].addr = h->next_addr;
    h->b[x].size = alloc_size;
    h->b[x].pool = pi;
    h->b[x].mapped = 1;
    h->base.st.reserved += alloc_size;
    h->base.st.segments++;
    h->base.st.device_allocs++;
    return x;
}

/* Frees oversize cached blocks (max_split_size) until one request fits. */
static int release_available_cached_blocks(heap *h, uint32_t pi, uint64_t size)
{
    uint64_t msplit = h->base.conf.max_split_size;
    if (msplit == UINT64_MAX || h->o.expandable) return 0;
    pool_t *p = &h->pools[pi];
    uint64_t key = size < msplit ? msplit : size;
    uint32_t x = tr_lower(h, p->root, key);
    if (x != NIL) {
        release_block(h, x);
        return 1;
    }
    uint64_t released = 0;
    for (x = tr_max(h, p->root); x != NIL && released < key && h->b[x].size >= msplit;) {
        uint32_t pv = tr_prev(h, p->root, x);
        released += h->b[x].size;
        release_block(h, x);
        x = pv;
    }
    return released >= key;
}

/* Frees every unsplit cached segment (and unmaps the free pages of expandable ones). */
static int release_blocks(heap *h, uint32_t pi)
{
    h->nscratch = 0;
    if (tr_collect(h, h->pools[pi].root)) return -1;
    size_t n = h->nscratch, k = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t x = h->scratch[i];
        if (h->b[x].expandable) h->scratch[k++] = x;
        else if (h->b[x].prev == NIL && h->b[x].next == NIL) release_block(h, x);
    }
    for (size_t i = 0; i < k; i++)
        if (unmap_block(h, h->scratch[i])) return -1;
    return 0;
}

static int release_cached_blocks(heap *h)
{
    for (int small = 0; small <= 1; small++)
        for (size_t i = (size_t)small; i < h->npools; i += 2)
            if (h->pools[i].used && release_blocks(h, (uint32_t)i)) return -1;
    return 0;
}

static int garbage_collect(heap *h)
{
    uint64_t thr = (uint64_t)(h->base.conf.gc_threshold * (double)h->base.limit);
    if (h->base.st.reserved <= thr) return 0;
    uint64_t target = h->base.st.reserved - thr, reclaimed = 0, total_age = 0, count = 0;
    h->nscratch = 0;
    for (size_t i = 0; i < h->npools; i += 2)
        if (h->pools[i].used && tr_collect(h, h->pools[i].root)) return -1;
    for (size_t i = 0; i < h->nscratch; i++) {
        blk *b = &h->b[h->scratch[i]];
        if (b->prev == NIL && b->next == NIL && !b->expandable) {
            total_age += h->gc_calls[0] - b->gc_base;
            count++;
        }
    }
    int freed = 1;
    while (reclaimed < target && freed && count > 0) {
        double age_thr = (double)total_age / (double)count;
        freed = 0;
        for (size_t i = 0; i < h->nscratch; i++) {
            uint32_t x = h->scratch[i];
            if (x == NIL) continue;
            blk *b = &h->b[x];
            uint64_t age = h->gc_calls[0] - b->gc_base;
            if (b->prev == NIL && b->next == NIL && !b->expandable && (double)age >= age_thr) {
                freed = 1;
                reclaimed += b->size;
                total_age -= age;
                count--;
                h->scratch[i] = NIL;
                release_block(h, x);
            }
        }
    }
    return 0;
}

static int heap_alloc(vt_am *m, uint64_t osize, uint32_t stream, uint32_t *handle)
{
    heap *h = (heap *)m;
    uint64_t size = h->o.round_512_only ? (osize < K_MIN_BLOCK ? K_MIN_BLOCK : (osize + 511) / 512 * 512)
                                        : vt_am_round_size(&m->conf, osize);
    int small = !h->o.one_pool && size <= K_SMALL_SIZE;
    uint32_t pi = pool_of(h, stream, small);
    if (pi == NIL) return VT_AM_NOMEM;
    uint64_t alloc_size = vt_am_segment_size(size);
    int nomem = 0;
    uint32_t x = get_free_block(h, pi, size);
    if (x == NIL) {
        if (m->limit != VT_AM_NO_LIMIT && m->conf.gc_threshold > 0 && garbage_collect(h)) return VT_AM_NOMEM;
        x = alloc_block(h, pi, size, alloc_size, &nomem);
        if (x == NIL && !nomem && release_available_cached_blocks(h, pi, size))
            x = alloc_block(h, pi, size, alloc_size, &nomem);
        if (x == NIL && !nomem) {
            if (release_cached_blocks(h)) return VT_AM_NOMEM;
            m->st.retries++;
            x = alloc_block(h, pi, size, alloc_size, &nomem);
        }
        if (nomem) return VT_AM_NOMEM;
        if (x == NIL) return VT_AM_OOM;
    }
    /* split what remains off when the allocator would */
    blk *b = &h->b[x];
    uint64_t remaining = b->size - size;
    int split = (h->pools[pi].is_small && !h->o.one_pool) || h->o.expandable
                    ? remaining >= K_MIN_BLOCK
                    : size < m->conf.max_split_size && remaining > K_SMALL_SIZE;
    if (split) {
        uint32_t r = blk_new(h);
        if (r == NIL) return VT_AM_NOMEM;
        b = &h->b[x];
        blk *rb = &h->b[r];
        rb->addr = b->addr + size;
        rb->size = remaining;
        rb->pool = b->pool;
        rb->mapped = 1;
        rb->expandable = b->expandable;
        rb->prev = x;
        rb->next = b->next;
        if (b->next != NIL) h->b[b->next].prev = r;
        b->next = r;
        b->size = size;
        tree_add(h, r);
    }
    b->allocated = 1;
    m->st.allocated += b->size;
    vt_am_settle(&m->st);
    *handle = x;
    return VT_AM_OK;
}

static void heap_release(vt_am *m, uint32_t x)
{
    heap *h = (heap *)m;
    h->b[x].allocated = 0;
    m->st.allocated -= h->b[x].size;
    try_merge(h, x, h->b[x].prev);
    try_merge(h, x, h->b[x].next);
    tree_add(h, x);
}

static void heap_destroy(vt_am *m)
{
    heap *h = (heap *)m;
    for (size_t i = 0; i < h->npools; i++) free(h->pools[i].unmapped);
    free(h->pools);
    free(h->b);
    free(h->scratch);
    free(h);
}

static const vt_am_ops heap_ops = { heap_alloc, heap_release, heap_destroy };

vt_am *vt_am_heap_new(vt_am_kind kind, const vt_am_heap_opts *o, const vt_am_conf *c, uint64_t limit)
{
    heap *h = calloc(1, sizeof *h);
    if (!h) return NULL;
    h->base.ops = &heap_ops;
    h->base.kind = kind;
    h->base.conf = *c;
    h->base.limit = limit;
    h->o = *o;
    if (o->round_512_only) {
        h->base.conf.max_split_size = UINT64_MAX;
        memset(h->base.conf.rp2_div, 0, sizeof h->base.conf.rp2_div);
    }
    h->free_head = NIL;
    /* the top of the segments' address space: they grow down from it (alloc_block);
     * expandable segments' reservations go up from it */
    h->next_addr = 1ull << 47;
    h->rng = 2463534242u;
    return &h->base;
}
