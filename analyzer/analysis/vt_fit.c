/* SPDX-License-Identifier: MIT */
/* vt_fit.c - one device's allocations through several allocator models at once. */
#include "vt_fit.h"

#include "vt_huge.h"
#include "vt_replay.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A live allocation: its key, size, category, stack and each model's handle (as many
 * as there are models: entries are small, for the cache). Open addressing with linear
 * probing and backward-shift deletion: frees are as common as allocations. */
typedef struct {
    uint64_t key;       /* address + 1; 0 = empty */
    uint64_t size;
    uint64_t born;      /* by_stack: its allocation's number (vt_fit_sim.seq) */
    uint32_t stack;
    uint8_t  cat, outside;
    uint32_t h[];       /* vt_fit_sim.n of them */
} live_ent;

/* vt_fit_sim_by_stack: the bytes live at one slot's last reserved peak, by stack id,
 * known at the end of the pass: those of the entries still live then that were born
 * by the peak, and those of the ones born by it and freed after it, summed by stack
 * when they are freed (a stack's sum belongs to the peak of its version: a later
 * peak starts them all again, lazily). Only frees of what was live at the peak touch
 * the stacks. */
typedef struct {
    uint64_t bytes;
    uint32_t ver;
} freed_after;

typedef struct {
    freed_after *fa;
    size_t cap;
    uint64_t peak_seq;  /* the allocation at the slot's last peak; 0: none yet */
    uint32_t ver;       /* that peak's number */
    int slot;           /* -1: off */
    int bad;            /* a stack id past VT_FIT_MAX_STACK, or no memory */
} by_stack;

/* Stack ids by_stack keeps (a real trace has some 10^4 to 10^5 stacks). */
#define VT_FIT_MAX_STACK (1u << 22)

struct vt_fit_sim {
    vt_fit_slot slot[VT_FIT_MAX_MODELS];
    int n, nlive_models;   /* models, those not failed */
    uint8_t *tab;          /* entries of `stride` bytes */
    size_t stride;
    size_t mask, count;
    unsigned shift;        /* 64 - log2(mask + 1) */
    uint64_t live, peak;
    uint64_t outside_live, outside_peak;
    uint64_t cat_live[VT_CAT_N];
    uint64_t streams[64];  /* CUstream values seen -> index (the first 64; more share the last) */
    uint32_t nstreams;
    int nslot;             /* n, and the twins after them */
    int twin_of[VT_FIT_MAX_MODELS];
    uint64_t seq;          /* allocations so far */
    by_stack bs;
};

static inline live_ent *ent(const vt_fit_sim *s, size_t i)
{
    return (live_ent *)(void *)(s->tab + i * s->stride);
}

vt_fit_sim *vt_fit_sim_new(vt_am **models, const uint64_t *limits, int n)
{
    vt_fit_sim *s = calloc(1, sizeof *s);
    size_t stride = (sizeof(live_ent) + (size_t)n * sizeof(uint32_t) + 7) & ~(size_t)7;
    if (s) s->tab = calloc(1024, stride);
    if (!s || !s->tab || n > VT_FIT_MAX_MODELS) {
        for (int i = 0; i < n; i++) vt_am_free(models[i]);
        if (s) free(s->tab);
        free(s);
        return NULL;
    }
    s->stride = stride;
    s->mask = 1023;
    s->shift = 64 - 10;
    s->n = s->nslot = s->nlive_models = n;
    s->bs.slot = -1;
    for (int i = 0; i < n; i++) {
        s->slot[i].m = models[i];
        s->slot[i].limit = limits ? limits[i] : VT_AM_NO_LIMIT;
    }
    return s;
}

void vt_fit_sim_free(vt_fit_sim *s)
{
    if (!s) return;
    for (int i = 0; i < s->n; i++) vt_am_free(s->slot[i].m);
    free(s->tab);
    free(s->bs.fa);
    free(s);
}

void vt_fit_sim_by_stack(vt_fit_sim *s, int slot)
{
    s->bs.slot = slot;
}

/* Stack x's sum of bytes freed after the last peak. NULL when it cannot be kept. */
static freed_after *stack_sum(by_stack *b, uint32_t x)
{
    if (x >= b->cap) {
        if (x >= VT_FIT_MAX_STACK) { b->bad = 1; return NULL; }
        size_t cap = b->cap ? b->cap : 1024;
        while (cap <= x) cap *= 2;
        freed_after *f = realloc(b->fa, cap * sizeof *f);
        if (!f) { b->bad = 1; return NULL; }
        memset(f + b->cap, 0, (cap - b->cap) * sizeof *f);
        b->fa = f;
        b->cap = cap;
    }
    freed_after *f = &b->fa[x];
    if (f->ver != b->ver) {
        f->bytes = 0;
        f->ver = b->ver;
    }
    return f;
}

static unsigned cat_of(const uint8_t *cat_of_stack, size_t ncat, uint32_t x)
{
    unsigned c = (x < ncat ? cat_of_stack[x] : VT_CAT_OTHER) & ~VT_FIT_OUTSIDE;
    return c < VT_CAT_N ? c : VT_CAT_OTHER;
}

int vt_fit_sim_cat_at_peak(vt_fit_sim *s, const uint8_t *cat_of_stack, size_t ncat)
{
    by_stack *b = &s->bs;
    if (b->slot < 0 || b->bad) return -1;
    uint64_t *cp = s->slot[b->slot].cat_at_peak;
    memset(cp, 0, sizeof s->slot[b->slot].cat_at_peak);
    if (!b->peak_seq) return 0;  /* no peak: nothing taken, as without by_stack */
    for (size_t i = 0; i <= s->mask; i++) {
        const live_ent *e = ent(s, i);
        if (e->key && e->born <= b->peak_seq) cp[cat_of(cat_of_stack, ncat, e->stack)] += e->size;
    }
    for (size_t x = 0; x < b->cap; x++)
        if (b->fa[x].ver == b->ver) cp[cat_of(cat_of_stack, ncat, (uint32_t)x)] += b->fa[x].bytes;
    return 0;
}

int vt_fit_sim_add_twin(vt_fit_sim *s, int of)
{
    if (s->nslot == VT_FIT_MAX_MODELS || of < 0 || of >= s->n) return -1;
    s->twin_of[s->nslot] = of;
    return s->nslot++;
}

/* Fibonacci hashing: the product's top bits, which every bit of the key reaches (its
 * middle bits missed the low bits of addresses spaced by a power of two: one slot in
 * 32 of gen_trace's took them all, in long runs). */
static size_t slot_of(const vt_fit_sim *s, uint64_t k)
{
    return (size_t)((k * 0x9e3779b97f4a7c15ull) >> s->shift);
}

/* The slot of key k, or SIZE_MAX. */
static size_t find(const vt_fit_sim *s, uint64_t k)
{
    for (size_t i = slot_of(s, k);; i = (i + 1) & s->mask) {
        const live_ent *e = ent(s, i);
        if (e->key == k) return i;
        if (!e->key) return SIZE_MAX;
    }
}

static int grow(vt_fit_sim *s)
{
    size_t ncap = (s->mask + 1) * 2;
    uint8_t *old = s->tab;
    size_t omask = s->mask;
    s->tab = vt_huge_calloc(ncap, s->stride); /* probed at random */
    if (!s->tab) { s->tab = old; return -1; }
    s->mask = ncap - 1;
    s->shift--;
    for (size_t i = 0; i <= omask; i++) {
        const live_ent *o = (const live_ent *)(const void *)(old + i * s->stride);
        if (!o->key) continue;
        size_t j = slot_of(s, o->key);
        while (ent(s, j)->key) j = (j + 1) & s->mask;
        memcpy(ent(s, j), o, s->stride);
    }
    free(old);
    return 0;
}

static void remove_at(vt_fit_sim *s, size_t i)
{
    size_t j = i;
    for (;;) {
        j = (j + 1) & s->mask;
        live_ent *e = ent(s, j);
        if (!e->key) break;
        size_t home = slot_of(s, e->key);
        /* move j back to i when its home is not cyclically in (i, j] */
        if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
            memcpy(ent(s, i), e, s->stride);
            i = j;
        }
    }
    ent(s, i)->key = 0;
    s->count--;
}

/* Ends the live allocation in slot i. */
static void end_live(vt_fit_sim *s, size_t i)
{
    live_ent *e = ent(s, i);
    for (int m = 0; m < s->n; m++)
        if (e->h[m] != UINT32_MAX) vt_am_release(s->slot[m].m, e->h[m]);
    if (e->outside) s->outside_live -= e->size;
    if (e->born && e->born <= s->bs.peak_seq) {  /* live at the peak, freed after it */
        freed_after *f = stack_sum(&s->bs, e->stack);
        if (f) f->bytes += e->size;
    }
    s->live -= e->size;
    s->cat_live[e->cat] -= e->size;
    remove_at(s, i);
}

static uint32_t stream_ix(vt_fit_sim *s, uint64_t stream)
{
    for (uint32_t i = 0; i < s->nstreams; i++)
        if (s->streams[i] == stream) return i;
    if (s->nstreams < 64) s->streams[s->nstreams++] = stream;
    return s->nstreams - 1;
}

int vt_fit_sim_alloc(vt_fit_sim *s, uint64_t key, const vt_fit_req *r)
{
    uint64_t k = key + 1;
    size_t old = find(s, k);
    if (old != SIZE_MAX) end_live(s, old);
    if ((s->count + 1) * 4 > (s->mask + 1) * 3 && grow(s)) return -1;
    size_t i = slot_of(s, k);
    while (ent(s, i)->key) i = (i + 1) & s->mask;
    live_ent *e = ent(s, i);
    e->key = k;
    e->size = r->size;
    e->cat = r->cat < VT_CAT_N ? r->cat : VT_CAT_OTHER;
    e->outside = r->outside;
    e->stack = r->stack_id;
    e->born = s->bs.slot >= 0 ? ++s->seq : 0;
    s->count++;
    uint32_t st = stream_ix(s, r->stream);
    if (r->outside) {
        s->outside_live += r->size;
        if (s->outside_live > s->outside_peak) s->outside_peak = s->outside_live;
    }
    for (int m = 0; m < s->n; m++) {
        vt_fit_slot *sl = &s->slot[m];
        e->h[m] = UINT32_MAX;
        if (sl->failed || r->outside) continue;
        if (sl->limit != VT_AM_NO_LIMIT)
            vt_am_set_limit(sl->m, sl->limit > s->outside_live ? sl->limit - s->outside_live : 0);
        const vt_am_stats *ms = vt_am_stats_of(sl->m);
        uint64_t before = ms->peak_reserved, reserved = ms->reserved;
        int rc = vt_am_alloc(sl->m, r->size, st, &e->h[m]);
        if (rc == VT_AM_NOMEM) return -1;
        if (rc == VT_AM_OOM) {
            sl->failed = 1;
            sl->fail = *r;
            sl->live_at_fail = s->live;
            sl->outside_at_fail = s->outside_live;
            e->h[m] = UINT32_MAX;
            s->nlive_models--;
            continue;
        }
        if (ms->reserved > reserved && ms->reserved + s->outside_live > sl->need)
            sl->need = ms->reserved + s->outside_live;
        if (ms->peak_reserved > before) {
            memcpy(sl->cat_at_peak, s->cat_live, sizeof sl->cat_at_peak);
            sl->cat_at_peak[e->cat] += r->size;
            if (m == s->bs.slot) {
                s->bs.peak_seq = e->born;
                s->bs.ver++;
            }
        }
    }
    s->live += r->size;
    s->cat_live[e->cat] += r->size;
    if (s->live > s->peak) s->peak = s->live;
    return 0;
}

void vt_fit_sim_free_key(vt_fit_sim *s, uint64_t key)
{
    size_t i = find(s, key + 1);
    if (i != SIZE_MAX) end_live(s, i);
}

void vt_fit_sim_prefetch(const vt_fit_sim *s, uint64_t key)
{
    const char *e = (const char *)ent(s, slot_of(s, key + 1));
    __builtin_prefetch(e, 1);
    /* the rest of the entry, and the next one's key (a free looks at it, to close the
     * gap it leaves), when on the next line */
    __builtin_prefetch(e + s->stride + sizeof(uint64_t) - 1, 1);
}

void vt_fit_sim_prefetch_late(const vt_fit_sim *s, uint64_t key)
{
    const live_ent *e = ent(s, slot_of(s, key + 1));
    if (e->key == key + 1 && e->born && e->born <= s->bs.peak_seq && e->stack < s->bs.cap)
        __builtin_prefetch(&s->bs.fa[e->stack], 1);
}

const vt_fit_slot *vt_fit_sim_slot(const vt_fit_sim *s, int i) { return &s->slot[i < s->n ? i : s->twin_of[i]]; }
uint64_t vt_fit_sim_live(const vt_fit_sim *s) { return s->live; }
uint64_t vt_fit_sim_peak(const vt_fit_sim *s) { return s->peak; }
uint64_t vt_fit_sim_streams(const vt_fit_sim *s) { return s->nstreams; }
uint64_t vt_fit_sim_outside_peak(const vt_fit_sim *s) { return s->outside_peak; }

/* What one pass feeds its sink. */
typedef struct {
    int device;
    const uint8_t *cat_of_stack;
    size_t ncat;
    int split_async;
    vt_fit_sink *sink;
} fit_pass;

/* An ALLOC or FREE record to the sink, when it is one of device memory on the device.
 * Returns the sink's answer (0 for a record it does not see). */
static inline int feed(const fit_pass *fp, unsigned type, unsigned k, int device, uint64_t time, uint64_t addr,
                       uint64_t size, uint64_t stream, uint32_t stack_id)
{
    if (device != fp->device) return 0;
    int is_alloc = type == VT_REC_ALLOC;
    if (!vt_fit_kind(is_alloc, k)) return 0;
    if (!is_alloc) return fp->sink->event(fp->sink->ctx, addr, NULL);
    uint8_t c = stack_id < fp->ncat ? fp->cat_of_stack[stack_id] : VT_CAT_OTHER;
    vt_fit_req q = { time, size, stream, stack_id, (uint8_t)k, (uint8_t)(c & ~VT_FIT_OUTSIDE),
                     (uint8_t)((c & VT_FIT_OUTSIDE) ||
                               (fp->split_async && k != VT_KIND_MEM_ALLOC_ASYNC && k != VT_KIND_MEM_FREE_ASYNC)) };
    return fp->sink->event(fp->sink->ctx, addr, &q);
}

/* How many events ahead the sink hears of (vt_fit_sink.ahead): about a memory
 * latency's worth of models' work. */
#define FIT_AHEAD 16

int vt_fit_read(const char *path, int device, const uint8_t *cat_of_stack, size_t ncat, int split_async,
                vt_fit_sink *sink, char *msg, size_t msglen)
{
    vt_reader rd;
    if (vt_reader_open(&rd, path, msg, msglen)) return -1;
    /* The ALLOC and FREE records come decoded, with their streams, from the reader's
     * threads (vt_ev's fast path), while this one replays them through the models. */
    vt_reader_start_events_streams(&rd);
    fit_pass fp = { device, cat_of_stack, ncat, split_async, sink };
    int rc = 0, e = 0;
    while (!e) {
        const vt_ev *ev;
        size_t n = vt_reader_events(&rd, &ev);
        if (n) {
            const uint64_t *st = vt_reader_event_streams(&rd);
            if (sink->ahead)
                for (size_t i = 0; i < n && i < FIT_AHEAD; i++) sink->ahead(sink->ctx, ev[i].addr);
            for (size_t i = 0; i < n && !e; i++) {
                if (sink->ahead && i + FIT_AHEAD < n) sink->ahead(sink->ctx, ev[i + FIT_AHEAD].addr);
                e = feed(&fp, ev[i].type, ev[i].kind, ev[i].device, ev[i].time_ns, ev[i].addr, ev[i].size, st[i],
                         ev[i].stack_id);
            }
            continue;
        }
        vt_rec r;
        if (!vt_reader_next(&rd, &r)) break;
        if (r.type == VT_REC_ALLOC || r.type == VT_REC_FREE)
            e = feed(&fp, r.type, r.kind, r.device, r.time_ns, r.addr, r.size, r.stream, r.stack_id);
    }
    if (e < 0) {
        snprintf(msg, msglen, "out of memory");
        rc = -1;
    }
    if (rc == 0 && rd.stopped) {
        snprintf(msg, msglen, "%s at byte %llu", rd.err, (unsigned long long)rd.err_offset);
        rc = 1;
    }
    vt_reader_close(&rd);
    return rc;
}

int vt_fit_context(const vt_replay *rp, int device, uint64_t *bytes)
{
    const vt_replay_result *res = vt_replay_result_of(rp);
    if (device < 0 || device >= VT_NVML_SNAP) return 0;
    const vt_device *d = vt_replay_device(rp, device);
    const vt_nvml *nv = NULL;
    if (d && vt_device_has_uuid(d)) {
        /* NVML and CUDA may number the GPUs differently: by UUID first */
        char u[48];
        const uint8_t *x = d->uuid;
        snprintf(u, sizeof u, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", x[0], x[1],
                 x[2], x[3], x[4], x[5], x[6], x[7], x[8], x[9], x[10], x[11], x[12], x[13], x[14], x[15]);
        for (int i = 0; i < VT_NDEV && !nv; i++)
            if (res->nvml[i].seen && !strcmp(res->nvml[i].uuid, u)) nv = &res->nvml[i];
    }
    if (!nv && res->nvml[device + 1].seen && !res->nvml[device + 1].uuid[0]) nv = &res->nvml[device + 1];
    if (!nv || !nv->has_proc) return 0;
    *bytes = nv->proc_over_min[device];
    return 1;
}
