// SPDX-License-Identifier: MIT
/* vt_layer_show.c - the "by layer" sections of report and diff. */
#include "vt_layer_show.h"
#include "vt_layer.h"
#include "vt_show_rows.h"
#include "vt_units.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double pct(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

void vt_layer_show_text(const vt_analysis *a, const vt_tracker *tk, uint64_t whole, uint64_t top)
{
    vt_row *rows;
    size_t n = vt_rows(a, tk, VT_AT_PEAK, VT_BY_LAYER, &rows);
    if (n == (size_t)-1) return;
    char b1[VT_UNITS_BUF], b2[VT_UNITS_BUF];
    printf("  by layer at the peak (most held: at any time):\n");
    size_t shown = 0, more = 0;
    for (size_t i = 0; i < n; i++) {
        const vt_row *r = &rows[i];
        if (!r->bytes) continue;
        if (shown == top) { more++; continue; }
        shown++;
        printf("    %10s  %6.1f%%  most held %10s  %s\n", vt_units_size(b1, r->bytes), pct(r->bytes, whole),
               r->key >= VT_ROW_POOL ? "-" : vt_units_size(b2, r->max_bytes), vt_row_name(a, VT_BY_LAYER, r->key));
    }
    if (more) printf("    ... %zu more layers\n", more);
    free(rows);
}

void vt_layer_show_json(vt_json *j, const char *key, const vt_analysis *a, const vt_tracker *tk, uint64_t top)
{
    vt_row *rows;
    size_t n = vt_rows(a, tk, VT_AT_PEAK, VT_BY_LAYER, &rows);
    vt_json_arr(j, key);
    if (n != (size_t)-1) {
        size_t shown = 0;
        for (size_t i = 0; i < n && shown < top; i++) {
            if (!rows[i].bytes && !rows[i].max_bytes) continue;
            shown++;
            vt_show_row_json(j, a, VT_BY_LAYER, &rows[i]);
        }
        free(rows);
    }
    vt_json_end(j);
}

/* ------------------------------------------------------------------------ *
 *  Two runs
 * ------------------------------------------------------------------------ */
typedef struct {
    uint32_t key;
    uint64_t base, new_;      /* at the peak */
    uint64_t mbase, mnew;     /* the most held at any time */
    int64_t delta;
} lrow;

/* qsort has no context argument in C11: the analysis the comparison reads names from is
 * set here just before the sort (the CLI is single-threaded). */
static const vt_analysis *cmp_a;

static int lrow_cmp(const void *x, const void *y)
{
    const lrow *p = x, *q = y;
    if (p->delta != q->delta) return p->delta > q->delta ? -1 : 1;
    if (p->new_ != q->new_) return p->new_ > q->new_ ? -1 : 1;
    return strcmp(vt_row_name(cmp_a, VT_BY_LAYER, p->key), vt_row_name(cmp_a, VT_BY_LAYER, q->key));
}

static lrow *join(const vt_analysis *a, const vt_tracker *tb, const vt_tracker *tn, size_t *out)
{
    vt_row *rb = NULL, *rn = NULL;
    size_t nb = vt_rows(a, tb, VT_AT_PEAK, VT_BY_LAYER, &rb);
    size_t nn = vt_rows(a, tn, VT_AT_PEAK, VT_BY_LAYER, &rn);
    lrow *d = NULL;
    size_t n = 0;
    if (nb != (size_t)-1 && nn != (size_t)-1 && (d = calloc(nb + nn + 1, sizeof *d))) {
        for (size_t i = 0; i < nb; i++) {
            if (!rb[i].bytes && !rb[i].max_bytes) continue;
            d[n].key = rb[i].key;
            d[n].mbase = rb[i].max_bytes;
            d[n++].base = rb[i].bytes;
        }
        size_t nbase = n;
        for (size_t i = 0; i < nn; i++) {
            if (!rn[i].bytes && !rn[i].max_bytes) continue;
            size_t k = 0;
            while (k < nbase && d[k].key != rn[i].key) k++;  /* layers are few: a scan will do */
            if (k == nbase) d[k = n++].key = rn[i].key;
            d[k].new_ = rn[i].bytes;
            d[k].mnew = rn[i].max_bytes;
        }
        for (size_t i = 0; i < n; i++) d[i].delta = (int64_t)(d[i].new_ - d[i].base);
        cmp_a = a;
        if (n > 1) qsort(d, n, sizeof *d, lrow_cmp);
    }
    if (nb != (size_t)-1) free(rb);
    if (nn != (size_t)-1) free(rn);
    *out = n;
    return d;
}

static void ratio_text(char *buf, size_t n, uint64_t base, uint64_t new_)
{
    if (!base && !new_) snprintf(buf, n, "-");
    else if (!base) snprintf(buf, n, "new");
    else if (!new_) snprintf(buf, n, "gone");
    else snprintf(buf, n, "%.2fx", (double)new_ / (double)base);
}

void vt_layer_diff_text(const vt_analysis *a, const vt_tracker *tb, const vt_tracker *tn, uint64_t top)
{
    size_t n;
    lrow *d = join(a, tb, tn, &n);
    if (!d) return;
    char b1[VT_UNITS_BUF], b2[VT_UNITS_BUF], b3[VT_UNITS_BUF], b4[VT_UNITS_BUF], b5[VT_UNITS_BUF], rb[24], rm[24];
    printf("\nby layer at the peak, by growth (most held: the most each held at any time):\n");
    printf("          base          new        delta     ratio    most base     most new  most ratio  layer\n");
    for (size_t i = 0; i < n && i < top; i++) {
        const lrow *r = &d[i];
        ratio_text(rb, sizeof rb, r->base, r->new_);
        ratio_text(rm, sizeof rm, r->mbase, r->mnew);
        int none = r->key == UINT32_MAX;
        printf("    %10s   %10s   %10s  %8s   %10s   %10s  %10s  %s\n", vt_units_size(b1, r->base),
               vt_units_size(b2, r->new_), vt_units_size_delta(b3, r->delta), rb,
               none ? "-" : vt_units_size(b4, r->mbase), none ? "-" : vt_units_size(b5, r->mnew), none ? "-" : rm,
               vt_row_name(a, VT_BY_LAYER, r->key));
    }
    if (n > top) printf("    ... %zu more layers\n", n - (size_t)top);
    free(d);
}

void vt_layer_diff_json(vt_json *j, const char *key, const vt_analysis *a, const vt_tracker *tb,
                        const vt_tracker *tn, uint64_t top)
{
    size_t n;
    lrow *d = join(a, tb, tn, &n);
    vt_json_arr(j, key);
    for (size_t i = 0; d && i < n && i < top; i++) {
        vt_json_obj(j, NULL);
        vt_json_str(j, "layer", d[i].key == UINT32_MAX ? NULL : vt_row_name(a, VT_BY_LAYER, d[i].key));
        vt_json_u64(j, "base_bytes", d[i].base);
        vt_json_u64(j, "new_bytes", d[i].new_);
        vt_json_i64(j, "delta_bytes", d[i].delta);
        if (d[i].base) vt_json_f64(j, "ratio", (double)d[i].new_ / (double)d[i].base);
        else vt_json_null(j, "ratio");
        vt_json_u64(j, "base_max_bytes", d[i].mbase);
        vt_json_u64(j, "new_max_bytes", d[i].mnew);
        vt_json_end(j);
    }
    vt_json_end(j);
    free(d);
}
