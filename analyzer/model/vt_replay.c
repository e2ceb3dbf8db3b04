// SPDX-License-Identifier: MIT
/* vt_replay.c - the live-set model (see vt_replay.h for the peak algorithm). */
#include "vt_replay_int.h"
#include "vt_layer.h"
#include "vt_ctrl.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* ------------------------------------------------------------------------ *
 *  Setup
 * ------------------------------------------------------------------------ */
vt_replay *vt_replay_new(int trace, uint64_t rt_base)
{
    vt_replay *rp = calloc(1, sizeof *rp);
    if (!rp) return NULL;
    rp->trace = trace;
    rp->rt_base = rt_base;
    rp->stop_time = UINT64_MAX;
    rp->pause_t0 = UINT64_MAX;
    rp->host.trace = trace;
    rp->res.trace = trace;
    rp->res.rt_base = rt_base;
    rp->res.stop_time = UINT64_MAX;
    return rp;
}

void vt_replay_set_global(vt_replay *rp, vt_tracker *global)
{
    rp->global = rp->res.global = global;
}

void vt_replay_set_stop(vt_replay *rp, uint64_t stop_time, const char *stop_mark)
{
    rp->stop_time = stop_time;
    rp->stop_mark = stop_mark;
}

void vt_replay_set_merged(vt_replay *rp, vt_replay_merged_fn fn, void *ctx)
{
    rp->merged = fn;
    rp->merged_ctx = ctx;
}

void vt_replay_keep_catlog(vt_replay *rp)
{
    rp->catlog = calloc(1, sizeof *rp->catlog);
}

void vt_replay_free(vt_replay *rp)
{
    if (!rp) return;
    for (int i = 0; i < VT_NDEV; i++) free(rp->dev[i]);
    vt_live_free(&rp->live);
    vt_idmap_free(&rp->vmm_ix);
    free(rp->vmm_counts);
    free(rp->stack_group);
    free(rp->groups);
    vt_idmap_free(&rp->group_ix);
    vt_idmap_free(&rp->role_ix);
    vt_idmap_free(&rp->seg_ix);
    free(rp->segs);
    free(rp->spans);
    vt_idmap_free(&rp->pool_blocks);
    free(rp->nodes);
    vt_idarr_free(&rp->node_ix);
    vt_idarr_free(&rp->string_ix);
    free(rp->strings);
    vt_idarr_free(&rp->pyframe_ix);
    vt_layers_free(rp->layers);
    free(rp->pyframes);
    free(rp->modules);
    free(rp->ooms);
    free(rp->marks);
    free(rp->srcs);
    vt_idmap_free(&rp->src_ix);
    free(rp->syms);
    if (rp->catlog) {
        vt_catlog_free(rp->catlog);
        free(rp->catlog);
    }
    vt_arena_free(&rp->arena);
    free(rp);
}

static vt_device *device_get(vt_replay *rp, int device)
{
    if (device < -1 || device >= VT_NDEV - 1) device = -1;
    vt_device *d = rp->dev[device + 1];
    if (!d) {
        d = calloc(1, sizeof *d);
        if (!d) return NULL;
        d->dev.trace = d->managed.trace = rp->trace;
        rp->dev[device + 1] = d;
    }
    d->seen = 1;
    return d;
}

/* Grows an array of n used elements to hold one more. */
static int reserve(void **p, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap) return 0;
    size_t c = *cap ? *cap * 2 : 64;
    void *q = realloc(*p, c * elem);
    if (!q) return -1;
    *p = q;
    *cap = c;
    return 0;
}

/* Groups: like reserve, but 64-byte aligned (vt_group's hot fields fill one cache line). */
static int groups_resize(vt_replay *rp, size_t cap)
{
    vt_group *g = aligned_alloc(64, cap * sizeof *g);
    if (!g) return -1;
    if (rp->ngroups) memcpy(g, rp->groups, rp->ngroups * sizeof *g);
    free(rp->groups);
    rp->groups = g;
    rp->groups_cap = cap;
    return 0;
}

/* Gives back the unused end of an array (its elements never move: realloc may). */
static void shrink(void **p, size_t *cap, size_t n, size_t elem)
{
    if (!*p || n == *cap) return;
    void *q = realloc(*p, (n ? n : 1) * elem);
    if (!q) return;
    *p = q;
    *cap = n ? n : 1;
}

/* The [references, mappings] of a VMM handle, made (zero) when create is set; NULL
 * when it has none or memory ran out. Valid until the next one is made. */
static uint32_t *vmm_counts(vt_replay *rp, uint64_t handle, int create)
{
    uint32_t *ix = vt_idmap_get(&rp->vmm_ix, handle);
    if (ix) return &rp->vmm_counts[2 * (size_t)*ix];
    if (!create) return NULL;
    if (reserve((void **)&rp->vmm_counts, &rp->vmm_cap, rp->nvmm, 2 * sizeof *rp->vmm_counts) ||
        vt_idmap_put(&rp->vmm_ix, handle, (uint32_t)rp->nvmm)) {
        rp->nomem = 1;
        return NULL;
    }
    uint32_t *c = &rp->vmm_counts[2 * rp->nvmm++];
    c[0] = c[1] = 0;
    return c;
}

/* ------------------------------------------------------------------------ *
 *  Groups and trackers
 * ------------------------------------------------------------------------ */
/* Moves on with every tracker's epoch, of whatever replay: a group whose `gen` equals
 * it has no peak to catch up with, which one compare tells (against up to three
 * trackers' epochs otherwise, at every event). Global because the trackers it stands
 * for are shared by replays (the analysis's total, merged devices) and added to groups
 * from outside (vt_series.c, vt_export_csv.c); replays run on the caller's thread. */
static uint64_t peak_gen = 1;

static uint32_t group_find(vt_replay *rp, uint32_t stack_id, unsigned kind, int device);
static uint32_t group_new(vt_replay *rp, uint32_t stack_id, unsigned kind, int device, unsigned role,
                          vt_layer_ctr *layer);

/* Stack ids are the recorder's node ids, counted from 1, so an array indexed by them
 * is about as large as the stack tree; ids far beyond what the tree holds (damage) are
 * left to the hashed paths. SG_WAYS groups per stack (16 bytes: one cache line), the
 * last one used first: a stack may allocate more than one kind (gen_trace's stacks
 * take up to three, and with two ways the third went to the hash map at every turn). */
#define SG_WAYS 4

static void stack_group_note(vt_replay *rp, uint32_t stack_id, uint32_t gi)
{
    if (stack_id >= rp->nstack_group) {
        if (stack_id >= 2 * (rp->nnodes + 4096)) return;
        /* the tree's size, known by then (nodes come before their use), or 1.5x */
        size_t n = rp->nstack_group + rp->nstack_group / 2;
        if (n < rp->nnodes + 1) n = rp->nnodes + 1;
        if (n <= stack_id) n = (size_t)stack_id + 1;
        n = (n + 4095) & ~(size_t)4095;
        uint32_t *p = realloc(rp->stack_group, SG_WAYS * n * sizeof *p);
        if (!p) return;
        memset(p + SG_WAYS * rp->nstack_group, 0, SG_WAYS * (n - rp->nstack_group) * sizeof *p);
        rp->stack_group = p;
        rp->nstack_group = n;
    }
    uint32_t *sg = &rp->stack_group[SG_WAYS * (size_t)stack_id];
    memmove(sg + 1, sg, (SG_WAYS - 1) * sizeof *sg);
    sg[0] = gi + 1;
}

static inline int group_is(const vt_replay *rp, uint32_t gi, uint32_t stack_id, unsigned kind, int device)
{
    if (gi >= rp->ngroups) return 0;
    const vt_group *g = &rp->groups[gi];
    return g->stack_id == stack_id && g->kind == kind && g->device == device && !g->role;
}

static uint32_t group_get(vt_replay *rp, uint32_t stack_id, unsigned kind, int device)
{
    /* As device_get counts it: an ordinal the device arrays cannot hold (a damaged or
     * forged trace: 128 and up arrive as negative int8_t) is the unknown device, so
     * that a group's device always indexes rp->dev. */
    if (device < -1 || device >= VT_NDEV - 1) device = -1;
    if (stack_id < rp->nstack_group) {
        uint32_t *sg = &rp->stack_group[SG_WAYS * (size_t)stack_id];
        for (unsigned w = 0; w < SG_WAYS; w++) {
            if (!group_is(rp, sg[w] - 1, stack_id, kind, device)) continue;
            uint32_t g = sg[w];
            memmove(sg + 1, sg, w * sizeof *sg);
            sg[0] = g;
            return g - 1;
        }
    }
    uint32_t gi = group_find(rp, stack_id, kind, device);
    if (gi != UINT32_MAX) stack_group_note(rp, stack_id, gi);
    return gi;
}

static uint32_t group_find(vt_replay *rp, uint32_t stack_id, unsigned kind, int device)
{
    uint64_t key = stack_id | (uint64_t)(kind & 0xff) << 32 | (uint64_t)(uint8_t)(device + 1) << 40;
    unsigned ci = (unsigned)((key * 0x9e3779b97f4a7c15ull) >> 54);
    if (rp->gcache_key[ci] == key + 1) return rp->gcache_val[ci];
    uint32_t *ix = vt_idmap_get(&rp->group_ix, key);
    if (ix) {
        rp->gcache_key[ci] = key + 1;
        return rp->gcache_val[ci] = *ix;
    }
    uint32_t gi = group_new(rp, stack_id, kind, device, 0, NULL);
    if (gi == UINT32_MAX) return UINT32_MAX;
    if (vt_idmap_put(&rp->group_ix, key, gi)) return UINT32_MAX;
    rp->ngroups++;
    rp->gcache_key[ci] = key + 1;
    return rp->gcache_val[ci] = gi;
}

/* Makes group rp->ngroups (the caller counts it in): of role `role` (0: an ordinary
 * group), its layer counter `layer` when given, else its stack's. */
static uint32_t group_new(vt_replay *rp, uint32_t stack_id, unsigned kind, int device, unsigned role,
                          vt_layer_ctr *layer)
{
    if (rp->ngroups == rp->groups_cap && groups_resize(rp, rp->groups_cap ? rp->groups_cap * 2 : 64))
        return UINT32_MAX;
    vt_device *d = device_get(rp, device);
    if (!d) return UINT32_MAX;
    uint32_t gi = (uint32_t)rp->ngroups;
    vt_group *g = &rp->groups[gi];
    memset(g, 0, sizeof *g);
    g->stack_id = stack_id;
    g->kind = (uint8_t)kind;
    g->device = (int8_t)device;
    g->role = (uint8_t)role;
    g->cls = (uint8_t)vt_kind_class(kind);
    g->site = UINT32_MAX;
    if (g->cls == VT_CLASS_DEVICE) g->layer = layer ? layer : vt_layer_group(rp, stack_id, device);
    if (g->cls == VT_CLASS_DEVICE) {
        g->tk[g->ntk++] = &d->dev;
        if (rp->global) g->tk[g->ntk++] = rp->global;
        if (rp->merged) {
            vt_tracker *m = rp->merged(rp->merged_ctx, rp, device);
            if (m) g->tk[g->ntk++] = m;
        }
    } else if (g->cls == VT_CLASS_MANAGED) {
        g->tk[g->ntk++] = &d->managed;
    } else {
        g->tk[g->ntk++] = &rp->host;
    }
    /* the fast paths reach the trackers as rp->dev[g->device + 1]->dev and rp->global */
    g->fast = g->cls == VT_CLASS_DEVICE && !g->layer && g->ntk == 2 && g->tk[1] == rp->global &&
              g->device == device && g->tk[0] == &rp->dev[device + 1]->dev;
    /* The group did not exist at any peak so far: its value there was 0. */
    for (unsigned k = 0; k < g->ntk; k++) g->stamp[k] = g->tk[k]->epoch;
    g->gen = peak_gen;
    return gi;
}

/* Before a group changes, it remembers its value at the latest peak of each tracker
 * whose peak it has not seen yet. */
static inline void group_touch(vt_group *g)
{
    if (g->gen == peak_gen) return;
    g->gen = peak_gen;
    for (unsigned k = 0; k < g->ntk; k++) {
        const vt_tracker *t = g->tk[k];
        if (g->stamp[k] != t->epoch) {
            g->at_peak[k] = g->live;
            g->at_peak_count[k] = g->live_count;
            g->stamp[k] = t->epoch;
        }
    }
}

static inline void tracker_add(const vt_replay *rp, vt_tracker *t, uint64_t size)
{
    t->live += size;
    t->count++;
    if (t->live > t->peak) {
        t->peak = t->live;
        t->peak_count = t->count;
        t->peak_time = rp->now;
        t->peak_rt = rp->rt_base + rp->now;
        t->trace = rp->trace;
        t->blocks_at_peak = t->blocks;
        t->pool_blocks_at_peak = t->pool_blocks;
        t->epoch++;
        peak_gen++;
    }
}

static inline void group_add(vt_replay *rp, vt_group *g, uint64_t size)
{
    group_touch(g);
    g->live += size;
    g->live_count++;
    if (g->layer) vt_layer_add(g->layer, size, rp->now);
    for (unsigned k = 0; k < g->ntk; k++) tracker_add(rp, g->tk[k], size);
}

static inline void group_sub(vt_group *g, uint64_t size)
{
    group_touch(g);
    /* Sizes come from the allocation record, so these never underflow. */
    g->live -= size;
    g->live_count--;
    if (g->layer) vt_layer_sub(g->layer, size);
    for (unsigned k = 0; k < g->ntk; k++) {
        g->tk[k]->live -= size;
        g->tk[k]->count--;
    }
}

int vt_replay_group_feed(vt_replay *rp, size_t gi, vt_tracker *t)
{
    vt_group *g = &rp->groups[gi];
    if (g->ntk >= VT_MAX_TRACK) return -1;
    g->tk[g->ntk] = t;
    g->stamp[g->ntk] = t->epoch;
    g->ntk++;
    g->fast = 0;  /* the fast paths feed two trackers */
    return 0;
}

/* ------------------------------------------------------------------------ *
 *  PyTorch blocks inside segments (the allocator trace tracker; vt_format.h's
 *  VT_GROUP_IDLE says the model). Bytes move between groups that feed the device's
 *  trackers alike, so no device total changes: it stays what the driver gave.
 * ------------------------------------------------------------------------ */
/* What a move between groups is. SHIFT_POOL: a segment's idle bytes become its private
 * pool's (no block, no segment comes or goes). */
enum { SHIFT_SEG, SHIFT_UNSEG, SHIFT_BLOCK, SHIFT_UNBLOCK, SHIFT_POOL };

static int feeds(const vt_group *g, const vt_tracker *t)
{
    for (unsigned k = 0; k < g->ntk; k++)
        if (g->tk[k] == t) return 1;
    return 0;
}

/* Moves n bytes from group `from` to group `to` (indexes). A block made (SHIFT_BLOCK)
 * gains `to` a live allocation, a block freed loses `from` one. */
static void group_shift(vt_replay *rp, uint32_t from, uint32_t to, uint64_t n, int how)
{
    vt_group *a = &rp->groups[from], *b = &rp->groups[to];
    group_touch(a);
    group_touch(b);
    a->live -= n;
    b->live += n;
    if (how == SHIFT_BLOCK) b->live_count++;
    if (how == SHIFT_UNBLOCK) a->live_count--;
    if (a->layer) vt_layer_sub(a->layer, n);
    if (b->layer) vt_layer_add(b->layer, n, rp->now);
    /* A second replay gives groups trackers of their own (a timeline's series, an
     * export's): the bytes leave the trackers only `from` feeds and reach those only `to`
     * feeds; the device's and the merged ones, fed by both, keep their totals. */
    for (unsigned k = 0; k < a->ntk; k++)
        if (!feeds(b, a->tk[k])) {
            a->tk[k]->live -= n;
            if (how == SHIFT_UNBLOCK) a->tk[k]->count--;
        }
    for (unsigned k = 0; k < b->ntk; k++)
        if (!feeds(a, b->tk[k])) {
            b->tk[k]->live += n;
            if (how == SHIFT_BLOCK) b->tk[k]->count++;
        }
    /* At a peak, the same total can say more: the segment grown at the peak is, a moment
     * later, the block it was grown for. The peak is taken again when a segment is known
     * or the blocks reach a new high while the total stays at the peak, so that what the
     * groups hold at the peak is the most the blocks held then. */
    for (unsigned k = 0; k < a->ntk; k++) {
        vt_tracker *t = a->tk[k];
        if (how == SHIFT_BLOCK) t->blocks += n;
        if (how == SHIFT_UNBLOCK) t->blocks -= n;
        if (how == SHIFT_BLOCK && a->kind == VT_GROUP_POOL) t->pool_blocks += n;
        if (how == SHIFT_UNBLOCK && b->kind == VT_GROUP_POOL) t->pool_blocks -= n;
        if (t->live != t->peak) continue;
        if (how != SHIFT_SEG && !(how == SHIFT_BLOCK && t->blocks > t->blocks_at_peak)) continue;
        t->blocks_at_peak = t->blocks;
        t->pool_blocks_at_peak = t->pool_blocks;
        t->peak_time = rp->now;
        t->peak_rt = rp->rt_base + rp->now;
        t->epoch++;
        peak_gen++;
    }
}

static inline uint64_t seg_key(unsigned space, uint64_t addr) { return addr << 3 | space; }

/* The span that holds addr (index in rp->spans), or the index where a span based at
 * addr would go, with *hit 0. */
static size_t span_at(const vt_replay *rp, uint64_t addr, int *hit)
{
    size_t lo = 0, hi = rp->nspans;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (rp->spans[mid].base <= addr) lo = mid + 1;
        else hi = mid;
    }
    *hit = lo && addr < rp->spans[lo - 1].end;
    return *hit ? lo - 1 : lo;
}

/* Segments are few (hundreds): a sorted array, grown by moving its tail, is enough. */
static void span_add(vt_replay *rp, uint64_t base, uint64_t size, uint32_t seg)
{
    int hit;
    size_t i = span_at(rp, base, &hit);
    if (hit && rp->spans[i].base == base) {  /* the same address grown again */
        rp->spans[i] = (struct vt_seg_span){ base, base + size < base ? UINT64_MAX : base + size, seg };
        return;
    }
    if (hit) i++;
    if (reserve((void **)&rp->spans, &rp->spans_cap, rp->nspans, sizeof *rp->spans)) {
        rp->nomem = 1;
        return;
    }
    memmove(rp->spans + i + 1, rp->spans + i, (rp->nspans - i) * sizeof *rp->spans);
    rp->spans[i] = (struct vt_seg_span){ base, base + size < base ? UINT64_MAX : base + size, seg };
    rp->nspans++;
}

static void span_remove(vt_replay *rp, uint64_t base)
{
    int hit;
    size_t i = span_at(rp, base, &hit);
    if (!hit || rp->spans[i].base != base) return;
    memmove(rp->spans + i, rp->spans + i + 1, (rp->nspans - i - 1) * sizeof *rp->spans);
    rp->nspans--;
}

static void seg_make_pool(vt_replay *rp, vt_seg *sg, int device);

/* The driver allocation (space, addr) is (part of) a PyTorch segment: up to `want` of its
 * bytes become its device's idle bytes (its private pool's, with `pool`). Once per
 * allocation. */
static void seg_take(vt_replay *rp, unsigned space, uint64_t addr, uint64_t want, int pool)
{
    vt_live *e = vt_live_find(&rp->live, space, addr);
    if (!e) return;
    uint32_t gi = vt_live_group(&rp->live, e);
    if (gi >= rp->ngroups) return;
    uint64_t n = vt_live_size(&rp->live, e);
    if (want < n) n = want;
    uint32_t *ix = vt_idmap_get(&rp->seg_ix, seg_key(space, addr));
    if (ix && rp->segs[*ix].moved) return;
    uint32_t ig = group_get(rp, 0, VT_GROUP_IDLE, rp->groups[gi].device);
    if (ig == UINT32_MAX) { rp->nomem = 1; return; }
    if (!ix || rp->segs[*ix].gone) {
        /* a new driver allocation (its address may be an earlier one's): an entry of its own */
        if (reserve((void **)&rp->segs, &rp->segs_cap, rp->nsegs, sizeof *rp->segs) ||
            vt_idmap_put(&rp->seg_ix, seg_key(space, addr), (uint32_t)rp->nsegs)) {
            rp->nomem = 1;
            return;
        }
        ix = vt_idmap_get(&rp->seg_ix, seg_key(space, addr));
        rp->segs[rp->nsegs++] = (vt_seg){ .group = gi };
    }
    vt_seg *sg = &rp->segs[*ix];
    sg->group = gi;
    sg->moved = n;
    sg->pool = 0;
    if (n > sg->bytes) sg->bytes = n;  /* pages mapped again: the same allocation */
    if (space == VT_SPACE_DEVICE_PTR) span_add(rp, addr, n, *ix);
    rp->groups[gi].fast = 0;  /* its frees take the general path, which gives the bytes back */
    group_shift(rp, gi, ig, n, SHIFT_SEG);
    rp->st.torch_segments++;
    if (pool) seg_make_pool(rp, &rp->segs[*ix], rp->groups[gi].device);
}

/* The driver allocation (space, addr) stops being a segment (given back, or freed): its
 * bytes still idle go back to its group. */
static void seg_return(vt_replay *rp, unsigned space, uint64_t addr)
{
    uint32_t *ix = vt_idmap_get(&rp->seg_ix, seg_key(space, addr));
    if (!ix || !rp->segs[*ix].moved) return;
    vt_seg *sg = &rp->segs[*ix];
    if (space == VT_SPACE_DEVICE_PTR) span_remove(rp, addr);
    uint32_t ig = group_find(rp, 0, sg->pool ? VT_GROUP_POOL : VT_GROUP_IDLE, rp->groups[sg->group].device);
    if (ig == UINT32_MAX) { rp->nomem = 1; return; }
    uint64_t n = sg->moved;
    if (rp->groups[ig].live < n) n = rp->groups[ig].live;  /* blocks still live: a lost free */
    group_shift(rp, ig, sg->group, n, SHIFT_UNSEG);
    if (n < sg->moved) {
        /* The driver's free takes the whole allocation from its group; the blocks whose
         * frees were lost keep counting theirs (the trace says it lost events). */
        vt_group *g = &rp->groups[sg->group];
        g->live += sg->moved - n;
        if (g->layer) vt_layer_add(g->layer, sg->moved - n, rp->now);
    }
    sg->moved = 0;
    sg->pool = 0;
}

/* The driver allocation (space, addr) is freed: no segment any more. */
static void seg_gone(vt_replay *rp, unsigned space, uint64_t addr)
{
    seg_return(rp, space, addr);
    uint32_t *ix = vt_idmap_get(&rp->seg_ix, seg_key(space, addr));
    if (ix) rp->segs[*ix].gone = 1;
}

/* Expandable segments: the pages mapped at [va, va + size) are the handles' memory. */
static void seg_pages(vt_replay *rp, uint64_t va, uint64_t size, int take, int pool)
{
    uint64_t end = va + size < va ? UINT64_MAX : va + size;
    for (uint64_t cur = va; cur < end;) {
        vt_live *m = vt_live_find(&rp->live, VT_SPACE_MAPPING, cur);
        if (!m) break;
        uint64_t msize = vt_live_size(&rp->live, m), handle = vt_live_ext_of(&rp->live, m)->aux;
        if (take) seg_take(rp, VT_SPACE_VMM_HANDLE, handle, msize, pool);
        else seg_return(rp, VT_SPACE_VMM_HANDLE, handle);
        if (!msize || cur + msize < cur) break;
        cur += msize;
    }
}

static void on_torch_segment(vt_replay *rp, const vt_rec *r)
{
    switch (r->kind) {
    case VT_VMM_TORCH_SEGMENT:
        seg_take(rp, VT_SPACE_DEVICE_PTR, r->addr, r->size, (r->aux0 & VT_SEG_PRIVATE_POOL) != 0);
        break;
    case VT_VMM_TORCH_UNSEGMENT: seg_return(rp, VT_SPACE_DEVICE_PTR, r->addr); break;
    case VT_VMM_TORCH_MAP: seg_pages(rp, r->addr, r->size, 1, (r->aux0 & VT_SEG_PRIVATE_POOL) != 0); break;
    case VT_VMM_TORCH_UNMAP: seg_pages(rp, r->addr, r->size, 0, 0); break;
    default: break;
    }
}

/* The segment sg is a private pool's: its idle bytes move to the pool's group. */
static void seg_make_pool(vt_replay *rp, vt_seg *sg, int device)
{
    if (sg->pool) return;
    uint32_t pg = group_get(rp, 0, VT_GROUP_POOL, device), ig = group_find(rp, 0, VT_GROUP_IDLE, device);
    if (pg == UINT32_MAX || ig == UINT32_MAX) { rp->nomem = 1; return; }
    uint64_t n = sg->moved < rp->groups[ig].live ? sg->moved : rp->groups[ig].live;
    group_shift(rp, ig, pg, n, SHIFT_POOL);
    sg->pool = 1;
    rp->st.pool_segments++;
}

/* The idle group a block of a private pool at addr takes its bytes from: its segment's
 * pool group, the segment becoming the pool's (its idle bytes move there) at the pool's
 * first block in it, when the segment record did not say so (recorders before
 * VT_SEG_PRIVATE_POOL). A block in no segment grown with cudaMalloc (expandable
 * segments' pages, lost events) takes from the pools' idle bytes when they hold it, else
 * counts as any other: UINT32_MAX. */
static uint32_t pool_group_of(vt_replay *rp, uint64_t addr, uint64_t size, int device)
{
    int hit;
    size_t i = span_at(rp, addr, &hit);
    uint32_t pg = group_get(rp, 0, VT_GROUP_POOL, device);
    if (pg == UINT32_MAX) { rp->nomem = 1; return UINT32_MAX; }
    if (!hit) {
        if (rp->groups[pg].live >= size) return pg;
        rp->st.pool_unplaced++;
        return UINT32_MAX;
    }
    seg_make_pool(rp, &rp->segs[rp->spans[i].seg], device);
    return pg;
}

/* A block is made: its bytes were idle in its device's segments (its private pool's,
 * with VT_RF_PRIVATE_POOL). */
static void block_add(vt_replay *rp, uint32_t gi, uint64_t size, uint64_t addr, unsigned flags)
{
    uint32_t ig = group_get(rp, 0, VT_GROUP_IDLE, rp->groups[gi].device);
    if (ig == UINT32_MAX) { rp->nomem = 1; return; }
    if (flags & VT_RF_PRIVATE_POOL) {
        uint32_t pg = pool_group_of(rp, addr, size, rp->groups[gi].device);
        if (pg != UINT32_MAX) {
            if (vt_idmap_put(&rp->pool_blocks, addr, 1)) { rp->nomem = 1; return; }
            ig = pg;
        }
    }
    uint64_t idle = rp->groups[ig].live, n = size < idle ? size : idle;
    /* Fewer idle bytes than the block: its segment was not seen (lost events, a pause). The
     * block still counts in its group; the device's total does not grow. */
    if (n < size) rp->st.torch_unbacked += size - n;
    group_shift(rp, ig, gi, n, SHIFT_BLOCK);
    if (n < size) {
        vt_group *g = &rp->groups[gi];
        g->live += size - n;
        if (g->layer) vt_layer_add(g->layer, size - n, rp->now);
    }
}

static void block_sub(vt_replay *rp, uint32_t gi, uint64_t size, uint64_t addr)
{
    unsigned kind = VT_GROUP_IDLE;
    uint32_t *pb = rp->pool_blocks.n ? vt_idmap_get(&rp->pool_blocks, addr) : NULL;
    if (pb && *pb) {
        *pb = 0;
        kind = VT_GROUP_POOL;
    }
    uint32_t ig = group_find(rp, 0, kind, rp->groups[gi].device);
    if (ig == UINT32_MAX) { rp->nomem = 1; return; }
    group_shift(rp, gi, ig, size, SHIFT_UNBLOCK);
}

/* ------------------------------------------------------------------------ *
 *  Events
 * ------------------------------------------------------------------------ */
/* What the live entry e's memory leaves in its group, its lifetimes and the category
 * log when it goes back (freed, or its free lost and the address taken again). */
static void group_release(vt_replay *rp, const vt_live *e)
{
    uint32_t gi = vt_live_group(&rp->live, e);
    if (gi >= rp->ngroups) return;
    unsigned space = vt_live_space(e);
    if (space == VT_SPACE_TORCH_BLOCK) {
        block_sub(rp, gi, vt_live_size(&rp->live, e), e->addr);
    } else {
        if (rp->nsegs) seg_gone(rp, space, e->addr);
        group_sub(&rp->groups[gi], vt_live_size(&rp->live, e));
    }
    vt_group *g = &rp->groups[gi];
    g->free_times += rp->now;
    /* only ext entries can have been logged (vt_live.h) */
    if (rp->catlog && g->cls == VT_CLASS_DEVICE && vt_live_is_ext(e))
        vt_catlog_push_free(rp->catlog, gi, rp->now, vt_live_ext_of(&rp->live, e)->logix);
}

/* The key of the part of an annotated allocation beyond the buffer it holds (the
 * allocator's rounding, on_annotate), kept as an entry of its own. */
#define VT_SPACE_SLACK 6
static inline uint64_t slack_key(unsigned space, uint64_t addr)
{
    return space == VT_SPACE_DEVICE_PTR ? addr : addr | 1ull << 63;
}

/* Drops the live entry e: the memory goes back (with its rounding's entry, if any). */
static void release(vt_replay *rp, vt_live *e)
{
    unsigned space = vt_live_space(e);
    uint64_t addr = e->addr;
    group_release(rp, e);
    vt_live_delete(&rp->live, e);
    if (rp->keep_times) {
        vt_live *s = vt_live_find(&rp->live, VT_SPACE_SLACK, slack_key(space, addr));
        if (s) {
            uint32_t gi = vt_live_group(&rp->live, s);
            if (gi < rp->ngroups) {
                vt_group *g = &rp->groups[gi];
                group_touch(g);
                g->live -= vt_live_size(&rp->live, s);
                if (g->layer) vt_layer_sub(g->layer, vt_live_size(&rp->live, s));
                for (unsigned k = 0; k < g->ntk; k++) g->tk[k]->live -= vt_live_size(&rp->live, s);
            }
            vt_live_delete(&rp->live, s);
        }
    }
}

/* An allocation of a device group that the category log may still ask about: one it
 * logs, or (with times out of order across threads) one older than the log's end. Its
 * live entry keeps its time and log index (vt_live.h). */
static inline int catlog_may_ask(const vt_replay *rp, const vt_group *g, uint64_t t)
{
    const vt_catlog *l = rp->catlog;
    return l && g->cls == VT_CLASS_DEVICE && (!l->full || t < l->full_time);
}

static void on_alloc(vt_replay *rp, const vt_ev *r)
{
    unsigned space = vt_kind_space(r->kind);
    if (space == VT_SPACE_NONE || r->kind >= VT_KIND_ALLOC_MAX) {
        rp->st.unknown_records++;
        return;
    }
    rp->st.allocs++;
    uint32_t gi = group_get(rp, r->stack_id, r->kind, r->device);
    if (gi == UINT32_MAX) { rp->nomem = 1; return; }
    int fresh;
    vt_live *e = vt_live_upsert(&rp->live, space, r->addr, &fresh);
    if (!e) { rp->nomem = 1; return; }
    if (!fresh) {
        /* Its free was not recorded (lost events); the address is in use again. */
        rp->st.allocs_replaced++;
        group_release(rp, e);
    }
    vt_group *g = &rp->groups[gi];
    int keep = catlog_may_ask(rp, g, r->time_ns) || (rp->keep_times && g->cls == VT_CLASS_DEVICE);
    uint32_t logix = rp->catlog && g->cls == VT_CLASS_DEVICE
                         ? vt_catlog_push_alloc(rp->catlog, gi, r->time_ns, r->size) : VT_CATLOG_NONE;
    if (vt_live_set(&rp->live, e, space, r->addr, r->size, gi, r->time_ns, logix, keep)) {
        rp->nomem = 1;
        return;
    }
    if (space == VT_SPACE_VMM_HANDLE) {
        uint32_t *c = vmm_counts(rp, r->addr, 1);
        if (c) {
            c[0] = 1;
            c[1] = 0;
        }
    }
    g->nallocs++;
    g->total_bytes += r->size;
    g->alloc_times += r->time_ns;
    if (space == VT_SPACE_TORCH_BLOCK) {
        rp->st.torch_blocks++;
        rp->block_at = r->time_ns;
        block_add(rp, gi, r->size, r->addr, r->flags);
        g = &rp->groups[gi];  /* the idle group may have been made */
    } else {
        group_add(rp, g, r->size);
    }
    vt_life_alloc(&g->life, g->nallocs, r->time_ns);
}

static void on_free(vt_replay *rp, const vt_ev *r)
{
    unsigned space = vt_kind_space(r->kind);
    rp->st.frees++;
    vt_live *e = space ? vt_live_find(&rp->live, space, r->addr) : NULL;
    if (!e) {
        rp->st.frees_unmatched++;
        return;
    }
    if (space == VT_SPACE_VMM_HANDLE) {
        /* cuMemRelease drops a reference; mappings keep the memory until unmapped. */
        uint32_t *c = vmm_counts(rp, r->addr, 0);
        if (c) {
            if (c[0]) c[0]--;
            if (c[0] || c[1]) return;
        }
    }
    release(rp, e);
}

static void unmap_one(vt_replay *rp, vt_live *m)
{
    uint64_t handle = vt_live_ext_of(&rp->live, m)->aux;  /* mappings are ext entries */
    vt_live_delete(&rp->live, m);
    rp->mappings--;
    vt_live *h = vt_live_find(&rp->live, VT_SPACE_VMM_HANDLE, handle);
    if (!h) return;
    uint32_t *c = vmm_counts(rp, handle, 0);
    if (c && c[1]) c[1]--;
    if (!c || (!c[0] && !c[1])) release(rp, h);
}

static void on_unmap(vt_replay *rp, uint64_t va, uint64_t size)
{
    uint64_t end = va + size < va ? UINT64_MAX : va + size;
    uint64_t cur = va;
    /* Mappings of one range usually sit back to back: follow them from va. */
    while (cur < end) {
        vt_live *m = vt_live_find(&rp->live, VT_SPACE_MAPPING, cur);
        if (!m) break;
        uint64_t msize = vt_live_size(&rp->live, m);
        unmap_one(rp, m);
        if (!msize || cur + msize < cur) break;
        cur += msize;
    }
    if (cur >= end || !rp->mappings) return;
    /* A gap: look for any other mapping that starts inside the range. Rare, so the
     * full scan is acceptable; restart after each removal since deletion moves entries. */
    for (int again = 1; again;) {
        again = 0;
        for (size_t i = 0; rp->live.tab && i <= rp->live.mask; i++) {
            vt_live *m = &rp->live.tab[i];
            if (vt_live_space(m) == VT_SPACE_MAPPING && m->addr >= va && m->addr < end) {
                unmap_one(rp, m);
                again = 1;
                break;
            }
        }
    }
}

static void on_vmm(vt_replay *rp, const vt_rec *r)
{
    rp->st.vmm_ops++;
    switch (r->kind) {
    case VT_VMM_MAP: {
        vt_live *old = vt_live_find(&rp->live, VT_SPACE_MAPPING, r->addr);
        if (old) unmap_one(rp, old); /* its unmap was not recorded */
        uint32_t *c = vt_live_find(&rp->live, VT_SPACE_VMM_HANDLE, r->aux1) ? vmm_counts(rp, r->aux1, 0) : NULL;
        if (c) c[1]++;
        vt_live *m = vt_live_insert(&rp->live, VT_SPACE_MAPPING, r->addr);
        if (!m || vt_live_set(&rp->live, m, VT_SPACE_MAPPING, r->addr, r->size, VT_LIVE_NO_GROUP, r->aux1,
                              VT_CATLOG_NONE, 1)) {
            rp->nomem = 1;
            return;
        }
        rp->mappings++;
        break;
    }
    case VT_VMM_UNMAP:
        on_unmap(rp, r->addr, r->size);
        break;
    case VT_VMM_RETAIN: {
        uint32_t *c = vt_live_find(&rp->live, VT_SPACE_VMM_HANDLE, r->aux1) ? vmm_counts(rp, r->aux1, 0) : NULL;
        if (c) c[0]++;
        break;
    }
    default: /* RESERVE, ADDRESS_FREE: address space only, no memory */
        break;
    }
}

/* PyTorch's allocator reports an OOM (a TORCH_BLOCK one) after its own driver calls
 * failed, it freed its cache and tried again: those failed calls, on the same thread
 * since it last handed out a block, are its attempts at this request, not OOMs of
 * their own. Under a cap of its own (set_per_process_memory_fraction) there are none. */
static void drop_attempts(vt_replay *rp, const vt_rec *r)
{
    while (rp->nooms) {
        const vt_oom *p = &rp->ooms[rp->nooms - 1];
        if (p->kind == VT_KIND_TORCH_BLOCK || vt_kind_class(p->kind) != VT_CLASS_DEVICE || p->device != r->device
            || p->tid != r->tid || p->time < rp->block_at)
            break;
        rp->nooms--;
        rp->st.ooms--;
    }
}

static void on_oom(vt_replay *rp, const vt_rec *r)
{
    if (r->kind == VT_KIND_TORCH_BLOCK) drop_attempts(rp, r);
    rp->st.ooms++;
    if (reserve((void **)&rp->ooms, &rp->ooms_cap, rp->nooms, sizeof *rp->ooms)) {
        rp->nomem = 1;
        return;
    }
    vt_device *d = device_get(rp, r->device);
    vt_oom *o = &rp->ooms[rp->nooms++];
    memset(o, 0, sizeof *o);
    o->time = r->time_ns;
    o->kind = r->kind;
    o->device = r->device;
    o->stack_id = r->stack_id;
    o->tid = r->tid;
    o->site = UINT32_MAX;
    o->size = r->size;
    o->free_bytes = r->aux0;
    o->total_bytes = r->aux1;
    vt_class cls = vt_kind_class(r->kind);
    o->live = d ? (cls == VT_CLASS_HOST ? rp->host.live : cls == VT_CLASS_MANAGED ? d->managed.live : d->dev.live) : 0;
    if (rp->nooms > VT_OOM_SNAPS) return;
    /* What was live then, by group: O(groups) once per OOM, for the first few. */
    size_t n = 0;
    for (size_t i = 0; i < rp->ngroups; i++)
        if (rp->groups[i].live && rp->groups[i].device == r->device && rp->groups[i].cls == cls) n++;
    if (!n) return;
    o->snap_group = vt_arena_alloc(&rp->arena, n * sizeof *o->snap_group);
    o->snap_bytes = vt_arena_alloc(&rp->arena, n * sizeof *o->snap_bytes);
    if (!o->snap_group || !o->snap_bytes) { rp->nomem = 1; return; }
    for (size_t i = 0; i < rp->ngroups; i++) {
        const vt_group *g = &rp->groups[i];
        if (g->live && g->device == r->device && g->cls == cls) {
            o->snap_group[o->nsnap] = (uint32_t)i;
            o->snap_bytes[o->nsnap++] = g->live;
        }
    }
}

static void on_nvml(vt_replay *rp, const vt_rec *r)
{
    if (r->device < -1) return;
    vt_nvml *n = &rp->nvml[r->device + 1];
    n->seen = 1;
    n->samples++;
    n->total = r->aux1;
    int proc = r->aux0 != 0;
    uint64_t pv = proc ? r->aux0 - 1 : 0;
    if (proc)
        for (int i = 0; i < VT_NVML_SNAP; i++) {
            uint64_t live = rp->dev[i + 1] ? rp->dev[i + 1]->dev.live : 0;
            uint64_t over = pv > live ? pv - live : 0;
            if (!n->has_proc || over < n->proc_over_min[i]) n->proc_over_min[i] = over;
        }
    if (proc && (!n->has_proc || pv > n->proc_max)) {
        n->has_proc = 1;
        n->proc_max = pv;
        n->proc_max_time = r->time_ns;
        for (int i = 0; i < VT_NVML_SNAP; i++) {
            n->proc_snap[i] = rp->dev[i + 1] ? rp->dev[i + 1]->dev.live : 0;
            n->slack_snap[i] = rp->pool[i + 1].cur_slack;
            n->reserved_snap[i] = rp->pool[i + 1].cur_reserved;
        }
    }
    if (r->size > n->used_max || n->samples == 1) {
        n->used_max = r->size;
        n->used_max_time = r->time_ns;
        for (int i = 0; i < VT_NVML_SNAP; i++)
            n->used_snap[i] = rp->dev[i + 1] ? rp->dev[i + 1]->dev.live : 0;
    }
}

/* ------------------------------------------------------------------------ *
 *  Annotations: a program named a buffer's role (docs/trace-format.md, ANNOTATE)
 * ------------------------------------------------------------------------ */
/* The annotated group of (group gi, role, layer STRING id): made when new. */
static uint32_t role_group(vt_replay *rp, uint32_t gi, unsigned role, uint32_t layer_sid)
{
    uint64_t key = gi | (uint64_t)role << 32 | (uint64_t)(layer_sid & ((1u << 29) - 1)) << 35;
    uint32_t *ix = vt_idmap_get(&rp->role_ix, key);
    if (ix) return *ix;
    const vt_group *g = &rp->groups[gi];
    vt_layer_ctr *layer = layer_sid && g->cls == VT_CLASS_DEVICE ? vt_layer_named(rp, layer_sid, g->device) : NULL;
    uint32_t ri = group_new(rp, g->stack_id, g->kind, g->device, role, layer);
    if (ri == UINT32_MAX || vt_idmap_put(&rp->role_ix, key, ri)) return UINT32_MAX;
    rp->ngroups++;
    return ri;
}

static int tracker_index(const vt_group *g, const vt_tracker *t)
{
    for (unsigned k = 0; k < g->ntk; k++)
        if (g->tk[k] == t) return (int)k;
    return -1;
}

/* Moves the live allocation e (size bytes, made at t_alloc, UINT64_MAX: unknown) from
 * group `from` to group `to`, as if it had been in `to` since it was made: lifetimes,
 * layer counters, trackers either group alone feeds, and the value both had at each
 * tracker's latest peak when the allocation was live then (the one thing that makes the
 * move retroactive: a step's outputs are named once the step has returned, after the
 * peak they made). */
static void group_move(vt_replay *rp, uint32_t from, uint32_t to, uint64_t size, uint64_t t_alloc, int whole)
{
    vt_group *g = &rp->groups[from], *h = &rp->groups[to];
    group_touch(g);
    group_touch(h);
    uint64_t t = t_alloc != UINT64_MAX ? t_alloc : rp->now;
    g->live -= size; g->total_bytes -= size;
    h->live += size; h->total_bytes += size;
    if (whole) {  /* the allocation itself, not only some of its bytes */
        g->live_count--; g->nallocs--; g->alloc_times -= t;
        h->live_count++; h->nallocs++; h->alloc_times += t;
        if (!h->life.first_alloc || t < h->life.first_alloc) h->life.first_alloc = t;
    }
    if (g->layer != h->layer) {
        if (g->layer) vt_layer_sub(g->layer, size);
        if (h->layer) vt_layer_add(h->layer, size, t);
    }
    for (unsigned k = 0; k < g->ntk; k++) {
        vt_tracker *tk = g->tk[k];
        int j = tracker_index(h, tk);
        if (j < 0) {  /* h does not feed it: the bytes leave it */
            tk->live -= size;
            tk->count -= (uint64_t)whole;
            continue;
        }
        if (t_alloc != UINT64_MAX && tk->trace == rp->trace && tk->peak && t_alloc <= tk->peak_time &&
            g->at_peak[k] >= size && (!whole || g->at_peak_count[k])) {
            g->at_peak[k] -= size;
            h->at_peak[j] += size;
            if (whole) {
                g->at_peak_count[k]--;
                h->at_peak_count[j]++;
            }
        }
    }
    for (unsigned j = 0; j < h->ntk; j++)
        if (tracker_index(g, h->tk[j]) < 0) {
            tracker_add(rp, h->tk[j], size);
            if (!whole) h->tk[j]->count--;
        }
}

static void on_annotate(vt_replay *rp, const vt_rec *r)
{
    if (!r->addr) {  /* the announcement: annotations will follow */
        rp->keep_times = 1;
        return;
    }
    unsigned role = r->kind < VT_ROLE_MAX ? r->kind : 0;
    unsigned space = VT_SPACE_DEVICE_PTR;
    vt_live *e = vt_live_find(&rp->live, space, r->addr);
    if (!e) {
        /* Mapped VMM memory (XLA's platform allocator maps each buffer): the handle
         * whose mapping starts at the buffer. */
        vt_live *m = vt_live_find(&rp->live, VT_SPACE_MAPPING, r->addr);
        if (m) {
            space = VT_SPACE_VMM_HANDLE;
            e = vt_live_find(&rp->live, space, vt_live_ext_of(&rp->live, m)->aux);
        }
    }
    /* A buffer at the start of a block the framework carves buffers from (XLA's
     * preallocation) is not that block: an allocation of its own is at most the
     * allocator's rounding larger (VMM granularity, 2 MiB, or an eighth). */
    if (e && r->size) {
        uint64_t have = vt_live_size(&rp->live, e);
        if (have > r->size && have - r->size > (2u << 20) && have - r->size > r->size / 8) e = NULL;
    }
    if (!e) {
        /* Inside a block the framework carved it from (XLA's preallocation): no
         * allocation of its own. Counted by role per batch (one pytree of one call). */
        if (role && r->kind < VT_ROLE_MAX) {
            if (rp->annot_batch[role] != r->aux1) {
                rp->annot_batch[role] = r->aux1;
                rp->annot_bytes[role] = 0;
            }
            rp->annot_bytes[role] += r->size;
            if (rp->annot_bytes[role] > rp->annot_max[role]) rp->annot_max[role] = rp->annot_bytes[role];
        }
        return;
    }
    uint32_t gi = vt_live_group(&rp->live, e);
    if (gi >= rp->ngroups) return;
    vt_group *g = &rp->groups[gi];
    unsigned from_role = g->role;   /* g moves when groups are made below */
    if (!from_role && !role) return;
    /* the ordinary group it came from: annotated groups are keyed by it */
    uint32_t base = from_role ? group_find(rp, g->stack_id, g->kind, g->device) : gi;
    if (base == UINT32_MAX) { rp->nomem = 1; return; }
    uint32_t to = role ? role_group(rp, base, role, (uint32_t)r->aux0) : base;
    if (to == UINT32_MAX) { rp->nomem = 1; return; }
    if (to == gi) return;  /* already so: a donated buffer, named again at every step */
    uint64_t size = vt_live_size(&rp->live, e), key = e->addr;
    int ext = vt_live_is_ext(e);
    uint64_t aux = ext ? vt_live_ext_of(&rp->live, e)->aux : UINT64_MAX;
    uint32_t logix = ext ? vt_live_ext_of(&rp->live, e)->logix : VT_CATLOG_NONE;
    group_move(rp, gi, to, size, aux, 1);
    if (rp->catlog && logix != VT_CATLOG_NONE && logix < rp->catlog->n) rp->catlog->e[logix].group = to;
    /* The allocator rounded the buffer up (VMM granularity: 2 MiB for a bias of 4 KiB):
     * the buffer's bytes take the role, the rest goes to an entry of its own in the
     * rounding group of the base (category other), so that a role holds what the
     * program's pytrees hold. Done once, when the allocation first gets a role. */
    uint64_t keep = size;
    if (role && !from_role && r->size && r->size < size) {
        uint32_t sg = role_group(rp, base, VT_ROLE_MAX, 0);
        int fresh;
        vt_live *s = sg != UINT32_MAX ? vt_live_upsert(&rp->live, VT_SPACE_SLACK, slack_key(space, key), &fresh) : NULL;
        if (s && fresh && !vt_live_set(&rp->live, s, VT_SPACE_SLACK, slack_key(space, key), size - r->size, sg, 0,
                                       VT_CATLOG_NONE, 0)) {
            group_move(rp, to, sg, size - r->size, aux, 0);
            keep = r->size;
        }
        e = vt_live_find(&rp->live, space, key);  /* the table may have grown */
        if (!e) { rp->nomem = 1; return; }
    }
    if (vt_live_set(&rp->live, e, space, key, keep, to, ext ? aux : 0, logix, ext)) rp->nomem = 1;
}

/* The pools of one device: each pool's latest sample, summed. Samples come with the
 * NVML ones (the writer thread takes both in one round), so the slack at an NVML maximum
 * is the slack of the pools' samples just before it. */
static void on_pool(vt_replay *rp, const vt_rec *r)
{
    if (r->device < 0 || r->device + 1 >= VT_NDEV) return;
    vt_pool_dev *p = &rp->pool[r->device + 1];
    int k = 0;
    while (k < p->n && p->handle[k] != r->addr) k++;
    if (k == p->n) {
        if (p->n == VT_POOL_MAX) return;
        p->handle[p->n++] = r->addr;
    }
    p->seen = 1;
    p->samples++;
    p->reserved[k] = r->aux0;
    p->used[k] = r->aux1 < r->aux0 ? r->aux1 : r->aux0;
    uint64_t res = 0, used = 0;
    for (int i = 0; i < p->n; i++) {
        res += p->reserved[i];
        used += p->used[i];
    }
    p->cur_reserved = res;
    p->cur_slack = res - used;
    if (p->cur_slack >= p->slack_max) {
        p->slack_max = p->cur_slack;
        p->reserved_at_slack_max = res;
        p->slack_max_time = r->time_ns;
    }
}

static char *keep(vt_replay *rp, const void *p, size_t n)
{
    char *s = vt_arena_strdup(&rp->arena, p ? p : "", p ? n : 0);
    if (!s) rp->nomem = 1;
    return s;
}

/* Names the views print (STRING, device names, NVML UUIDs, entry points): their
 * control bytes escaped once here (vt_ctrl.h). Module paths are kept as they are: the
 * symbolizer opens them, and vt_sites escapes the names it makes of them. */
static char *keep_text(vt_replay *rp, const char *s, size_t n)
{
    if (!s || vt_ctrl_safe(s, n)) return keep(rp, s, n);
    char *e = vt_ctrl_dup(s, n);
    if (!e) {
        rp->nomem = 1;
        return NULL;
    }
    char *kept = keep(rp, e, strlen(e));
    free(e);
    return kept;
}

/* Into a fixed buffer of cap bytes, escaped and cut to fit (never inside an escape). */
static void copy_text(char *dst, size_t cap, const char *s, size_t n)
{
    size_t o = 0;
    for (size_t i = 0, k; s && i < n; i += k) {
        char e[8];
        const char *from = s + i;
        size_t w = k = vt_ctrl_ok_len(s + i, n - i);
        if (!k) {
            w = vt_ctrl_escape(e, s + i, 1);
            from = e;
            k = 1;
        }
        if (o + w >= cap) break;
        memcpy(dst + o, from, w);
        o += w;
    }
    dst[o] = 0;
}

static void on_meta(vt_replay *rp, const vt_rec *r)
{
    switch (r->type) {
    case VT_REC_STACK: {
        uint32_t *ix = vt_idarr_get(&rp->node_ix, r->id);
        if (!ix) {
            if (reserve((void **)&rp->nodes, &rp->nodes_cap, rp->nnodes, sizeof *rp->nodes) ||
                vt_idarr_put(&rp->node_ix, r->id, (uint32_t)rp->nnodes)) {
                rp->nomem = 1;
                return;
            }
            ix = vt_idarr_get(&rp->node_ix, r->id);
            rp->nnodes++;
        }
        vt_stack_node *s = &rp->nodes[*ix];
        s->parent = r->parent;
        s->kind = r->kind;
        s->value = r->addr;
        break;
    }
    case VT_REC_MODULE: {
        if (reserve((void **)&rp->modules, &rp->modules_cap, rp->nmodules, sizeof *rp->modules)) {
            rp->nomem = 1;
            return;
        }
        vt_module *m = &rp->modules[rp->nmodules];
        m->path = keep(rp, r->str, r->str_len);
        m->build_id = (uint8_t *)keep(rp, r->bytes, r->bytes_len);
        if (!m->path || !m->build_id) return;
        m->build_id_len = r->bytes_len;
        m->bias = r->addr;
        m->size = r->size;
        rp->nmodules++;
        break;
    }
    case VT_REC_DEVICE: {
        vt_device *d = device_get(rp, r->device);
        if (!d) return;
        d->has_info = 1;
        copy_text(d->name, sizeof d->name, r->str, r->str_len);
        memset(d->uuid, 0, sizeof d->uuid);
        if (r->bytes) memcpy(d->uuid, r->bytes, r->bytes_len < 16 ? r->bytes_len : 16);
        d->total = r->size;
        d->cc_major = (unsigned)r->aux0;
        d->cc_minor = (unsigned)r->aux1;
        d->sms = r->id;
        d->threads_per_sm = r->line;
        break;
    }
    case VT_REC_NVML_DEVICE: {
        if (r->device < -1) return;
        vt_nvml *n = &rp->nvml[r->device + 1];
        copy_text(n->uuid, sizeof n->uuid, r->str, r->str_len);
        break;
    }
    case VT_REC_STRING: {
        char *s = keep_text(rp, r->str, r->str_len);
        if (!s) return;
        uint32_t *ix = vt_idarr_get(&rp->string_ix, r->id);
        if (ix) { rp->strings[*ix] = s; return; }
        if (reserve((void **)&rp->strings, &rp->strings_cap, rp->nstrings, sizeof *rp->strings) ||
            vt_idarr_put(&rp->string_ix, r->id, (uint32_t)rp->nstrings)) {
            rp->nomem = 1;
            return;
        }
        rp->strings[rp->nstrings++] = s;
        break;
    }
    case VT_REC_PYFRAME: {
        vt_pyframe pf = { (uint32_t)r->aux0, (uint32_t)r->aux1, r->line };
        uint32_t *ix = vt_idarr_get(&rp->pyframe_ix, r->id);
        if (ix) { rp->pyframes[*ix] = pf; return; }
        if (reserve((void **)&rp->pyframes, &rp->pyframes_cap, rp->npyframes, sizeof *rp->pyframes) ||
            vt_idarr_put(&rp->pyframe_ix, r->id, (uint32_t)rp->npyframes)) {
            rp->nomem = 1;
            return;
        }
        rp->pyframes[rp->npyframes++] = pf;
        break;
    }
    case VT_REC_DRIVER:
        rp->driver_version = r->aux0;
        break;
    case VT_REC_LOOKUP:
        if (r->flags & VT_RF_UNWRAPPED) {
            rp->st.unwrapped_lookups++;
            if (rp->nunwrapped < 8) {
                copy_text(rp->unwrapped[rp->nunwrapped], sizeof rp->unwrapped[0], r->str, r->str_len);
                rp->nunwrapped++;
            }
        }
        break;
    case VT_REC_LOST:
        rp->st.lost_events += r->size;
        break;
    case VT_REC_PAUSE:
        if (r->aux0 && rp->pause_t0 == UINT64_MAX) {
            rp->pause_t0 = r->time_ns;
            rp->st.pauses++;
        } else if (!r->aux0 && rp->pause_t0 != UINT64_MAX) {
            rp->st.paused_ns += r->time_ns > rp->pause_t0 ? r->time_ns - rp->pause_t0 : 0;
            rp->pause_t0 = UINT64_MAX;
        }
        break;
    case VT_REC_SYMBOL: {
        if (reserve((void **)&rp->syms, &rp->syms_cap, rp->nsyms, sizeof *rp->syms)) { rp->nomem = 1; return; }
        vt_symrec *y = &rp->syms[rp->nsyms];
        y->ip = r->addr;
        y->index = (uint32_t)r->aux0;
        y->count = (uint32_t)r->aux1;
        y->line = r->line;
        y->function = r->str_len ? vt_arena_strdup(&rp->arena, r->str, r->str_len) : NULL;
        y->file = r->bytes_len ? vt_arena_strdup(&rp->arena, (const char *)r->bytes, r->bytes_len) : NULL;
        if ((r->str_len && !y->function) || (r->bytes_len && !y->file)) { rp->nomem = 1; return; }
        rp->nsyms++;
        break;
    }
    case VT_REC_SOURCE: {
        if (!r->str_len || !r->bytes_len) break;
        if (reserve((void **)&rp->srcs, &rp->srcs_cap, rp->nsrcs, sizeof *rp->srcs)) { rp->nomem = 1; return; }
        vt_srcline *s = &rp->srcs[rp->nsrcs];
        s->file = vt_arena_strdup(&rp->arena, r->str, r->str_len);
        s->layer = vt_arena_strdup(&rp->arena, (const char *)r->bytes, r->bytes_len);
        s->line = r->line;
        if (!s->file || !s->layer ||
            vt_idmap_put(&rp->src_ix, vt_srcline_key(r->str, r->str_len, r->line), (uint32_t)rp->nsrcs)) {
            rp->nomem = 1;
            return;
        }
        rp->nsrcs++;
        break;
    }
    case VT_REC_MARK: {
        if (reserve((void **)&rp->marks, &rp->marks_cap, rp->nmarks, sizeof *rp->marks)) { rp->nomem = 1; return; }
        const char *name = vt_arena_strdup(&rp->arena, r->str ? r->str : "", r->str ? r->str_len : 0);
        if (!name) { rp->nomem = 1; return; }
        rp->marks[rp->nmarks++] = (vt_mark){ r->time_ns, name };
        if (rp->stop_mark && rp->stop_time == UINT64_MAX && !strcmp(name, rp->stop_mark)) rp->stop_time = r->time_ns;
        break;
    }
    case VT_REC_TRAILER:
        rp->has_trailer = 1;
        rp->trailer_flags = r->flags;
        if (r->counts) memcpy(rp->trailer_counts, r->counts, sizeof rp->trailer_counts);
        break;
    default:
        break;
    }
}

void vt_replay_rec(vt_replay *rp, const vt_rec *r)
{
    rp->st.records++;
    rp->st.by_type[r->type <= VT_REC_TYPE_MAX ? r->type : VT_REC_TYPE_MAX]++;
    if (vt_rec_timed(r->type)) {
        if (r->time_ns > rp->stop_time && r->type != VT_REC_TRAILER) return;
        rp->now = r->time_ns;
        if (r->time_ns > rp->last_time) rp->last_time = r->time_ns;
    }
    switch (r->type) {
    case VT_REC_ALLOC:
    case VT_REC_FREE: {
        vt_ev e = { .time_ns = r->time_ns, .addr = r->addr, .size = r->size, .stack_id = r->stack_id,
                    .type = r->type, .kind = r->kind, .device = r->device, .flags = r->flags };
        if (r->type == VT_REC_ALLOC) on_alloc(rp, &e);
        else on_free(rp, &e);
        break;
    }
    case VT_REC_VMM:
        if (r->kind >= VT_VMM_TORCH_SEGMENT) on_torch_segment(rp, r);
        else on_vmm(rp, r);
        break;
    case VT_REC_OOM: on_oom(rp, r); break;
    case VT_REC_ANNOTATE: on_annotate(rp, r); break;
    case VT_REC_NVML: on_nvml(rp, r); break;
    case VT_REC_POOL: on_pool(rp, r); break;
    case VT_REC_POOL_TRIM: break;
    default:
        if (r->type == 0 || r->type > VT_REC_LAST) rp->st.unknown_records++;
        else on_meta(rp, r);
        break;
    }
}

/* ------------------------------------------------------------------------ *
 *  The hot path: runs of ALLOC and FREE records
 * ------------------------------------------------------------------------ */
/* The live set of a training run is far larger than the caches and its entries are hit
 * at random: replayed one at a time, every event would wait on a cache miss. So the
 * live-set entry of the event PREFETCH_AHEAD events on is prefetched (with the next
 * slot, which a delete reads), and for an allocation the entry of stack_group that
 * names its group: the misses of a dozen events overlap. What is prefetched is a guess
 * (the table may grow on the way), never trusted. The group itself is prefetched in a
 * second stage, GROUP_AHEAD events on (ev_prefetch_group): where the last-level cache
 * does not hold the live set, the group's line is otherwise the replay's largest stall
 * (docs/benchmarks.md, section 2, "Why the AMD VM was slower", has the measurements). */
#define PREFETCH_AHEAD 16
#define LOOK_RING 32   /* more than PREFETCH_AHEAD, a power of two */
_Static_assert(LOOK_RING > PREFETCH_AHEAD && (LOOK_RING & (LOOK_RING - 1)) == 0, "LOOK_RING");

/* What the first stage found for an event, for the second stage and the fast paths:
 * its home slot in the live set (hashed once) and its stack_group entry. */
typedef struct {
    size_t slot;
    size_t sg;
} ev_look;

/* always_inline: gcc finds a function holding nothing but prefetches pure, and drops
 * the calls whose result is unused, i.e. all of them. */
static inline __attribute__((always_inline)) void ev_prefetch(const vt_replay *rp, const vt_ev *e, ev_look *lk)
{
    lk->slot = vt_live_hash(&rp->live, vt_kind_space(e->kind), e->addr);
    const vt_live *l = &rp->live.tab[lk->slot];
    __builtin_prefetch(l);
    __builtin_prefetch(l + 1); /* the same line, or the next one; never dereferenced */
    /* An allocation's stack_group entry; a free's (stack 0, mostly) is a harmless guess,
     * made rather than a branch on the type, which comes at random. */
    lk->sg = SG_WAYS * (size_t)(e->stack_id < rp->nstack_group ? e->stack_id : 0);
    __builtin_prefetch(rp->stack_group + lk->sg);
}

/* The second stage, GROUP_AHEAD events on: the lines ev_prefetch asked for have come,
 * so the event's group can be guessed from them and prefetched (an allocation's from
 * stack_group, a free's from the entry at its home slot, where it mostly is), with no
 * branch on the type. */
#define GROUP_AHEAD 8
static inline __attribute__((always_inline)) void ev_prefetch_group(const vt_replay *rp, const vt_ev *e,
                                                                    const ev_look *lk)
{
    uint32_t gf = (uint32_t)(rp->live.tab[lk->slot].v >> 4) & (VT_LIVE_GROUP_MAX - 1);
    uint32_t ga = rp->stack_group[lk->sg] - 1;
    uint32_t gi = e->type == VT_REC_ALLOC ? ga : gf;
    if (gi >= rp->ngroups) gi = 0;
    __builtin_prefetch(&rp->groups[gi]);
}

static inline void replay_ev(vt_replay *rp, const vt_ev *e)
{
    if (e->time_ns > rp->stop_time) return;
    rp->now = e->time_ns;
    if (e->time_ns > rp->last_time) rp->last_time = e->time_ns;
    if (e->type == VT_REC_ALLOC) on_alloc(rp, e);
    else on_free(rp, e);
}

/* The common events, inline: a device allocation at a fresh address by a stack whose
 * group is one of its last two, that fits a packed live entry and that the category log
 * will not ask about, and the free of a live device allocation with a packed entry,
 * both of groups that feed two trackers (the device and the analysis's total) and have
 * no layer. They do what on_alloc and on_free do (the same state after: tests/replay's
 * replay_unit compares the two), less what those check for the rare cases, each of
 * which makes these return 0 before changing anything: the caller then takes the
 * general path. */
static inline int fast_alloc(vt_replay *rp, const vt_ev *e, size_t h)
{
    if (vt_kind_space(e->kind) != VT_SPACE_DEVICE_PTR || e->kind >= VT_KIND_ALLOC_MAX || rp->keep_times ||
        e->stack_id >= rp->nstack_group || vt_live_full(&rp->live) || e->size >= VT_LIVE_SIZE_MAX)
        return 0;
    /* the stack's last group, or the one before (group_get's order, swapped the same way) */
    uint32_t *sg = &rp->stack_group[SG_WAYS * (size_t)e->stack_id];
    uint32_t gi = sg[0] - 1;
    if (!group_is(rp, gi, e->stack_id, e->kind, e->device)) {
        gi = sg[1] - 1;
        if (!group_is(rp, gi, e->stack_id, e->kind, e->device)) return 0;
    }
    vt_group *g = &rp->groups[gi];
    if (!g->fast || gi >= VT_LIVE_GROUP_MAX || catlog_may_ask(rp, g, e->time_ns)) return 0;
    vt_live *l;
    for (size_t i = h;; i = (i + 1) & rp->live.mask) {
        l = &rp->live.tab[i];
        if (!l->v) break;
        if (vt_live_space(l) == VT_SPACE_DEVICE_PTR && l->addr == e->addr) return 0;  /* its free was lost */
    }
    if (gi + 1 != sg[0]) {  /* it was second */
        sg[1] = sg[0];
        sg[0] = gi + 1;
    }
    uint64_t size = e->size;
    *l = (vt_live){ e->addr, vt_live_pack(VT_SPACE_DEVICE_PTR, gi, size) };
    rp->live.n++;
    rp->st.allocs++;
    g->nallocs++;
    g->total_bytes += size;
    g->alloc_times += e->time_ns;
    group_touch(g);
    g->live += size;
    g->live_count++;
    tracker_add(rp, &rp->dev[g->device + 1]->dev, size);
    tracker_add(rp, rp->global, size);
    vt_life_alloc(&g->life, g->nallocs, e->time_ns);
    return 1;
}

static inline int fast_free(vt_replay *rp, const vt_ev *e, size_t h)
{
    if (vt_kind_space(e->kind) != VT_SPACE_DEVICE_PTR || rp->keep_times) return 0;
    vt_live *l;
    for (size_t i = h;; i = (i + 1) & rp->live.mask) {
        l = &rp->live.tab[i];
        if (vt_live_space(l) == VT_SPACE_DEVICE_PTR && l->addr == e->addr) break;
        if (!l->v) return 0;
    }
    if (vt_live_is_ext(l)) return 0;  /* the category log may want to hear of it */
    uint32_t gi = (uint32_t)(l->v >> 4) & (VT_LIVE_GROUP_MAX - 1);
    if (gi >= rp->ngroups) return 0;
    vt_group *g = &rp->groups[gi];
    if (!g->fast) return 0;
    uint64_t size = l->v >> 28;
    rp->st.frees++;
    group_touch(g);
    g->live -= size;
    g->live_count--;
    g->free_times += rp->now;
    vt_tracker *t0 = &rp->dev[g->device + 1]->dev, *t1 = rp->global;
    t0->live -= size;
    t0->count--;
    t1->live -= size;
    t1->count--;
    vt_live_delete(&rp->live, l);
    return 1;
}

void vt_replay_events(vt_replay *rp, const vt_ev *ev, size_t n)
{
    size_t i = 0, nalloc = 0;
    rp->st.records += n;
    /* Until something was allocated there is nothing to prefetch from. */
    for (; i < n && !rp->live.tab; i++) {
        nalloc += ev[i].type == VT_REC_ALLOC;
        replay_ev(rp, &ev[i]);
    }
    /* the first stage's findings for the PREFETCH_AHEAD events to come, in a ring; made
     * again when the table grows on the way (its slots move) */
    ev_look ring[LOOK_RING];
    unsigned shift = rp->live.shift;
    for (size_t k = i; k < n && k < i + PREFETCH_AHEAD; k++) ev_prefetch(rp, &ev[k], &ring[k % LOOK_RING]);
    for (; i < n; i++) {
        /* the events themselves were decoded on another core: fetch them early too */
        if (i + 4 * PREFETCH_AHEAD < n) __builtin_prefetch(&ev[i + 4 * PREFETCH_AHEAD]);
        if (i + PREFETCH_AHEAD < n)
            ev_prefetch(rp, &ev[i + PREFETCH_AHEAD], &ring[(i + PREFETCH_AHEAD) % LOOK_RING]);
        if (i + GROUP_AHEAD < n && rp->stack_group)
            ev_prefetch_group(rp, &ev[i + GROUP_AHEAD], &ring[(i + GROUP_AHEAD) % LOOK_RING]);
        const vt_ev *e = &ev[i];
        size_t h = ring[i % LOOK_RING].slot;
        nalloc += e->type == VT_REC_ALLOC;
        if (e->time_ns > rp->stop_time) continue;
        rp->now = e->time_ns;
        if (e->time_ns > rp->last_time) rp->last_time = e->time_ns;
        if (e->type == VT_REC_ALLOC) {
            if (!fast_alloc(rp, e, h)) on_alloc(rp, e);
        } else if (!fast_free(rp, e, h)) {
            on_free(rp, e);
        }
        if (__builtin_expect(rp->live.shift != shift, 0)) {  /* the table grew: look again */
            shift = rp->live.shift;
            for (size_t k = i + 1; k < n && k <= i + PREFETCH_AHEAD; k++) ev_prefetch(rp, &ev[k], &ring[k % LOOK_RING]);
        }
    }
    rp->st.by_type[VT_REC_ALLOC] += nalloc;
    rp->st.by_type[VT_REC_FREE] += n - nalloc;
}

/* ------------------------------------------------------------------------ *
 *  The end
 * ------------------------------------------------------------------------ */
static void fill_result(vt_replay *rp);

void vt_replay_finish(vt_replay *rp)
{
    if (rp->pause_t0 != UINT64_MAX && rp->last_time > rp->pause_t0) {  /* paused to the end */
        rp->st.paused_ns += rp->last_time - rp->pause_t0;
        rp->pause_t0 = rp->last_time;
    }
    for (size_t i = 0; i < rp->ngroups; i++) {
        vt_group *g = &rp->groups[i];
        group_touch(g);
        g->life.nfrees = g->nallocs - g->live_count;
        /* Each free (or release of a live address taken again) adds its time and each
         * allocation its own, so once none is live the difference is the sum of their
         * lifetimes, exact in 64-bit arithmetic however the two sums wrapped. */
        g->life.life_sum = g->live_count ? 0 : g->free_times - g->alloc_times;
    }
    /* Lookups for the replay only: their memory goes back before the sites are made,
     * where the peak is. */
    free(rp->stack_group);
    rp->stack_group = NULL;
    rp->nstack_group = 0;
    vt_layers_done(rp->layers);
    /* Arrays grown by doubling: up to half of them is slack from here on. */
    if (rp->ngroups && rp->ngroups < rp->groups_cap) groups_resize(rp, rp->ngroups);
    shrink((void **)&rp->nodes, &rp->nodes_cap, rp->nnodes, sizeof *rp->nodes);
    fill_result(rp);
}

/* The device allocations of the category log's window still live: what category
 * inference needs of the live set (vt_cat_infer.c). */
static void keep_live_end(vt_replay *rp)
{
    vt_catlog *l = rp->catlog;
    uint64_t end = l->full ? l->full_time : UINT64_MAX;
    size_t n = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; rp->live.tab && i <= rp->live.mask; i++) {
            /* those it may ask about have ext entries (catlog_may_ask) */
            const vt_live *e = &rp->live.tab[i];
            if (!vt_live_is_ext(e) || vt_live_space(e) == VT_SPACE_MAPPING) continue;
            const vt_live_ext *x = vt_live_ext_of(&rp->live, e);
            if (x->group >= rp->ngroups || rp->groups[x->group].cls != VT_CLASS_DEVICE || x->aux >= end) continue;
            if (pass) l->live_end[l->nlive_end++] = (vt_catlog_live){ x->aux, x->size, x->group, x->logix };
            else n++;
        }
        if (pass || !n) break;
        if (!(l->live_end = malloc(n * sizeof *l->live_end))) { l->nomem = 1; break; }
    }
}

void vt_replay_drop_live(vt_replay *rp)
{
    if (rp->catlog && !rp->catlog->live_end) keep_live_end(rp);
    vt_live_free(&rp->live);
    rp->mappings = 0;
    vt_idmap_free(&rp->vmm_ix);
    free(rp->vmm_counts);
    rp->vmm_counts = NULL;
    rp->nvmm = rp->vmm_cap = 0;
}

void vt_replay_drop_catlog(vt_replay *rp)
{
    if (rp->catlog) vt_catlog_free(rp->catlog);
}

/* ------------------------------------------------------------------------ *
 *  What it found
 * ------------------------------------------------------------------------ */
/* The arrays' final addresses: after vt_replay_finish trims them. */
static void fill_result(vt_replay *rp)
{
    vt_replay_result *r = &rp->res;
    r->stop_time = rp->stop_time;
    r->last_time = rp->last_time;
    r->global = rp->global;
    r->host = &rp->host;
    r->groups = rp->groups;
    r->ngroups = rp->ngroups;
    r->ooms = rp->ooms;
    r->nooms = rp->nooms;
    r->catlog = rp->catlog;
    r->annot_max = rp->annot_max;
    r->nodes = rp->nodes;
    r->nnodes = rp->nnodes;
    r->node_ix = &rp->node_ix;
    r->strings = rp->strings;
    r->string_ix = &rp->string_ix;
    r->pyframes = rp->pyframes;
    r->pyframe_ix = &rp->pyframe_ix;
    r->modules = rp->modules;
    r->nmodules = rp->nmodules;
    r->syms = rp->syms;
    r->nsyms = rp->nsyms;
    r->marks = rp->marks;
    r->srcs = rp->srcs;
    r->nsrcs = rp->nsrcs;
    r->nmarks = rp->nmarks;
    r->nvml = rp->nvml;
    r->pool = rp->pool;
    r->unwrapped = (const char (*)[64])rp->unwrapped;
    r->nunwrapped = rp->nunwrapped;
    r->driver_version = rp->driver_version;
    r->has_trailer = rp->has_trailer;
    r->trailer_flags = rp->trailer_flags;
    r->trailer_counts = rp->trailer_counts;
    r->st = &rp->st;
    r->segs = rp->segs;
    r->nsegs = rp->nsegs;
    r->nomem = rp->nomem;
}

const vt_replay_result *vt_replay_result_of(const vt_replay *rp)
{
    return &rp->res;
}

vt_group *vt_replay_groups_edit(vt_replay *rp)
{
    return rp->groups;
}

int64_t vt_replay_srcline(const vt_replay *rp, const char *file, uint32_t line)
{
    if (!rp->nsrcs || !file) return -1;
    const uint32_t *ix = vt_idmap_get(&rp->src_ix, vt_srcline_key(file, strlen(file), line));
    return ix && rp->srcs[*ix].line == line && !strcmp(rp->srcs[*ix].file, file) ? (int64_t)*ix : -1;
}

int64_t vt_replay_add_group(vt_replay *rp, const vt_group *g)
{
    if (rp->ngroups == rp->groups_cap && groups_resize(rp, rp->groups_cap ? rp->groups_cap * 2 : 64)) return -1;
    rp->groups[rp->ngroups] = *g;
    rp->res.groups = rp->groups;
    rp->res.ngroups = ++rp->ngroups;
    return (int64_t)rp->ngroups - 1;
}

vt_oom *vt_replay_ooms_edit(vt_replay *rp)
{
    return rp->ooms;
}

size_t vt_replay_ngroups(const vt_replay *rp)
{
    return rp->ngroups;
}

const vt_group *vt_replay_group(const vt_replay *rp, size_t gi)
{
    return &rp->groups[gi];
}

vt_device *vt_replay_device(const vt_replay *rp, int device)
{
    return (device >= -1 && device < VT_NDEV - 1) ? rp->dev[device + 1] : NULL;
}

uint64_t vt_replay_unsure_leaks(const vt_replay *rp, uint64_t count)
{
    return rp->st.lost_events < count ? rp->st.lost_events : count;
}
