// SPDX-License-Identifier: MIT
/* vt_show_rows.c - rows of sites that read alike, and rows as JSON (vt_show_rows.h). */
#include "vt_show_rows.h"
#include "vt_names.h"
#include "vt_table.h"

#include <stdlib.h>
#include <string.h>

/* The names this file uses for vt_show.h's site lines. */
typedef vt_show_line sline;
typedef vt_show_lines slines;

static const vt_site *site_of(const vt_analysis *a, uint32_t site)
{
    return vt_show_site_of(a, site);
}

static void site_lines(const vt_site *s, const vt_frames *fv, slines *o)
{
    vt_show_site_lines(s, fv, o);
}

size_t vt_show_site_rows(const vt_analysis *a, const vt_tracker *tk, vt_at at, const vt_frames *fv, vt_row **out)
{
    size_t n = vt_rows(a, tk, at, VT_BY_SITE, out);
    if (n == (size_t)-1) return n;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if ((*out)[i].bytes) (*out)[k++] = (*out)[i];
    return vt_show_group_rows(a, fv, *out, k);
}

/* ------------------------------------------------------------------------ *
 *  Rows that read alike
 * ------------------------------------------------------------------------ */
static const char *key_str(const char *p)
{
    return p && *p ? p : NULL;
}

static uint64_t lines_hash(const slines *o)
{
    uint64_t h = o->n;
    for (size_t i = 0; i < o->n; i++) {
        const sline *l = &o->l[i];
        h = vt_hash64(h ^ (uint64_t)(uintptr_t)l->op);
        if (!l->fr) continue;
        h = vt_hash64(h ^ (uint64_t)(uintptr_t)key_str(l->fr->function));
        h = vt_hash64(h ^ (uint64_t)(uintptr_t)key_str(l->fr->file_base) ^ (uint64_t)l->fr->line << 32);
        h = vt_hash64(h ^ (uint64_t)(uintptr_t)key_str(l->fr->module) ^ (uint64_t)(uintptr_t)l->lead);
    }
    return h;
}

static int lines_equal(const slines *x, const slines *y)
{
    if (x->n != y->n) return 0;
    for (size_t i = 0; i < x->n; i++) {
        const sline *a = &x->l[i], *b = &y->l[i];
        if (a->op != b->op || !a->fr != !b->fr || (a->lead && b->lead && strcmp(a->lead, b->lead))) return 0;
        if (!a->fr) continue;
        if (a->fr->line != b->fr->line || key_str(a->fr->function) != key_str(b->fr->function) ||
            key_str(a->fr->file_base) != key_str(b->fr->file_base) ||
            key_str(a->fr->module) != key_str(b->fr->module))
            return 0;
    }
    return 1;
}

typedef struct {
    uint64_t h;
    size_t i;
} hrow;

static int hrow_cmp(const void *x, const void *y)
{
    const hrow *a = x, *b = y;
    if (a->h != b->h) return a->h < b->h ? -1 : 1;
    return a->i < b->i ? -1 : a->i > b->i;
}

size_t vt_show_group_rows(const vt_analysis *a, const vt_frames *fv, vt_row *rows, size_t n)
{
    if (n < 2) return n;
    hrow *hr = malloc(n * sizeof *hr);
    slines *x = malloc(sizeof *x), *y = malloc(sizeof *y);
    uint8_t *gone = calloc(n, 1);
    if (!hr || !x || !y || !gone) goto out;
    for (size_t i = 0; i < n; i++) {
        const vt_site *s = site_of(a, rows[i].key);
        if (s) site_lines(s, fv, x);
        hr[i] = (hrow){ s ? lines_hash(x) : 0, i };
    }
    qsort(hr, n, sizeof *hr, hrow_cmp);
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && hr[j].h == hr[i].h) j++;
        /* rows of one hash: each joins the first earlier one that reads the same */
        for (size_t k = i + 1; k < j; k++) {
            const vt_site *sk = site_of(a, rows[hr[k].i].key);
            if (!sk) continue;
            site_lines(sk, fv, y);
            for (size_t m = i; m < k; m++) {
                const vt_site *sm = site_of(a, rows[hr[m].i].key);
                if (gone[hr[m].i] || !sm) continue;
                site_lines(sm, fv, x);
                if (!lines_equal(x, y)) continue;
                vt_row *to = &rows[hr[m].i], *from = &rows[hr[k].i];
                to->bytes += from->bytes;
                to->count += from->count;
                to->nallocs += from->nallocs;
                to->total_bytes += from->total_bytes;
                gone[hr[k].i] = 1;
                break;
            }
        }
        i = j;
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!gone[i]) rows[k++] = rows[i];
    n = k;
    vt_rows_sort(a, VT_BY_SITE, rows, n);
out:
    free(hr);
    free(x);
    free(y);
    free(gone);
    return n;
}

void vt_show_row_json(vt_json *j, const vt_analysis *a, vt_by by, const vt_row *r)
{
    vt_json_obj(j, NULL);
    if (by == VT_BY_KIND) vt_json_str(j, "kind", vt_kind_name(r->key));
    else if (by == VT_BY_LAYER) vt_json_str(j, "layer", r->key == UINT32_MAX ? NULL : vt_row_name(a, by, r->key));
    else if (by != VT_BY_SITE) vt_json_str(j, by == VT_BY_FUNCTION ? "function" : "module",
                                           vt_row_name(a, by, r->key));
    if (by == VT_BY_LAYER) {
        vt_json_u64(j, "max_bytes", r->max_bytes);
        vt_json_u64(j, "max_time_ns", r->max_time);
    }
    vt_json_u64(j, "bytes", r->bytes);
    vt_json_u64(j, "live_count", r->count);
    vt_json_u64(j, "count", r->nallocs);
    vt_json_u64(j, "total_bytes", r->total_bytes);
    if (by == VT_BY_SITE) vt_show_site_json(j, a, r->key);
    vt_json_end(j);
}

void vt_show_row_site(FILE *f, const vt_analysis *a, uint32_t key, const vt_frames *fv, int indent)
{
    if (key == VT_ROW_IDLE) fputs(VT_ROW_IDLE_NAME ": " VT_ROW_IDLE_WHAT "\n", f);
    else if (key == VT_ROW_POOL) fputs(VT_ROW_POOL_NAME ": " VT_ROW_POOL_WHAT "\n", f);
    else vt_show_site(f, a, key, fv, indent);
}
