// SPDX-License-Identifier: MIT
/* vt_html_moments.c - the timeline page's top sites at its sampled moments, as JSON
 * (vt_moments.h has what they are; vt_timeline.js reads them). */
#include "vt_html.h"
#include "vt_export_common.h"
#include "vt_cat.h"

#include <inttypes.h>

static void u32s(FILE *f, const char *key, const uint32_t *v, size_t n)
{
    fprintf(f, ",\n\"%s\":[", key);
    for (size_t i = 0; i < n; i++) fprintf(f, "%s%" PRIu32, i ? "," : "", v[i]);
    fputc(']', f);
}

static void u64s(FILE *f, const char *key, const uint64_t *v, size_t n)
{
    fprintf(f, ",\n\"%s\":[", key);
    for (size_t i = 0; i < n; i++) fprintf(f, "%s%" PRIu64, i ? "," : "", v[i]);
    fputc(']', f);
}

void vt_html_moments(FILE *f, const vt_moments *m)
{
    fprintf(f, ",\n\"stacks\":{\"top\":%u,\"cats\":[", m->top);
    for (int c = 0; c < VT_CAT_N; c++) {
        if (c) fputc(',', f);
        vt_export_jstr(f, vt_cat_name((vt_cat)c));
    }
    fputs("],\n\"sites\":[", f);
    for (size_t i = 0; i < m->nsites; i++) {
        fputs(i ? ",\n[" : "\n[", f);
        vt_export_jstr(f, m->sites[i].label);
        fputc(',', f);
        vt_export_jstr(f, m->sites[i].detail);
        fputc(',', f);
        vt_export_jstr(f, m->sites[i].layer);
        fputc(']', f);
    }
    /* rows: site, category, bytes, allocations, four numbers each */
    fputs("],\n\"rows\":[", f);
    for (size_t i = 0; i < m->nrows; i++) {
        const vt_moment_row *r = &m->rows[i];
        fprintf(f, "%s%" PRIu32 ",%u,%" PRIu64 ",%" PRIu64, i ? "," : "", r->site, (unsigned)r->cat, r->bytes, r->count);
    }
    fputc(']', f);
    u64s(f, "total", m->total, m->nstates);
    u64s(f, "restBytes", m->rest_bytes, m->nstates);
    u32s(f, "restSites", m->rest_sites, m->nstates);
    u32s(f, "first", m->first, m->nstates + 1);
    u32s(f, "r", m->rowix, m->nrowix);
    u32s(f, "bmax", m->bmax, m->nbuckets);
    u32s(f, "bmin", m->bmin, m->nbuckets);
    fputs("}", f);
}
