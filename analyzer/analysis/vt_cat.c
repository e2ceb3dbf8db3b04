// SPDX-License-Identifier: MIT
/* vt_cat.c - categories: the decision per group (rules, then lifetimes), sums. */
#include "vt_cat.h"
#include "vt_rules.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An annotation's role r is category r - 1 (vt_cat_assign). */
_Static_assert(VT_ROLE_WEIGHTS - 1 == VT_CAT_WEIGHTS && VT_ROLE_ACTIVATIONS - 1 == VT_CAT_ACTIVATIONS &&
               VT_ROLE_GRADIENTS - 1 == VT_CAT_GRADIENTS && VT_ROLE_OPTIMIZER_STATE - 1 == VT_CAT_OPTIMIZER_STATE &&
               VT_ROLE_WORKSPACE - 1 == VT_CAT_WORKSPACE && VT_ROLE_TEMPORARY - 1 == VT_CAT_TEMPORARY,
               "roles are the first categories, in order");

const char *vt_cat_how_text(const vt_cat_row *r)
{
    if (!r->bytes) return NULL;
    if (!r->rule_bytes && !r->inferred_bytes && !r->annotated_bytes) return "none";   /* categories turned off */
    if (r->rule_bytes == r->bytes) return "rule";
    if (r->inferred_bytes == r->bytes) return "inferred";
    if (r->annotated_bytes == r->bytes) return "annotated";
    return "mixed";
}

/* Appends r (just loaded) to *chain; r NULL: says why (err, after what) and frees the
 * chain. */
static int chain_add(vt_rules **chain, vt_rules *r, const char *what, const char *err)
{
    if (!r) {
        fprintf(stderr, "vramtrace: %s%s\n", what, err);
        vt_rules_free(*chain);
        *chain = NULL;
        return -1;
    }
    if (*chain) vt_rules_chain(*chain, r);
    else *chain = r;
    return 0;
}

int vt_cat_rules_load(const vt_cat_opts *o, vt_rules **out)
{
    char err[600];
    vt_rules *chain = NULL;
    *out = NULL;
    if (!vt_cat_wanted(o)) return 0;
    for (size_t i = 0; o && i < o->nrules; i++)
        if (chain_add(&chain, vt_rules_load(o->rules[i], err, sizeof err), "", err)) return -1;
    if (!(o && o->no_default_rules) &&
        chain_add(&chain, vt_rules_default(err, sizeof err), "built-in category rules: ", err))
        return -1;
    *out = chain;
    return 0;
}

/* ------------------------------------------------------------------------ *
 *  The decision
 * ------------------------------------------------------------------------ */
/* VRAMTRACE_CAT_DEBUG=1 prints each group's decision on stderr: how rules and
 * lifetimes were weighed (for writing rules, and for docs/categories.md's accuracy). */
static void debug_group(const vt_analysis *a, int ti, size_t gi, const vt_group *g,
                        const vt_rules_match *m, const vt_cat_trace *ct)
{
    const vt_site *s = g->site < a->sites.n ? &a->sites.sites[g->site] : NULL;
    fprintf(stderr, "vramtrace: cat: trace %d group %zu: %s how=%d rule=%s:%u inferred=%s%s "
            "allocs=%llu bytes=%llu frames:", ti, gi, vt_cat_name((vt_cat)g->cat), g->cat_how,
            m->matched ? vt_rules_section(a->rules, m->section) : "-", m->matched ? m->line : 0,
            ct && ct->inferred ? vt_cat_name((vt_cat)ct->inferred[gi]) : "-",
            ct && ct->evidence && !ct->evidence[gi] ? " (no evidence)" : "",
            (unsigned long long)g->nallocs, (unsigned long long)g->total_bytes);
    for (uint32_t i = 0; s && i < s->nframes && i < 4; i++)
        fprintf(stderr, " %s", s->frames[i].function);
    fprintf(stderr, "\n");
}

int vt_cat_lifetimes(vt_analysis *a, const vt_cat_opts *o)
{
    if (!vt_cat_wanted(o)) return 0;
    const char *dbg = getenv("VRAMTRACE_CAT_DEBUG");
    int debug = dbg && *dbg && strcmp(dbg, "0");
    for (int ti = 0; ti < a->n; ti++) {
        vt_trace *t = &a->t[ti];
        t->cat = calloc(1, sizeof *t->cat);
        if (!t->cat || vt_cat_infer(t->rp, t->cat) || vt_cat_odd_collect(t->rp, t->cat)) {
            fprintf(stderr, "vramtrace: out of memory while inferring categories\n");
            return -1;
        }
        /* all that is needed of the log is in t->cat now */
        vt_replay_drop_catlog(t->rp);
        if (debug && t->cat->niters) {
            for (size_t k = 0; k < t->cat->niters; k++)
                fprintf(stderr, "vramtrace: cat: trace %d iteration %zu: forward %llu peak %llu backward end %llu%s\n",
                        ti, k, (unsigned long long)t->cat->iters[k].fwd, (unsigned long long)t->cat->iters[k].peak,
                        (unsigned long long)t->cat->iters[k].bwd_end,
                        t->cat->iters[k].from_pattern ? " (pattern)" : "");
        }
    }
    return 0;
}

int vt_cat_assign(vt_analysis *a, const vt_cat_opts *o)
{
    if (!vt_cat_wanted(o)) {
        for (int ti = 0; ti < a->n; ti++)
            for (size_t gi = 0; gi < vt_replay_result_of(a->t[ti].rp)->ngroups; gi++) {
                vt_group *g = &vt_replay_groups_edit(a->t[ti].rp)[gi];
                g->cat = g->cls == VT_CLASS_HOST ? VT_CAT_HOST_PINNED : VT_CAT_OTHER;
                g->cat_how = VT_CAT_HOW_NONE;
                g->cat_flags = 0;
                g->cat_rule = 0;
            }
        return 0;
    }
    /* a->rules was read by vt_analyze before the traces (vt_cat_rules_load) */
    const char *dbg = getenv("VRAMTRACE_CAT_DEBUG");
    int debug = dbg && *dbg && strcmp(dbg, "0");

    for (int ti = 0; ti < a->n; ti++) {
        vt_trace *t = &a->t[ti];
        vt_replay *rp = t->rp;
        const vt_replay_result *res = vt_replay_result_of(rp);
        if (!t->cat) return -1; /* vt_cat_lifetimes first */
        /* the categories each group's rule leaves lifetimes to choose from (0: any) */
        uint16_t *allowed = calloc(res->ngroups ? res->ngroups : 1, sizeof *allowed);
        if (!allowed) return -1;
        for (size_t gi = 0; gi < res->ngroups; gi++) {
            vt_group *g = &vt_replay_groups_edit(rp)[gi];
            const vt_site *s = g->site < a->sites.n ? &a->sites.sites[g->site] : NULL;
            vt_rules_match m;
            memset(&m, 0, sizeof m);
            if (a->rules) vt_rules_match_site(a->rules, s, g->kind, &m);
            vt_cat inf = (vt_cat)t->cat->inferred[gi];
            /* A block is a tensor, not a segment, though its stack runs through the
             * caching allocator's frames that `cache` rules name. */
            g->cat_flags = m.cache && g->kind != VT_KIND_TORCH_BLOCK ? VT_CATF_CACHE : 0;
            /* One allocation of half the device or more is a framework's pool (XLA
             * preallocates 75%), whatever frames it has. */
            const vt_device *dv = vt_replay_device(rp, g->device);
            if (dv && dv->total && g->nallocs && g->total_bytes / g->nallocs >= dv->total / 2 &&
                g->cls == VT_CLASS_DEVICE)
                g->cat_flags |= VT_CATF_CACHE;
            g->cat_rule = 0;
            if (vt_kind_is_idle(g->kind)) {
                /* No allocation of its own: idle bytes of PyTorch's segments (vt_cat_sum_at). */
                g->cat = VT_CAT_OTHER;
                g->cat_how = VT_CAT_HOW_NONE;
            } else if (g->role && g->cls != VT_CLASS_HOST) {
                /* The program said what it is (on_annotate in vt_replay.c): roles are the
                 * first categories, in order; VT_ROLE_MAX marks the allocator's
                 * rounding of annotated buffers, which is none of them. */
                g->cat = (uint8_t)(g->role < VT_ROLE_MAX ? g->role - 1 : VT_CAT_OTHER);
                g->cat_how = VT_CAT_HOW_ANNOTATED;
            } else if (g->cls == VT_CLASS_HOST) {
                /* Pinned host memory is never device memory, whatever the frames say. */
                g->cat = VT_CAT_HOST_PINNED;
                g->cat_how = VT_CAT_HOW_RULE;
            } else if (m.matched) {
                g->cat_rule = m.section;
                allowed[gi] = m.ncats > 1 ? m.allowed : 0;
                if (m.ncats > 1 && inf < VT_CAT_N && (m.allowed & (1u << inf)) &&
                    t->cat->evidence[gi]) {
                    g->cat = (uint8_t)inf;
                    g->cat_how = VT_CAT_HOW_INFERRED;
                    g->cat_flags |= VT_CATF_NARROWED;
                } else {
                    g->cat = m.cat;
                    g->cat_how = VT_CAT_HOW_RULE;
                }
            } else {
                g->cat = (uint8_t)inf;
                g->cat_how = VT_CAT_HOW_INFERRED;
            }
            /* An activation recomputed in a backward lives only until the ops that need
             * it have run, as a temporary does; it is still an activation, the one the
             * checkpoint did not keep (docs/categories.md, "Activation checkpointing"). */
            if (m.recompute == 1 && g->cls == VT_CLASS_DEVICE && !vt_kind_is_idle(g->kind) && g->cat_how != VT_CAT_HOW_ANNOTATED &&
                !(g->cat_flags & VT_CATF_CACHE)) {
                g->cat = VT_CAT_ACTIVATIONS;
                g->cat_how = VT_CAT_HOW_RULE;
                g->cat_flags |= VT_CATF_RECOMPUTED;
            }
            if (debug) debug_group(a, ti, gi, g, &m, t->cat);
        }
        int rc = vt_cat_split(a, ti, allowed);
        free(allowed);
        if (rc) return -1;
    }
    vt_rules_forget(a->rules);
    return 0;
}

void vt_cat_free(vt_analysis *a)
{
    for (int i = 0; a->t && i < a->n; i++) {
        if (!a->t[i].cat) continue;
        vt_cat_trace_free(a->t[i].cat);
        free(a->t[i].cat);
        a->t[i].cat = NULL;
    }
    vt_rules_free(a->rules);
    a->rules = NULL;
}

/* ------------------------------------------------------------------------ *
 *  Sums
 * ------------------------------------------------------------------------ */
/* The value of group g in tracker tk at `at`; 0 when g does not feed tk. */
static int group_value(const vt_group *g, const vt_tracker *tk, vt_at at, uint64_t *bytes, uint64_t *count)
{
    for (unsigned k = 0; k < g->ntk; k++) {
        if (g->tk[k] != tk) continue;
        *bytes = at == VT_AT_PEAK ? g->at_peak[k] : g->live;
        *count = at == VT_AT_PEAK ? g->at_peak_count[k] : g->live_count;
        return 1;
    }
    return 0;
}

int vt_cat_sum_order(const vt_cat_sum *s, int order[VT_CAT_N])
{
    int n = 0;
    for (int c = 0; c < VT_CAT_N; c++)
        if (s->row[c].bytes) order[n++] = c;
    for (int i = 1; i < n; i++) /* by bytes, largest first; few rows */
        for (int k = i; k > 0 && s->row[order[k]].bytes > s->row[order[k - 1]].bytes; k--) {
            int t = order[k];
            order[k] = order[k - 1];
            order[k - 1] = t;
        }
    return n;
}

void vt_cat_sum_at(const vt_analysis *a, const vt_tracker *tk, vt_at at, vt_cat_sum *out)
{
    memset(out, 0, sizeof *out);
    out->graph_pool_block_bytes = at == VT_AT_PEAK ? tk->pool_blocks_at_peak : tk->pool_blocks;
    for (int ti = 0; ti < a->n; ti++) {
        const vt_replay *rp = a->t[ti].rp;
        const vt_replay_result *res = vt_replay_result_of(rp);
        for (size_t i = 0; i < res->ngroups; i++) {
            const vt_group *g = &res->groups[i];
            uint64_t b, c;
            if (!group_value(g, tk, at, &b, &c)) continue;
            if (vt_kind_is_idle(g->kind)) {
                /* reserved by PyTorch, holding no tensor: no category's */
                out->blocks = 1;
                if (g->kind == VT_GROUP_POOL) out->graph_pool_bytes += b;
                else out->idle_cache_bytes += b;
                out->total += b;
                continue;
            }
            if (g->kind == VT_KIND_TORCH_BLOCK) out->block_bytes += b;
            vt_cat_row *r = &out->row[g->cat < VT_CAT_N ? g->cat : VT_CAT_OTHER];
            r->bytes += b;
            r->count += c;
            if (g->cat_how == VT_CAT_HOW_RULE) r->rule_bytes += b;
            else if (g->cat_how == VT_CAT_HOW_INFERRED) r->inferred_bytes += b;
            else if (g->cat_how == VT_CAT_HOW_ANNOTATED) r->annotated_bytes += b;
            if (g->cat_flags & VT_CATF_RECOMPUTED) r->recomputed_bytes += b;
            r->nallocs += g->nallocs;
            r->total_bytes += g->total_bytes;
            out->total += b;
            if (g->cat_flags & VT_CATF_CACHE) {
                out->cache_bytes += b;
                /* A segment first grown for an activation or a temporary holds nothing of
                 * that kind once training is over: at the end it is idle cache. */
                if (at == VT_AT_END && !out->blocks && (g->cat == VT_CAT_ACTIVATIONS || g->cat == VT_CAT_TEMPORARY))
                    out->idle_cache_bytes += b;
            }
        }
    }
}

int vt_cat_annotated_in_segments(const vt_analysis *a, uint64_t out[VT_CAT_N])
{
    int any = 0;
    memset(out, 0, VT_CAT_N * sizeof *out);
    for (int ti = 0; ti < a->n; ti++)
        for (unsigned role = 1; role < VT_ROLE_MAX; role++) {
            uint64_t b = vt_replay_result_of(a->t[ti].rp)->annot_max[role];
            if (b > out[role - 1]) out[role - 1] = b;
            any |= b != 0;
        }
    return any;
}

const char *vt_cat_section_name(const vt_analysis *a, uint16_t id)
{
    return id ? vt_rules_section(a->rules, id) : "";
}

static int section_cmp(const void *x, const void *y)
{
    const vt_cat_section_row *a = x, *b = y;
    if (a->bytes != b->bytes) return a->bytes > b->bytes ? -1 : 1;
    if (a->section != b->section) return a->section < b->section ? -1 : 1;
    if (a->how != b->how) return a->how < b->how ? -1 : 1;
    return (int)a->cat - (int)b->cat;
}

size_t vt_cat_sections_at(const vt_analysis *a, const vt_tracker *tk, vt_at at, vt_cat_section_row **out)
{
    vt_cat_section_row *rows = NULL;
    size_t n = 0, cap = 0;
    for (int ti = 0; ti < a->n; ti++) {
        const vt_replay *rp = a->t[ti].rp;
        const vt_replay_result *res = vt_replay_result_of(rp);
        for (size_t i = 0; i < res->ngroups; i++) {
            const vt_group *g = &res->groups[i];
            uint64_t b, c;
            if (!group_value(g, tk, at, &b, &c) || !b || vt_kind_is_idle(g->kind)) continue;
            uint16_t sec = g->cat_rule;
            size_t k = 0;
            while (k < n && !(rows[k].section == sec && rows[k].cat == g->cat && rows[k].how == g->cat_how)) k++;
            if (k == n) {
                if (n == cap) {
                    size_t nc = cap ? cap * 2 : 16;
                    vt_cat_section_row *p = realloc(rows, nc * sizeof *p);
                    if (!p) { free(rows); *out = NULL; return (size_t)-1; }
                    rows = p;
                    cap = nc;
                }
                rows[n].section = sec;
                rows[n].cat = g->cat;
                rows[n].how = g->cat_how;
                rows[n].bytes = 0;
                n++;
            }
            rows[k].bytes += b;
        }
    }
    if (n > 1) qsort(rows, n, sizeof *rows, section_cmp);
    *out = rows;
    return n;
}
