// SPDX-License-Identifier: MIT
/* vt_cat_split.c - categories per allocation where one call site makes two kinds.
 *
 * A category is decided per group (stack, kind, device), by the votes of its allocations'
 * lifetimes (vt_cat_infer.c). Some call sites make two kinds of tensor: a backward op's
 * output becomes the parameter's .grad in the first step (kept: a gradient) and is
 * added into it and freed in every later step (a temporary); a layer's output inside a
 * checkpointed segment is dropped at once, except the segment's last, kept for the
 * backward (an activation). The majority would name all of them. So after the groups
 * are decided, the allocations of the window (vt_cat_life.h) whose own label differs
 * from their group's, and which the group's rule allows, move to a part of the group
 * made for that label: same stack, kind, device and site, its own category. Its bytes
 * at each tracker's peak are those of its allocations live then, known from the window's
 * times (an allocation made at or before the peak and freed after it). Allocations
 * past the window stay in the group they were counted in.
 *
 * The log is gone by the time rules have decided (it is freed before the sites are
 * made), so what is needed of it is kept first (vt_cat_odd_collect): the allocations
 * whose label is not their group's majority, usually a few hundred. */
#include "vt_cat.h"

#include <stdlib.h>
#include <string.h>

#define NO_LABEL 0xffu

int vt_cat_odd_collect(const vt_replay *rp, vt_cat_trace *ct)
{
    const vt_replay_result *res = vt_replay_result_of(rp);
    const vt_catlog *l = res->catlog;
    if (!ct->niters || !l || !l->n) return 0;
    size_t n = l->n, ng = res->ngroups;
    uint8_t *lab = malloc(n);
    uint64_t *freed = malloc(n * sizeof *freed);
    int rc = -1;
    if (!lab || !freed) goto out;
    memset(lab, NO_LABEL, n);
    /* Each allocation's label, where the window knows how it ended: freed in it, or
     * still live at the end of the trace. */
    for (size_t i = 0; i < n; i++) {
        const vt_catlog_ent *e = &l->e[i];
        if (e->op != VT_CATLOG_FREE || e->aux >= n) continue;
        freed[e->aux] = e->time;
        lab[e->aux] = (uint8_t)vt_cat_label(ct, l->e[e->aux].time, e->time);
    }
    for (size_t i = 0; i < l->nlive_end; i++) {
        uint32_t x = l->live_end[i].logix;
        if (x >= n) continue;
        freed[x] = VT_CAT_FREE_NEVER;
        lab[x] = (uint8_t)vt_cat_label(ct, l->e[x].time, VT_CAT_FREE_NEVER);
    }
    size_t cap = 0;
    for (size_t i = 0; i < n; i++) {
        const vt_catlog_ent *e = &l->e[i];
        unsigned c = lab[i];
        if (e->op != VT_CATLOG_ALLOC || c == NO_LABEL || c == VT_CAT_OTHER || e->group >= ng ||
            c == ct->inferred[e->group])
            continue;
        if (ct->nodd == cap) {
            size_t nc = cap ? cap * 2 : 256;
            vt_cat_odd *p = realloc(ct->odd, nc * sizeof *p);
            if (!p) goto out;
            ct->odd = p;
            cap = nc;
        }
        ct->odd[ct->nodd++] = (vt_cat_odd){ e->time, freed[i], vt_catlog_size(l, e), e->group, 0, (uint8_t)c };
    }
    rc = 0;
out:
    free(lab);
    free(freed);
    return rc;
}

/* Tracker tk's peak on the clock of the trace whose result is res; 0 when unknown. */
static int peak_here(const vt_tracker *tk, const vt_replay_result *res, uint64_t *t)
{
    if (!tk || !tk->peak) return 0;
    if (tk->trace == res->trace) *t = tk->peak_time;
    else if (tk->peak_rt >= res->rt_base) *t = tk->peak_rt - res->rt_base;
    else return 0;
    return 1;
}

/* Label c where a rule allows only the categories of mask: itself, or, for what was
 * kept past the last backward (weights, gradients, optimizer_state), the one such
 * category the rule allows: a backward op's output kept to the end is a gradient
 * whether or not the window's phases saw it made inside the backward (the embedding's
 * gradient comes after the last activation is freed). VT_CAT_N: none. */
#define KEPT (1u << VT_CAT_WEIGHTS | 1u << VT_CAT_GRADIENTS | 1u << VT_CAT_OPTIMIZER_STATE)
static unsigned within(unsigned c, unsigned mask)
{
    if (mask & (1u << c)) return c;
    unsigned k = mask & KEPT;
    if (!((1u << c) & KEPT) || !k || (k & (k - 1))) return VT_CAT_N;
    return (unsigned)__builtin_ctz(k);
}

/* May lifetimes move group g's allocations elsewhere? Only where they decided it. */
static int splittable(const vt_group *g)
{
    return g->cls == VT_CLASS_DEVICE && !vt_kind_is_idle(g->kind) && !g->role && !g->split &&
           g->cat_how == VT_CAT_HOW_INFERRED && !(g->cat_flags & (VT_CATF_CACHE | VT_CATF_RECOMPUTED));
}

int vt_cat_split(vt_analysis *a, int ti, const uint16_t *allowed)
{
    vt_trace *t = &a->t[ti];
    vt_cat_trace *ct = t->cat;
    if (!ct || !ct->nodd) return 0;
    const vt_replay_result *res = vt_replay_result_of(t->rp);
    size_t ng = res->ngroups;
    uint32_t *part = calloc(ng * VT_CAT_N, sizeof *part);   /* (group, label) -> part + 1 */
    if (!part) return -1;
    for (size_t i = 0; i < ct->nodd; i++) {
        vt_cat_odd *o = &ct->odd[i];
        if (o->group >= ng) continue;
        unsigned c = o->cat;
        const vt_group *g = &res->groups[o->group];
        if (allowed && allowed[o->group]) c = within(c, allowed[o->group]);
        if (c == g->cat || c >= VT_CAT_N || !splittable(g)) continue;
        uint32_t *p = &part[(size_t)o->group * VT_CAT_N + c];
        if (!*p) {
            vt_group q = *g;
            q.cat = (uint8_t)c;
            q.split = 1;
            q.live = q.live_count = q.nallocs = q.total_bytes = 0;
            memset(q.at_peak, 0, sizeof q.at_peak);
            memset(q.at_peak_count, 0, sizeof q.at_peak_count);
            int64_t k = vt_replay_add_group(t->rp, &q);
            if (k < 0) { free(part); return -1; }
            res = vt_replay_result_of(t->rp);
            *p = (uint32_t)k + 1;
        }
        vt_group *gs = vt_replay_groups_edit(t->rp);
        vt_group *from = &gs[o->group], *to = &gs[*p - 1];
        o->part = *p;
        o->cat = (uint8_t)c;
        to->nallocs++;
        to->total_bytes += o->size;
        if (from->nallocs) from->nallocs--;
        from->total_bytes -= from->total_bytes >= o->size ? o->size : from->total_bytes;
        if (o->freed == VT_CAT_FREE_NEVER && from->live >= o->size && from->live_count) {
            to->live += o->size;
            to->live_count++;
            from->live -= o->size;
            from->live_count--;
        }
        for (unsigned k = 0; k < from->ntk; k++) {
            uint64_t pt;
            if (!peak_here(from->tk[k], res, &pt) || o->time > pt || o->freed <= pt) continue;
            if (from->at_peak[k] < o->size || !from->at_peak_count[k]) continue;
            to->at_peak[k] += o->size;
            to->at_peak_count[k]++;
            from->at_peak[k] -= o->size;
            from->at_peak_count[k]--;
        }
    }
    free(part);
    return 0;
}
