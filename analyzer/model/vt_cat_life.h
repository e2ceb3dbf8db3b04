// SPDX-License-Identifier: MIT
/* vt_cat_life.h - what the replay gathers for category inference, O(1) per event.
 *
 * Two things, both fed by vt_replay.c as allocations come and go:
 *  - vt_life, in every group: first allocation, frees, summed lifetimes (of a group
 *    whose allocations were all freed). Enough to tell "never freed" from "freed soon
 *    after" for any group, whatever its size.
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

/* Only what vt_cat_infer.c reads: every group carries one, and the replay touches it
 * at every event. */
typedef struct {
    uint64_t first_alloc;   /* ns since the trace started */
    uint64_t nfrees;
    uint64_t life_sum;      /* ns from allocation to free, summed; 0 while some are live
                             * (inference reads it only once all are freed) */
} vt_life;

/* 16 bytes: the log is the largest thing the replay keeps after the live set. A free
 * names its allocation's entry (always logged: the log is a prefix of the trace, and
 * both are logged by the same test of the group), which holds its size and time. */
typedef struct {
    uint64_t time;
    uint32_t group;
    uint32_t op : 1;        /* VT_CATLOG_ALLOC or VT_CATLOG_FREE */
    uint32_t aux : 31;      /* allocation: size, or VT_CATLOG_BIG | index in big[];
                             * free: index of the allocation's entry */
} vt_catlog_ent;

#define VT_CATLOG_ALLOC 0u
#define VT_CATLOG_FREE  1u
#define VT_CATLOG_BIG   (1u << 30)
/* 2^19 events of 16 bytes: 8 MiB at most, about 150 iterations of a per-tensor
 * PyTorch BERT-base run; grown on demand, so small traces use little. */
#define VT_CATLOG_MAX   (1u << 19)
#define VT_CATLOG_NONE  0xffffffu   /* vt_live.logix of an allocation not logged */

/* An allocation made inside the window and still live at the end of the trace. */
typedef struct {
    uint64_t time, size;
    uint32_t group;
    uint32_t logix;         /* its allocation's entry (VT_CATLOG_NONE: not logged) */
} vt_catlog_live;

typedef struct {
    vt_catlog_ent *e;
    size_t n, cap;
    vt_catlog_live *live_end;   /* set by vt_replay_drop_live, from the live set it frees */
    size_t nlive_end;
    uint64_t *big;          /* sizes of VT_CATLOG_BIG bytes or more */
    size_t nbig, big_cap;
    int full;               /* VT_CATLOG_MAX reached: later events are not logged */
    int nomem;
    uint64_t full_time;     /* time of the first event left out */
} vt_catlog;

/* Grows the log by doubling; marks it full (or nomem) when it cannot. 0 when there is room. */
int vt_catlog_grow(vt_catlog *l, uint64_t t);
/* Keeps a size of VT_CATLOG_BIG or more: its index, or -1 (then marks the log full). */
int64_t vt_catlog_big(vt_catlog *l, uint64_t size, uint64_t t);
void vt_catlog_free(vt_catlog *l);

/* Logs an allocation; returns its index (for vt_catlog_push_free) or VT_CATLOG_NONE. */
static inline uint32_t vt_catlog_push_alloc(vt_catlog *l, uint32_t group, uint64_t t, uint64_t size)
{
    if (l->full) return VT_CATLOG_NONE;
    if (l->n == l->cap && vt_catlog_grow(l, t)) return VT_CATLOG_NONE;
    uint32_t aux = (uint32_t)size;
    if (size >= VT_CATLOG_BIG) {
        int64_t k = vt_catlog_big(l, size, t);
        if (k < 0) return VT_CATLOG_NONE;
        aux = VT_CATLOG_BIG | (uint32_t)k;
    }
    vt_catlog_ent *e = &l->e[l->n];
    e->time = t;
    e->group = group;
    e->op = VT_CATLOG_ALLOC;
    e->aux = aux;
    return (uint32_t)l->n++;
}

/* Logs the free of the allocation logged at index ix. */
static inline void vt_catlog_push_free(vt_catlog *l, uint32_t group, uint64_t t, uint32_t ix)
{
    if (l->full || ix >= l->n) return;
    if (l->n == l->cap && vt_catlog_grow(l, t)) return;
    vt_catlog_ent *e = &l->e[l->n++];
    e->time = t;
    e->group = group;
    e->op = VT_CATLOG_FREE;
    e->aux = ix;
}

/* An entry's bytes (a free's: its allocation's). */
static inline uint64_t vt_catlog_size(const vt_catlog *l, const vt_catlog_ent *e)
{
    if (e->op == VT_CATLOG_FREE) e = &l->e[e->aux];
    return e->aux & VT_CATLOG_BIG ? l->big[e->aux & (VT_CATLOG_BIG - 1)] : e->aux;
}

/* A free's allocation time. */
static inline uint64_t vt_catlog_alloc_time(const vt_catlog *l, const vt_catlog_ent *e)
{
    return l->e[e->aux].time;
}

/* nallocs: the group's allocations including this one. */
static inline void vt_life_alloc(vt_life *L, uint64_t nallocs, uint64_t t)
{
    if (nallocs == 1) L->first_alloc = t;
}

#endif /* VT_CAT_LIFE_H */
