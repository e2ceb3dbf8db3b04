// SPDX-License-Identifier: MIT
/* vt_ranks_show.c - the ranks of one job side by side: which one peaks highest, by how
 * much, and why; then the sum per physical GPU. */
#include "vt_ranks_show.h"
#include "vt_cat.h"
#include "vt_ranks.h"
#include "vt_rows.h"
#include "vt_show_rows.h"
#include "vt_units.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COLS_MAX 4   /* category columns: with the fixed ones, a table under 100 columns */

static const char *who(char buf[32], const vt_rank *r)
{
    if (r->rank >= 0) snprintf(buf, 32, "rank %d", r->rank);
    else snprintf(buf, 32, "pid %" PRIu32, r->pid);
    return buf;
}

static uint64_t common_time(const vt_ranks *rk, const vt_rank *r)
{
    return r->peak_rt > rk->t0 ? r->peak_rt - rk->t0 : 0;
}

/* The category columns: those holding the most at some rank's peak, the one that differs
 * most always among them, at most COLS_MAX, in vt_cat order. *others: some category
 * left out holds bytes. */
static int pick_cols(const vt_ranks *rk, int cols[COLS_MAX], int *others)
{
    uint64_t most[VT_CAT_N] = { 0 };
    for (size_t i = 0; i < rk->n; i++)
        for (int c = 0; c < VT_CAT_N; c++)
            if (rk->r[i].cat[c] > most[c]) most[c] = rk->r[i].cat[c];
    int chosen[VT_CAT_N] = { 0 }, n = 0;
    if (rk->cat >= 0 && most[rk->cat]) chosen[rk->cat] = 1, n++;
    while (n < COLS_MAX) {
        int best = -1;
        for (int c = 0; c < VT_CAT_N; c++)
            if (!chosen[c] && most[c] && (best < 0 || most[c] > most[best])) best = c;
        if (best < 0) break;
        chosen[best] = 1;
        n++;
    }
    int k = 0;
    *others = 0;
    for (int c = 0; c < VT_CAT_N; c++) {
        if (chosen[c]) cols[k++] = c;
        else if (most[c]) *others = 1;
    }
    return k;
}

static int col_width(int c)
{
    int w = (int)strlen(vt_cat_name((vt_cat)c));
    return w < 8 ? 8 : w;
}

static void text_skew(const vt_analysis *a, const vt_ranks *rk, const vt_frames *fr)
{
    char w1[32], w2[32], b1[VT_UNITS_BUF], b2[VT_UNITS_BUF], b3[VT_UNITS_BUF], tb[VT_UNITS_BUF];
    const vt_rank *h = &rk->r[rk->hi], *l = &rk->r[rk->lo];
    const char *what = rk->any_rank ? "rank" : "process";
    if (h->peak == l->peak) {
        printf("   every %s peaks at %s\n", what, vt_units_size(b1, h->peak));
        return;
    }
    printf("   highest peak: %s, %s at %s", who(w1, h), vt_units_size(b1, h->peak),
           vt_units_time(tb, common_time(rk, h)));
    if (l->peak)
        printf(", %.2fx the lowest (%s, %s)\n", vt_ranks_skew(rk), who(w2, l), vt_units_size(b2, l->peak));
    else
        printf("; %s allocated no device memory\n", who(w2, l));
    if (rk->cat >= 0)
        printf("   differs most: %s %s of the %s gap (%s %s, %s %s)\n", vt_cat_name((vt_cat)rk->cat),
               vt_units_size_delta(b1, rk->cat_delta), vt_units_size(tb, h->peak - l->peak), who(w1, h),
               vt_units_size(b2, h->cat[rk->cat]), who(w2, l), vt_units_size(b3, l->cat[rk->cat]));
    if (rk->site != UINT32_MAX) {
        printf("   the site that grew most: %s  ", vt_units_size_delta(b1, rk->site_delta));
        vt_show_site_inline(stdout, a, rk->site, fr, 2);
    }
}

static void text_table(const vt_ranks *rk)
{
    char b[VT_UNITS_BUF], tb[VT_UNITS_BUF];
    int cols[COLS_MAX], others;
    int nc = pick_cols(rk, cols, &others);
    printf("\n   %4s  %7s  %3s  %9s  %9s", rk->any_rank ? "rank" : "-", "pid", "gpu", "peak", "at");
    for (int k = 0; k < nc; k++) printf("  %*s", col_width(cols[k]), vt_cat_name((vt_cat)cols[k]));
    if (others) printf("  %8s", "others");
    printf("\n");
    for (size_t i = 0; i < rk->n; i++) {
        const vt_rank *r = &rk->r[i];
        if (r->rank >= 0) printf("   %4d", r->rank);
        else printf("   %4s", "-");
        printf("  %7" PRIu32, r->pid);
        if (r->gpu != SIZE_MAX) printf("  %3zu", r->gpu + 1);
        else printf("  %3s", "-");
        printf("  %9s  %9s", vt_units_size(b, r->peak), r->tk ? vt_units_time(tb, common_time(rk, r)) : "-");
        uint64_t rest = r->peak;
        for (int k = 0; k < nc; k++) {
            printf("  %*s", col_width(cols[k]), vt_units_size(b, r->cat[cols[k]]));
            rest -= r->cat[cols[k]] < rest ? r->cat[cols[k]] : rest;
        }
        if (others) printf("  %8s", vt_units_size(b, rest));
        if (rk->r[rk->hi].peak != rk->r[rk->lo].peak && (i == rk->hi || i == rk->lo))
            printf(i == rk->hi ? "  highest" : "  lowest");
        printf("\n");
    }
}

/* Each rank's largest layer and site at its peak, one line each (--top of them). */
static void text_tops(const vt_analysis *a, const vt_ranks *rk, const vt_frames *fr, uint64_t top)
{
    char w[32], b[VT_UNITS_BUF];
    int layers = 0, any = 0;
    for (size_t i = 0; i < rk->n; i++) {
        layers |= rk->r[i].layer != UINT32_MAX;
        any |= rk->r[i].peak != 0;
    }
    if (!any) return;
    printf("\n   at each peak, the largest %s:\n", layers ? "layer and site" : "site");
    size_t shown = 0;
    for (size_t i = 0; i < rk->n; i++) {
        const vt_rank *r = &rk->r[i];
        if (!r->tk || !r->peak) continue;
        if (shown++ == top) {
            printf("   ... %zu more (--top)\n", rk->n - i);
            break;
        }
        printf("   %9s  ", who(w, r));
        vt_row *rows;
        size_t n = vt_show_site_rows(a, r->tk, VT_AT_PEAK, fr, &rows);
        if (n == (size_t)-1) {
            printf("(out of memory)\n");
            continue;
        }
        if (r->layer != UINT32_MAX)
            printf("layer %s %s; ", vt_row_name(a, VT_BY_LAYER, r->layer), vt_units_size(b, r->layer_bytes));
        if (n) {
            printf("%s  ", vt_units_size(b, rows[0].bytes));
            vt_show_site_inline(stdout, a, rows[0].key, fr, 2);
        } else {
            printf("\n");
        }
        free(rows);
    }
}

static void text_gpus(const vt_analysis *a, const vt_ranks *rk)
{
    char w[32], b[VT_UNITS_BUF], tb[VT_UNITS_BUF];
    if (!a->merged || !a->nmdev) return;
    printf("\n   per GPU, the peak of the sum of the processes on it (common clock):\n");
    for (size_t m = 0; m < a->nmdev; m++) {
        const vt_mdev *d = a->mdev[m];
        uint64_t t = d->tk.peak_rt > rk->t0 ? d->tk.peak_rt - rk->t0 : 0;
        printf("   gpu %zu  %s at %s ", m + 1, vt_units_size(b, d->tk.peak), vt_units_time(tb, t));
        int first = 1;
        for (size_t i = 0; i < rk->n; i++)
            if (vt_ranks_on_gpu(a, rk->r[i].trace, m)) {
                printf("%s %s", first ? "" : ",", who(w, &rk->r[i]));
                first = 0;
            }
        printf("  %s%s%s%s\n", d->label, d->name[0] ? " (" : "", d->name, d->name[0] ? ")" : "");
    }
}

static size_t count_hosts(const vt_analysis *a)
{
    size_t n = 0;
    for (int i = 0; i < a->n; i++) {
        int seen = 0;
        for (int k = 0; k < i && !seen; k++) seen = !strcmp(a->t[k].rd.host, a->t[i].rd.host);
        n += !seen;
    }
    return n;
}

void vt_ranks_show_text(const vt_analysis *a, const vt_frames *fr, uint64_t top)
{
    if (a->n < 2) return;
    vt_ranks rk;
    if (vt_ranks_of(a, &rk)) {
        vt_ranks_free(&rk);
        fprintf(stderr, "vramtrace: out of memory\n");
        return;
    }
    char db[40];
    size_t hosts = count_hosts(a);
    printf("== %s: %d traces on %zu GPU%s, %zu host%s; times from %s\n", rk.any_rank ? "ranks" : "processes", a->n,
           a->nmdev, a->nmdev == 1 ? "" : "s", hosts, hosts == 1 ? "" : "s", vt_show_date(db, rk.t0));
    text_skew(a, &rk, fr);
    text_table(&rk);
    text_tops(a, &rk, fr, top);
    text_gpus(a, &rk);
    vt_ranks_free(&rk);
}

char *vt_ranks_show_headline(char *buf, size_t n, const vt_analysis *a)
{
    buf[0] = 0;
    vt_ranks rk;
    if (a->n < 2 || vt_ranks_of(a, &rk)) {
        if (a->n >= 2) vt_ranks_free(&rk);
        return buf;
    }
    char w1[32], w2[32], b1[VT_UNITS_BUF], b2[VT_UNITS_BUF];
    const vt_rank *h = &rk.r[rk.hi], *l = &rk.r[rk.lo];
    int k;
    if (h->peak == l->peak)
        k = snprintf(buf, n, "%d %s: every one peaks at %s", a->n, rk.any_rank ? "ranks" : "processes",
                     vt_units_size(b1, h->peak));
    else if (l->peak)
        k = snprintf(buf, n, "%d %s: %s peaks highest, %s, %.2fx %s", a->n, rk.any_rank ? "ranks" : "processes",
                     who(w1, h), vt_units_size(b1, h->peak), vt_ranks_skew(&rk), who(w2, l));
    else
        k = snprintf(buf, n, "%d %s: %s peaks highest, %s; %s allocated nothing", a->n,
                     rk.any_rank ? "ranks" : "processes", who(w1, h), vt_units_size(b1, h->peak), who(w2, l));
    if (k > 0 && (size_t)k < n && rk.cat >= 0 && h->peak != l->peak)
        snprintf(buf + k, n - (size_t)k, "; differs most: %s %s", vt_cat_name((vt_cat)rk.cat),
                 vt_units_size_delta(b2, rk.cat_delta));
    vt_ranks_free(&rk);
    return buf;
}

/* ------------------------------------------------------------------------ *
 *  JSON
 * ------------------------------------------------------------------------ */
static void json_top_site(vt_json *j, const vt_analysis *a, const vt_tracker *tk)
{
    vt_row *rows;
    size_t n = tk ? vt_rows(a, tk, VT_AT_PEAK, VT_BY_SITE, &rows) : 0;
    if (n == (size_t)-1 || !n || !rows[0].bytes) {
        vt_json_null(j, "top_site");
    } else {
        vt_json_obj(j, "top_site");
        vt_json_u64(j, "bytes", rows[0].bytes);
        vt_json_u64(j, "live_count", rows[0].count);
        vt_show_site_json(j, a, rows[0].key);
        vt_json_end(j);
    }
    if (n != (size_t)-1 && n) free(rows);
}

static void json_who(vt_json *j, const char *key, const vt_rank *r)
{
    vt_json_obj(j, key);
    vt_json_i64(j, "trace", r->trace);
    vt_json_i64(j, "rank", r->rank);
    vt_json_u64(j, "pid", r->pid);
    vt_json_u64(j, "peak_bytes", r->peak);
    vt_json_end(j);
}

static void json_rank(vt_json *j, const vt_analysis *a, const vt_ranks *rk, const vt_rank *r)
{
    vt_json_obj(j, NULL);
    vt_json_i64(j, "trace", r->trace);
    vt_json_i64(j, "rank", r->rank);
    vt_json_i64(j, "local_rank", r->local_rank);
    vt_json_u64(j, "pid", r->pid);
    vt_json_str(j, "host", a->t[r->trace].rd.host);
    vt_json_i64(j, "device", r->device);
    vt_json_str(j, "gpu", r->gpu != SIZE_MAX ? a->mdev[r->gpu]->label : NULL);
    vt_json_u64(j, "peak_bytes", r->peak);
    vt_json_u64(j, "peak_time_ns", r->peak_time);
    vt_json_u64(j, "peak_common_time_ns", common_time(rk, r));
    vt_json_obj(j, "by_category");
    for (int c = 0; c < VT_CAT_N; c++)
        if (c != VT_CAT_HOST_PINNED) vt_json_u64(j, vt_cat_name((vt_cat)c), r->cat[c]);
    vt_json_end(j);
    if (r->layer != UINT32_MAX) {
        vt_json_obj(j, "top_layer");
        vt_json_str(j, "layer", vt_row_name(a, VT_BY_LAYER, r->layer));
        vt_json_u64(j, "bytes", r->layer_bytes);
        vt_json_end(j);
    } else {
        vt_json_null(j, "top_layer");
    }
    json_top_site(j, a, r->tk);
    vt_json_end(j);
}

void vt_ranks_show_json(vt_json *j, const vt_analysis *a)
{
    vt_ranks rk;
    if (a->n < 2 || vt_ranks_of(a, &rk)) {
        if (a->n >= 2) {
            vt_ranks_free(&rk);
            fprintf(stderr, "vramtrace: out of memory\n");
        }
        vt_json_null(j, "ranks");
        return;
    }
    vt_json_obj(j, "ranks");
    vt_json_str(j, "of", rk.any_rank ? "ranks" : "processes");
    vt_json_u64(j, "common_start_realtime_ns", rk.t0);
    vt_json_arr(j, "list");
    for (size_t i = 0; i < rk.n; i++) json_rank(j, a, &rk, &rk.r[i]);
    vt_json_end(j);
    vt_json_obj(j, "skew");
    double s = vt_ranks_skew(&rk);
    if (s > 0) vt_json_f64(j, "ratio", s);
    else vt_json_null(j, "ratio");
    json_who(j, "highest", &rk.r[rk.hi]);
    json_who(j, "lowest", &rk.r[rk.lo]);
    vt_json_str(j, "category", rk.cat >= 0 ? vt_cat_name((vt_cat)rk.cat) : NULL);
    vt_json_i64(j, "category_delta_bytes", rk.cat >= 0 ? rk.cat_delta : 0);
    if (rk.site != UINT32_MAX) {
        vt_json_obj(j, "site");
        vt_json_i64(j, "delta_bytes", rk.site_delta);
        vt_show_site_json(j, a, rk.site);
        vt_json_end(j);
    } else {
        vt_json_null(j, "site");
    }
    vt_json_end(j);
    vt_json_arr(j, "gpus");
    for (size_t m = 0; a->merged && m < a->nmdev; m++) {
        const vt_mdev *d = a->mdev[m];
        vt_json_obj(j, NULL);
        vt_json_str(j, "label", d->label);
        vt_json_str(j, "name", d->name[0] ? d->name : NULL);
        vt_json_u64(j, "peak_bytes", d->tk.peak);
        vt_json_u64(j, "peak_common_time_ns", d->tk.peak_rt > rk.t0 ? d->tk.peak_rt - rk.t0 : 0);
        vt_json_arr(j, "traces");
        for (size_t i = 0; i < rk.n; i++)
            if (vt_ranks_on_gpu(a, rk.r[i].trace, m)) vt_json_i64(j, NULL, rk.r[i].trace);
        vt_json_end(j);
        vt_json_arr(j, "ranks");
        for (size_t i = 0; i < rk.n; i++)
            if (vt_ranks_on_gpu(a, rk.r[i].trace, m)) vt_json_i64(j, NULL, rk.r[i].rank);
        vt_json_end(j);
        vt_json_end(j);
    }
    vt_json_end(j);
    vt_json_end(j);
    vt_ranks_free(&rk);
}
