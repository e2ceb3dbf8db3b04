// SPDX-License-Identifier: MIT
/* vt_eset.c - the selected groups and their weights (vt_eset.h). */
#include "vt_eset.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ *
 *  Selection
 * ------------------------------------------------------------------------ */
const vt_tracker *vt_series_tracker(const vt_analysis *a, int device)
{
    if (device == VT_ALL_DEVICES) return &a->global;
    const vt_device *d = a->n ? vt_replay_device(a->t[0].rp, device) : NULL;
    return d ? &d->dev : NULL;
}

int vt_series_group_tk(const vt_analysis *a, const vt_group *g, int device)
{
    const vt_tracker *tk = vt_series_tracker(a, device);
    if (!tk || g->cls != VT_CLASS_DEVICE) return -1;
    for (unsigned k = 0; k < g->ntk; k++)
        if (g->tk[k] == tk) return (int)k;
    return -1;
}

/* ------------------------------------------------------------------------ *
 *  Weights
 * ------------------------------------------------------------------------ */
const char *vt_what_name(vt_what w)
{
    return w == VT_WHAT_ALLOCATED ? "allocated" : w == VT_WHAT_LEAKED ? "leaked" : "peak";
}

int vt_what_parse(const char *s)
{
    if (!strcmp(s, "peak")) return VT_WHAT_PEAK;
    if (!strcmp(s, "allocated")) return VT_WHAT_ALLOCATED;
    if (!strcmp(s, "leaked")) return VT_WHAT_LEAKED;
    return -1;
}

int vt_eset_init(vt_eset *e, const vt_analysis *a, int device)
{
    memset(e, 0, sizeof *e);
    e->a = a;
    e->device = device;
    e->tk = vt_series_tracker(a, device);
    if (!e->tk) {
        fprintf(stderr, "vramtrace: %s: no device %d in this trace\n", a->t[0].path, device);
        return 2;
    }
    const vt_replay *rp = a->t[0].rp;
    const vt_replay_result *res = vt_replay_result_of(rp);
    e->g = calloc(res->ngroups ? res->ngroups : 1, sizeof *e->g);
    if (!e->g) {
        fprintf(stderr, "vramtrace: out of memory\n");
        return 2;
    }
    for (size_t i = 0; i < res->ngroups; i++) {
        const vt_group *g = &res->groups[i];
        int k = vt_series_group_tk(a, g, device);
        if (k < 0) continue;
        vt_egroup *eg = &e->g[e->n++];
        eg->g = g;
        eg->ti = 0;
        eg->k = k;
        for (int w = 0; w < 3; w++) e->sum[w] += vt_egroup_bytes(e, eg, (vt_what)w);
    }
    return 0;
}

void vt_eset_free(vt_eset *e)
{
    free(e->g);
    memset(e, 0, sizeof *e);
}

uint64_t vt_egroup_bytes(const vt_eset *e, const vt_egroup *g, vt_what w)
{
    (void)e;
    switch (w) {
    case VT_WHAT_ALLOCATED: return g->g->total_bytes;
    case VT_WHAT_LEAKED: return g->g->live;
    default: return g->g->at_peak[g->k];
    }
}

uint64_t vt_egroup_count(const vt_eset *e, const vt_egroup *g, vt_what w)
{
    (void)e;
    switch (w) {
    case VT_WHAT_ALLOCATED: return g->g->nallocs;
    case VT_WHAT_LEAKED: return g->g->live_count;
    default: return g->g->at_peak_count[g->k];
    }
}

/* ------------------------------------------------------------------------ *
 *  Over the run, each byte once
 * ------------------------------------------------------------------------ */
int vt_eset_end(const vt_eset *e, vt_egroup_end *out)
{
    const vt_replay_result *res = vt_replay_result_of(e->a->t[0].rp);
    /* per group of the replay: its segments' bytes, how many, how many still held */
    typedef struct { uint64_t bytes, n, live; } segsum;
    segsum *ss = NULL;
    if (res->nsegs) {
        ss = calloc(res->ngroups ? res->ngroups : 1, sizeof *ss);
        if (!ss) return -1;
        for (size_t i = 0; i < res->nsegs; i++) {
            const vt_seg *sg = &res->segs[i];
            if (sg->group >= res->ngroups) continue;
            ss[sg->group].bytes += sg->bytes;
            ss[sg->group].n++;
            ss[sg->group].live += !sg->gone;
        }
    }
    for (size_t i = 0; i < e->n; i++) {
        const vt_group *g = e->g[i].g;
        vt_egroup_end *o = &out[i];
        if (vt_kind_is_idle(g->kind)) {  /* the idle cache and private pools' idle bytes */
            *o = (vt_egroup_end){ .allocated = g->live };
            continue;
        }
        size_t gi = (size_t)(g - res->groups);
        segsum s = ss && gi < res->ngroups ? ss[gi] : (segsum){ 0, 0, 0 };
        /* a part split off a group after the replay (vt_cat_split.c) may hold some of
         * the allocations its segments were counted in: never below what is live */
        uint64_t plain_live = g->live_count > s.live ? g->live_count - s.live : 0;
        o->allocated = g->total_bytes > s.bytes ? g->total_bytes - s.bytes : 0;
        if (o->allocated < g->live) o->allocated = g->live;
        o->freed = o->allocated - g->live;
        o->allocs = g->nallocs > s.n ? g->nallocs - s.n : 0;
        if (o->allocs < plain_live) o->allocs = plain_live;
        o->frees = o->allocs - plain_live;
    }
    free(ss);
    return 0;
}

const char *vt_eset_label(const vt_eset *e, char *buf, size_t n)
{
    if (e->device == VT_ALL_DEVICES) {
        snprintf(buf, n, "all devices");
        return buf;
    }
    const vt_device *d = vt_replay_device(e->a->t[0].rp, e->device);
    if (d && d->has_info && d->name[0]) snprintf(buf, n, "device %d (%s)", e->device, d->name);
    else snprintf(buf, n, "device %d", e->device);
    return buf;
}
