// SPDX-License-Identifier: MIT
/* vt_export_counters.c - the counter points of the Perfetto exports. */
#include "vt_export_counters.h"

#include <stdlib.h>

typedef struct {
    const vt_series *s;
    vt_counter_fn fn;
    void *ctx;
    uint64_t *last;       /* per series + total: last value written + 1 (0 = none yet) */
} walker;

static void point(walker *w, uint64_t t, uint64_t total, const uint64_t *vals)
{
    const vt_series *s = w->s;
    for (size_t i = 0; i < s->nseries; i++) {
        if (w->last[i] == vals[i] + 1) continue;
        w->last[i] = vals[i] + 1;
        w->fn(w->ctx, i, t, vals[i]);
    }
    if (w->last[s->nseries] != total + 1) {
        w->last[s->nseries] = total + 1;
        w->fn(w->ctx, s->nseries, t, total);
    }
}

int vt_export_counters(const vt_series *s, vt_counter_fn fn, void *ctx)
{
    walker w = { s, fn, ctx, calloc(s->nseries + 1, sizeof *w.last) };
    if (!w.last) return -1;
    for (size_t b = 0; b < s->nbuckets; b++) {
        const vt_bucket *bk = &s->b[b];
        const uint64_t *vmax = &s->at_max[b * s->nseries], *vmin = &s->at_min[b * s->nseries];
        /* NVML at the bucket's start: before its points, so all are in time order */
        if (bk->nvml) fn(ctx, s->nseries + 1, vt_series_bucket_start(s, b), bk->nvml - 1);
        if (bk->tmin < bk->tmax) {
            point(&w, bk->tmin, bk->min, vmin);
            point(&w, bk->tmax, bk->max, vmax);
        } else if (bk->tmax < bk->tmin) {
            point(&w, bk->tmax, bk->max, vmax);
            point(&w, bk->tmin, bk->min, vmin);
        } else {
            point(&w, bk->tmax, bk->max, vmax);
        }
    }
    free(w.last);
    return 0;
}
