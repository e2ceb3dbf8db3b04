// SPDX-License-Identifier: MIT
/* vt_fit_early.c - `fit`'s models in the analysis's pass, with guesses checked after
 * (vt_fit_early.h). */
#include "vt_fit_early.h"

#include "vt_cores.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* An event before the first cuMemAllocAsync. */
typedef struct {
    uint64_t key;
    vt_fit_req req;     /* an allocation's, when not is_free */
    int is_free;
} early_ev;

/* The events before the first cuMemAllocAsync kept, at most (a program's CUDA set-up:
 * cuBLAS workspaces, NCCL buffers; a few hundred in a PyTorch run). */
#define EARLY_LOG_MAX (1u << 16)

/* The events go from the replay's thread to the models' in blocks, through a ring:
 * the models take about as long as the replay, and the two then share the cores with
 * the reader's threads (docs/benchmarks.md, section 6). */
#define BLOCK_EVENTS 4096
#define NBLOCKS 8

typedef struct {
    vt_ev ev[BLOCK_EVENTS];
    uint64_t stream[BLOCK_EVENTS];
    size_t n;
} block;

struct vt_fit_early {
    vt_fit_sim *sim;
    vt_am_kind chosen;
    const vt_am_conf *conf;
    int device;            /* -1 until the first allocation names it */
    int seen_async;        /* a cuMemAllocAsync came: what follows beside it is outside */
    int bad;               /* out of memory, a stack id too large, or a log too long */
    uint8_t *inside;       /* by stack id: an allocation taken as the allocator's */
    size_t ninside;
    /* Until the first cuMemAllocAsync, the allocations are the allocator's (no
     * split_async); from it on, those before were outside it: the log replays them so
     * into fresh models then. */
    early_ev *log;
    size_t nlog;
    int log_over;          /* more than EARLY_LOG_MAX: no second start */
    vt_replay_tap tap;
    /* threaded: the ring, filled on the replay's thread (head), emptied on the
     * models' (tail); everything above is the models' thread's until it is joined */
    int threaded;
    block *ring;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    uint64_t head, tail;
    int done;
};

/* How many events ahead the live table's entries are loaded (vt_fit_sim_prefetch), and
 * then what a free of them touches (vt_fit_sim_prefetch_late). */
#define EARLY_AHEAD 16
#define EARLY_LATE 8

static void mark_inside(vt_fit_early *e, uint32_t stack)
{
    if (stack >= e->ninside) {
        size_t n = e->ninside ? e->ninside : 1024;
        while (n <= stack) n *= 2;
        uint8_t *p = n <= (1u << 24) ? realloc(e->inside, n) : NULL;
        if (!p) { e->bad = 1; return; }
        memset(p + e->ninside, 0, n - e->ninside);
        e->inside = p;
        e->ninside = n;
    }
    e->inside[stack] = 1;
}

/* q NULL: a free. */
static void log_event(vt_fit_early *e, uint64_t key, const vt_fit_req *q)
{
    if (e->log_over) return;
    if (e->nlog == EARLY_LOG_MAX || (!e->log && !(e->log = malloc(EARLY_LOG_MAX * sizeof *e->log)))) {
        e->log_over = 1;
        free(e->log);
        e->log = NULL;
        return;
    }
    e->log[e->nlog++] = q ? (early_ev){ key, *q, 0 } : (early_ev){ .key = key, .is_free = 1 };
}

static vt_fit_sim *uncapped_models(vt_am_kind chosen, const vt_am_conf *conf)
{
    vt_am *m[VT_AM_N];
    int n = 0;
    for (; n < VT_AM_N; n++)
        if (!(m[n] = vt_am_new((vt_am_kind)n, conf, VT_AM_NO_LIMIT))) break;
    if (n < VT_AM_N) {
        while (n--) vt_am_free(m[n]);
        return NULL;
    }
    vt_fit_sim *s = vt_fit_sim_new(m, NULL, VT_AM_N);
    if (s) vt_fit_sim_by_stack(s, chosen);
    return s;
}

/* The first cuMemAllocAsync: the models start again, with what came before it
 * outside the allocator, as vt_fit_read takes it when split_async. */
static void restart_split(vt_fit_early *e)
{
    vt_fit_sim *s = e->log_over ? NULL : uncapped_models(e->chosen, e->conf);
    for (size_t i = 0; s && i < e->nlog; i++) {
        early_ev *l = &e->log[i];
        if (l->is_free) {
            vt_fit_sim_free_key(s, l->key);
            continue;
        }
        l->req.outside = 1;
        if (vt_fit_sim_alloc(s, l->key, &l->req)) {
            vt_fit_sim_free(s);
            s = NULL;
        }
    }
    free(e->log);
    e->log = NULL;
    e->log_over = 1;
    vt_fit_sim_free(e->sim);
    e->sim = s;
    if (!s) e->bad = 1;
    if (e->inside) memset(e->inside, 0, e->ninside);
}

static void take(vt_fit_early *e, unsigned type, unsigned k, int device, uint64_t time, uint64_t addr, uint64_t size,
                 uint64_t stream, uint32_t stack)
{
    int is_alloc = type == VT_REC_ALLOC;
    if (!vt_fit_kind(is_alloc, k) || e->bad) return;
    if (e->device < 0 && is_alloc) e->device = device;
    if (device != e->device) return;
    if (!is_alloc) {
        if (!e->seen_async) log_event(e, addr, NULL);
        vt_fit_sim_free_key(e->sim, addr);
        return;
    }
    if (k == VT_KIND_MEM_ALLOC_ASYNC && !e->seen_async) {
        e->seen_async = 1;
        restart_split(e);
        if (e->bad) return;
    }
    /* vt_fit_read's split_async, as it will be when the guess holds; the category
     * rules' outside stacks are checked after (inside) */
    uint8_t outside = (uint8_t)(e->seen_async && k != VT_KIND_MEM_ALLOC_ASYNC);
    if (!outside) mark_inside(e, stack);
    vt_fit_req q = { time, size, stream, stack, (uint8_t)k, VT_CAT_OTHER, outside };
    if (!e->seen_async) log_event(e, addr, &q);
    if (vt_fit_sim_alloc(e->sim, addr, &q)) e->bad = 1;
}

/* A run of events through the models. */
static void run(vt_fit_early *e, const vt_ev *ev, const uint64_t *stream, size_t n)
{
    for (size_t i = 0; i < n && i < EARLY_AHEAD && !e->bad; i++) vt_fit_sim_prefetch(e->sim, ev[i].addr);
    for (size_t i = 0; i < n && !e->bad; i++) {
        if (i + EARLY_AHEAD < n) vt_fit_sim_prefetch(e->sim, ev[i + EARLY_AHEAD].addr);
        if (i + EARLY_LATE < n && ev[i + EARLY_LATE].type == VT_REC_FREE)
            vt_fit_sim_prefetch_late(e->sim, ev[i + EARLY_LATE].addr);
        take(e, ev[i].type, ev[i].kind, ev[i].device, ev[i].time_ns, ev[i].addr, ev[i].size, stream[i],
             ev[i].stack_id);
    }
}

static void *models_thread(void *arg)
{
    vt_fit_early *e = arg;
    pthread_mutex_lock(&e->mu);
    for (;;) {
        while (e->tail == e->head && !e->done) pthread_cond_wait(&e->cv, &e->mu);
        if (e->tail == e->head) break;
        block *b = &e->ring[e->tail % NBLOCKS];
        pthread_mutex_unlock(&e->mu);
        run(e, b->ev, b->stream, b->n);
        pthread_mutex_lock(&e->mu);
        e->tail++;
        pthread_cond_broadcast(&e->cv);
    }
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

/* The block being filled, with room: a full one goes to the models' thread (waiting
 * while the ring is full). */
static block *fill_block(vt_fit_early *e)
{
    block *b = &e->ring[e->head % NBLOCKS];
    if (b->n < BLOCK_EVENTS) return b;
    pthread_mutex_lock(&e->mu);
    e->head++;
    pthread_cond_broadcast(&e->cv);
    while (e->head - e->tail >= NBLOCKS) pthread_cond_wait(&e->cv, &e->mu);
    pthread_mutex_unlock(&e->mu);
    b = &e->ring[e->head % NBLOCKS];
    b->n = 0;
    return b;
}

static void on_events(void *ctx, const vt_ev *ev, const uint64_t *stream, size_t n)
{
    vt_fit_early *e = ctx;
    if (!e->threaded) {
        run(e, ev, stream, n);
        return;
    }
    while (n) {
        block *b = fill_block(e);
        size_t k = BLOCK_EVENTS - b->n < n ? BLOCK_EVENTS - b->n : n;
        memcpy(b->ev + b->n, ev, k * sizeof *ev);
        memcpy(b->stream + b->n, stream, k * sizeof *stream);
        b->n += k;
        ev += k;
        stream += k;
        n -= k;
    }
}

static void on_rec(void *ctx, const vt_rec *r)
{
    vt_ev ev = { .time_ns = r->time_ns, .addr = r->addr, .size = r->size, .stack_id = r->stack_id,
                 .type = r->type, .kind = r->kind, .device = r->device };
    on_events(ctx, &ev, &r->stream, 1);
}

/* The models' thread, from two cores up. */
static void start_thread(vt_fit_early *e)
{
    if (vt_cores() < 2 || !(e->ring = malloc(NBLOCKS * sizeof *e->ring))) return;
    e->ring[0].n = 0;
    pthread_mutex_init(&e->mu, NULL);
    pthread_cond_init(&e->cv, NULL);
    if (pthread_create(&e->thread, NULL, models_thread, e)) {
        pthread_mutex_destroy(&e->mu);
        pthread_cond_destroy(&e->cv);
        free(e->ring);
        e->ring = NULL;
        return;
    }
    e->threaded = 1;
}

/* The last block to the models, and their thread joined. */
static void finish(vt_fit_early *e)
{
    if (!e->threaded) return;
    pthread_mutex_lock(&e->mu);
    if (e->ring[e->head % NBLOCKS].n) e->head++;
    e->done = 1;
    pthread_cond_broadcast(&e->cv);
    pthread_mutex_unlock(&e->mu);
    pthread_join(e->thread, NULL);
    pthread_mutex_destroy(&e->mu);
    pthread_cond_destroy(&e->cv);
    free(e->ring);
    e->ring = NULL;
    e->threaded = 0;
}

vt_fit_early *vt_fit_early_new(vt_am_kind chosen, const vt_am_conf *conf, int device)
{
    vt_fit_early *e = calloc(1, sizeof *e);
    if (!e) return NULL;
    e->sim = uncapped_models(chosen, conf);
    if (!e->sim) { free(e); return NULL; }
    e->chosen = chosen;
    e->conf = conf;
    e->device = device;
    e->tap = (vt_replay_tap){ on_events, on_rec, e };
    start_thread(e);
    return e;
}

void vt_fit_early_free(vt_fit_early *e)
{
    if (!e) return;
    finish(e);
    vt_fit_sim_free(e->sim);
    free(e->inside);
    free(e->log);
    free(e);
}

const vt_replay_tap *vt_fit_early_tap(vt_fit_early *e)
{
    return &e->tap;
}

/* A model capped at c makes the same moves as the uncapped one while every request
 * that grew the reservation stayed within the cap: the cap is read there only (a
 * failed check is where the two part: a retry, a release of cached blocks, an OOM). */
static int same_under(const vt_fit_slot *sl, const vt_fit_cap *c)
{
    if (c->sim_limit != VT_AM_NO_LIMIT) return sl->need <= c->sim_limit; /* limit: sim_limit - outside, each request */
    return vt_am_stats_of(sl->m)->peak_reserved <= c->model_limit;
}

vt_fit_sim *vt_fit_early_take(vt_fit_early *e, int device, const uint8_t *cat_of_stack, size_t ncat,
                              int split_async, const vt_fit_cap *caps, int ncaps, int gc_threshold,
                              const char **why)
{
    finish(e);
    *why = e->bad ? "out of memory, too many stacks or too many events before the first cuMemAllocAsync"
           : e->device != device ? "the device is not the first one allocated on"
           : split_async != e->seen_async ? "cuMemAllocAsync is not the allocator's"
           : NULL;
    if (*why) return NULL;
    /* the rules' outside stacks (cuda-libraries): none may have had an allocation taken
     * as the allocator's */
    *why = "a stack the cuda-libraries rules put outside the allocator";
    for (size_t x = 0; x < ncat && x < e->ninside; x++)
        if ((cat_of_stack[x] & VT_FIT_OUTSIDE) && e->inside[x]) return NULL;
    *why = gc_threshold ? "garbage_collection_threshold" : "a --memory the uncapped model came near";
    const vt_fit_slot *chosen = vt_fit_sim_slot(e->sim, e->chosen);
    for (int i = 0; i < ncaps; i++)
        if (gc_threshold || !same_under(chosen, &caps[i])) return NULL;
    *why = "too many stacks";
    if (vt_fit_sim_cat_at_peak(e->sim, cat_of_stack, ncat)) return NULL;
    *why = "too many --memory";
    for (int i = 0; i < ncaps; i++)
        if (vt_fit_sim_add_twin(e->sim, e->chosen) < 0) return NULL;
    *why = NULL;
    vt_fit_sim *s = e->sim;
    e->sim = NULL;
    return s;
}
