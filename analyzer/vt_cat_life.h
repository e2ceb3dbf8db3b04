/* vt_cat_life.h - what the replay gathers for category inference, O(1) per event.
 *
 * Two things, both fed by vt_replay.c as allocations come and go:
 *  - vt_life, in every group: first/last allocation and free, frees, lifetimes. Enough to
 *    tell "never freed" from "freed soon after" for any group, whatever its size.
 *  - vt_catlog, one per trace: the device allocations and frees of the first
 *    VT_CATLOG_MAX events, in order, with sizes. Training iterations and their phases
 *    (forward, backward, optimizer step) are found in this window after the replay
 *    (vt_cat_infer.c); a constant cap keeps memory independent of the trace length.
 *
 * Kept apart from vt_cat.h so that vt_replay.h can include it without the rest. */
#ifndef VT_CAT_LIFE_H
#define VT_CAT_LIFE_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint64_t first_alloc, last_alloc;   /* ns since the trace started */
    uint64_t first_free, last_free;     /* ns; meaningless while nfrees is 0 */
    uint64_t nfrees;
    uint64_t life_sum, life_max;        /* ns from allocation to free, of freed ones */
} vt_life;

typedef struct {
    uint64_t time;
    uint64_t size;
    uint64_t alloc_time;    /* frees: when the freed allocation was made */
    uint32_t group;
    uint32_t op;            /* VT_CATLOG_ALLOC or VT_CATLOG_FREE */
} vt_catlog_ent;

#define VT_CATLOG_ALLOC 0u
#define VT_CATLOG_FREE  1u
/* 2^19 events of 32 bytes: 16 MiB at most, about 150 iterations of a per-tensor
 * PyTorch BERT-base run; grown on demand, so small traces use little. */
#define VT_CATLOG_MAX   (1u << 19)

typedef struct {
    vt_catlog_ent *e;
    size_t n, cap;
    int full;               /* VT_CATLOG_MAX reached: later events are not logged */
    int nomem;
    uint64_t full_time;     /* time of the first event left out */
} vt_catlog;

/* Grows the log by doubling; marks it full (or nomem) when it cannot. 0 when there is room. */
int vt_catlog_grow(vt_catlog *l, uint64_t t);
void vt_catlog_free(vt_catlog *l);

static inline void vt_catlog_push(vt_catlog *l, uint32_t group, uint32_t op, uint64_t t,
                                  uint64_t size, uint64_t alloc_time)
{
    if (l->full) return;
    if (l->n == l->cap && vt_catlog_grow(l, t)) return;
    vt_catlog_ent *e = &l->e[l->n++];
    e->time = t;
    e->size = size;
    e->alloc_time = alloc_time;
    e->group = group;
    e->op = op;
}

/* nallocs: the group's allocations including this one. */
static inline void vt_life_alloc(vt_life *L, uint64_t nallocs, uint64_t t)
{
    if (nallocs == 1) L->first_alloc = t;
    L->last_alloc = t;
}

static inline void vt_life_free(vt_life *L, uint64_t alloc_time, uint64_t t)
{
    if (!L->nfrees++) L->first_free = t;
    L->last_free = t;
    uint64_t life = t > alloc_time ? t - alloc_time : 0;
    L->life_sum += life;
    if (life > L->life_max) L->life_max = life;
}

#endif /* VT_CAT_LIFE_H */
