// SPDX-License-Identifier: MIT
/* vt_rows.c - groups summed by a key (vt_rows.h). */
#include "vt_rows.h"
#include "vt_cat_list.h"
#include "vt_layer.h"
#include "vt_names.h"

#include <stdlib.h>
#include <string.h>

const char *vt_row_name(const vt_analysis *a, vt_by by, uint32_t key)
{
    switch (by) {
    case VT_BY_SITE:
        if (key == VT_ROW_IDLE) return VT_ROW_IDLE_NAME;
        if (key == VT_ROW_POOL) return VT_ROW_POOL_NAME;
        return key < a->sites.n && a->sites.sites[key].nframes
                   ? a->sites.sites[key].frames[0].function : "[no stack]";
    case VT_BY_FUNCTION:
    case VT_BY_MODULE: {
        const char *s = vt_strtab_get(&a->sites.names, key);
        return s ? s : "?";
    }
    case VT_BY_CATEGORY:
        return vt_cat_name((vt_cat)key);
    case VT_BY_LAYER: {
        if (key == VT_ROW_IDLE) return VT_ROW_IDLE_NAME;
        if (key == VT_ROW_POOL) return VT_ROW_POOL_NAME;
        const char *s = key == UINT32_MAX ? VT_LAYER_NONE : vt_strtab_get(&a->sites.names, key);
        return s ? s : "?";
    }
    case VT_BY_KIND:
    default:
        return vt_kind_name(key);
    }
}

static uint32_t row_key(const vt_analysis *a, vt_by by, const vt_group *g)
{
    const vt_site *s = g->site < a->sites.n ? &a->sites.sites[g->site] : NULL;
    if (vt_kind_is_idle(g->kind) && (by == VT_BY_SITE || by == VT_BY_LAYER))
        return g->kind == VT_GROUP_POOL ? VT_ROW_POOL : VT_ROW_IDLE;
    switch (by) {
    case VT_BY_SITE: return g->site;
    case VT_BY_FUNCTION: return s ? s->function_id : UINT32_MAX;
    case VT_BY_MODULE: return s ? s->module_id : UINT32_MAX;
    case VT_BY_CATEGORY: return g->cat;
    case VT_BY_LAYER: return g->layer ? g->layer->name_id : UINT32_MAX;
    case VT_BY_KIND: default: return g->kind;
    }
}

/* qsort has no context argument in C11: the comparison reads the analysis and the
 * key kind from here, set just before each sort (the CLI is single-threaded here). */
static const vt_analysis *sort_a;
static vt_by sort_by;

static int key_cmp(uint32_t a, uint32_t b)
{
    if (sort_by == VT_BY_SITE) return vt_sites_cmp(&sort_a->sites, a, b);
    return strcmp(vt_row_name(sort_a, sort_by, a), vt_row_name(sort_a, sort_by, b));
}

static int row_cmp(const void *x, const void *y)
{
    const vt_row *a = x, *b = y;
    if (a->bytes != b->bytes) return a->bytes > b->bytes ? -1 : 1;
    if (a->total_bytes != b->total_bytes) return a->total_bytes > b->total_bytes ? -1 : 1;
    if (a->key == b->key) return 0;
    int c = key_cmp(a->key, b->key);
    return c ? c : (a->key < b->key ? -1 : 1);
}

void vt_rows_sort(const vt_analysis *a, vt_by by, vt_row *rows, size_t n)
{
    sort_a = a;
    sort_by = by;
    if (n > 1) qsort(rows, n, sizeof *rows, row_cmp);
}

/* Rows are gathered in a map key -> row index. */
typedef struct {
    vt_idmap ix;
    vt_row *rows;
    size_t n, cap;
} row_set;

static vt_row *row_for(row_set *rs, uint32_t key)
{
    uint32_t *v = vt_idmap_get(&rs->ix, key);
    if (v) return &rs->rows[*v];
    if (rs->n == rs->cap) {
        size_t c = rs->cap ? rs->cap * 2 : 64;
        vt_row *p = realloc(rs->rows, c * sizeof *p);
        if (!p) return NULL;
        rs->rows = p;
        rs->cap = c;
    }
    if (vt_idmap_put(&rs->ix, key, (uint32_t)rs->n)) return NULL;
    vt_row *r = &rs->rows[rs->n++];
    memset(r, 0, sizeof *r);
    r->key = key;
    return r;
}

static size_t rows_done(const vt_analysis *a, vt_by by, row_set *rs, int failed, vt_row **out)
{
    vt_idmap_free(&rs->ix);
    if (failed) {
        free(rs->rows);
        *out = NULL;
        return (size_t)-1;
    }
    size_t k = 0;
    for (size_t i = 0; i < rs->n; i++)
        if (rs->rows[i].bytes || rs->rows[i].nallocs) rs->rows[k++] = rs->rows[i];
    vt_rows_sort(a, by, rs->rows, k);
    *out = rs->rows;
    return k;
}

size_t vt_rows(const vt_analysis *a, const vt_tracker *tk, vt_at at, vt_by by, vt_row **out)
{
    row_set rs = { 0 };
    int failed = 0;
    for (int ti = 0; ti < a->n && !failed; ti++) {
        const vt_replay *rp = a->t[ti].rp;
        const vt_replay_result *res = vt_replay_result_of(rp);
        for (size_t i = 0; i < res->ngroups; i++) {
            const vt_group *g = &res->groups[i];
            int k = -1;
            for (unsigned j = 0; j < g->ntk; j++)
                if (g->tk[j] == tk) k = (int)j;
            if (k < 0) continue;
            vt_row *r = row_for(&rs, row_key(a, by, g));
            if (!r) { failed = 1; break; }
            r->bytes += at == VT_AT_PEAK ? g->at_peak[k] : g->live;
            r->count += at == VT_AT_PEAK ? g->at_peak_count[k] : g->live_count;
            r->nallocs += g->nallocs;
            r->total_bytes += g->total_bytes;
            if (by == VT_BY_LAYER && g->layer && g->layer->max > r->max_bytes) {
                r->max_bytes = g->layer->max;
                r->max_time = g->layer->max_time;
            }
        }
    }
    return rows_done(a, by, &rs, failed, out);
}

size_t vt_rows_oom(const vt_analysis *a, int ti, const vt_oom *o, vt_by by, vt_row **out)
{
    row_set rs = { 0 };
    int failed = 0;
    const vt_replay *rp = a->t[ti].rp;
    const vt_replay_result *res = vt_replay_result_of(rp);
    for (uint32_t i = 0; i < o->nsnap; i++) {
        const vt_group *g = &res->groups[o->snap_group[i]];
        vt_row *r = row_for(&rs, row_key(a, by, g));
        if (!r) { failed = 1; break; }
        r->bytes += o->snap_bytes[i];
        r->nallocs += g->nallocs;
        r->total_bytes += g->total_bytes;
    }
    return rows_done(a, by, &rs, failed, out);
}

int vt_layer_any(const vt_analysis *a)
{
    for (int i = 0; i < a->n; i++) {
        vt_layer_ctr *const *c;
        if (a->t[i].rp && vt_layers_list(a->t[i].rp, &c)) return 1;
    }
    return 0;
}
