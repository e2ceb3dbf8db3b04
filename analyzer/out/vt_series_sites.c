// SPDX-License-Identifier: MIT
/* vt_series_sites.c - the sites of `timeline --by site`, as report shows them. */
#include "vt_series_sites.h"
#include "vt_show.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Row key r as report's text view shows it, on one line of at most `lines` lines. */
static char *row_text(const vt_analysis *a, uint32_t key, int lines)
{
    if (key >= a->sites.n) return strdup(vt_row_name(a, VT_BY_SITE, key));
    char *p = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&p, &len);
    if (!f) return NULL;
    vt_show_site_inline(f, a, key, &(vt_frames){ VT_VIEW_USER, 0 }, lines);
    if (fclose(f)) { free(p); return NULL; }
    while (len && p[len - 1] == '\n') p[--len] = 0;
    return p;
}

typedef struct {
    uint32_t key;         /* first (largest) row of the group */
    uint64_t bytes, total;
} group;

static int by_bytes(const void *x, const void *y)
{
    const group *a = x, *b = y;
    if (a->bytes != b->bytes) return a->bytes > b->bytes ? -1 : 1;
    if (a->total != b->total) return a->total > b->total ? -1 : 1;
    return a->key < b->key ? -1 : a->key > b->key;
}

int vt_series_sites(vt_site_set *out, const vt_analysis *a, const vt_tracker *tk, size_t top)
{
    memset(out, 0, sizeof *out);
    vt_row *rows = NULL;
    size_t n = vt_rows(a, tk, VT_AT_PEAK, VT_BY_SITE, &rows);
    if (n == (size_t)-1) return -1;
    /* rows that read alike in report's default view are one group */
    vt_strtab texts = { 0 };
    group *gs = calloc(n ? n : 1, sizeof *gs);
    uint32_t *gid = calloc(n ? n : 1, sizeof *gid);
    int rc = !gs || !gid ? -1 : 0;
    for (size_t i = 0; i < n && !rc; i++) {
        char *t = row_text(a, rows[i].key, VT_SHOW_FRAMES);
        size_t before = texts.n;
        uint32_t id = t ? vt_strtab_intern(&texts, t, strlen(t)) : UINT32_MAX;
        free(t);
        if (id == UINT32_MAX) { rc = -1; break; }
        gid[i] = id;
        if (texts.n > before) gs[id].key = rows[i].key; /* rows come largest first */
        gs[id].bytes += rows[i].bytes;
        gs[id].total += rows[i].total_bytes;
    }
    size_t ng = texts.n;
    group *order = rc ? NULL : malloc((ng ? ng : 1) * sizeof *order);
    if (!rc && !order) rc = -1;
    if (!rc) {
        memcpy(order, gs, ng * sizeof *order);
        qsort(order, ng, sizeof *order, by_bytes);
        out->ntop = ng < top ? ng : top;
        out->nrest = ng - out->ntop;
        out->top = calloc(out->ntop ? out->ntop : 1, sizeof *out->top);
        if (!out->top) rc = -1;
    }
    /* the group id of each top entry, to map the rows */
    vt_idmap top_of = { 0 };
    for (size_t i = 0; !rc && i < out->ntop; i++) {
        vt_site_series *t = &out->top[i];
        t->site = order[i].key;
        t->at_peak = order[i].bytes;
        t->label = row_text(a, t->site, 3);
        if (!t->label) { rc = -1; break; }
        for (size_t j = 0; j < i; j++) {
            /* two groups that read the same on three lines: both in full */
            if (strcmp(out->top[j].label, t->label)) continue;
            char *x = row_text(a, out->top[j].site, VT_SHOW_FRAMES), *y = row_text(a, t->site, VT_SHOW_FRAMES);
            if (!x || !y) { free(x); free(y); rc = -1; break; }
            free(out->top[j].label);
            free(t->label);
            out->top[j].label = x;
            t->label = y;
        }
    }
    for (size_t i = 0; !rc && i < n; i++) {
        /* the group of row i: its text id; the top entry of that group, if any */
        uint32_t id = gid[i];
        const uint32_t *ti = vt_idmap_get(&top_of, id);
        if (!ti) {
            for (size_t k = 0; k < out->ntop; k++)
                if (gs[id].key == out->top[k].site) {
                    if (vt_idmap_put(&top_of, id, (uint32_t)k)) rc = -1;
                    ti = vt_idmap_get(&top_of, id);
                    break;
                }
        }
        if (!rc && ti && vt_idmap_put(&out->of, rows[i].key, *ti)) rc = -1;
    }
    vt_idmap_free(&top_of);
    free(order);
    free(gs);
    free(gid);
    free(rows);
    vt_strtab_free(&texts);
    if (rc) vt_series_sites_free(out);
    return rc;
}

void vt_series_sites_free(vt_site_set *s)
{
    for (size_t i = 0; s->top && i < s->ntop; i++) free(s->top[i].label);
    free(s->top);
    vt_idmap_free(&s->of);
    memset(s, 0, sizeof *s);
}
