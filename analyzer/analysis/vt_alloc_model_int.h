/* SPDX-License-Identifier: MIT */
/* vt_alloc_model_int.h - what the allocator models share behind vt_alloc_model.h: the
 * model object, its operations, and the bookkeeping of the figures every model keeps. */
#ifndef VT_ALLOC_MODEL_INT_H
#define VT_ALLOC_MODEL_INT_H

#include "vt_alloc_model.h"

typedef struct {
    int  (*alloc)(vt_am *m, uint64_t size, uint32_t stream, uint32_t *handle);
    void (*release)(vt_am *m, uint32_t handle);
    void (*destroy)(vt_am *m);
} vt_am_ops;

struct vt_am {
    const vt_am_ops *ops;
    vt_am_kind kind;
    vt_am_conf conf;
    uint64_t limit;
    vt_am_stats st;
};

/* The caching allocator's engine, shared by the caching, expandable and async models:
 * its options say which of them it is. */
typedef struct {
    int expandable;       /* segments grow by mapping pages (expandable_segments:True) */
    int one_pool;         /* no small/large split: every request from one pool */
    int one_stream;       /* blocks are reused across streams */
    uint64_t small_page;  /* expandable: page of the small pool (2 MiB) */
    uint64_t large_page;  /* expandable: page of the large pool (20 MiB) */
    int round_512_only;   /* no roundup_power2_divisions, no max_split_size */
} vt_am_heap_opts;

vt_am *vt_am_exact_new(const vt_am_conf *c, uint64_t limit);
vt_am *vt_am_heap_new(vt_am_kind kind, const vt_am_heap_opts *o, const vt_am_conf *c, uint64_t limit);
vt_am *vt_am_async_new(const vt_am_conf *c, uint64_t limit);

/* Called at the end of every request that succeeded: the peaks follow. The
 * fragmentation at the reserved peak is taken at the fullest moment of that peak (a
 * cache stays at its peak for long, and the moment it was reached is its emptiest). */
static inline void vt_am_settle(vt_am_stats *s)
{
    if (s->reserved > s->peak_reserved) {
        s->peak_reserved = s->reserved;
        s->allocated_at_peak = s->allocated;
    } else if (s->reserved == s->peak_reserved && s->allocated > s->allocated_at_peak) {
        s->allocated_at_peak = s->allocated;
    }
    if (s->allocated > s->peak_allocated) s->peak_allocated = s->allocated;
    if (s->segments > s->peak_segments) s->peak_segments = s->segments;
}

#endif /* VT_ALLOC_MODEL_INT_H */
