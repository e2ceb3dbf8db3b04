// SPDX-License-Identifier: MIT
/* vt_ranks.c - the ranks of one job side by side, and what sets the highest apart. */
#include "vt_ranks.h"
#include "vt_analyze.h"

#include <stdlib.h>
#include <string.h>

int vt_trace_local_rank(const vt_trace *t)
{
    return (t->rd.hdr.flags & VT_HDR_LOCAL_RANK) ? t->rd.hdr.local_rank : -1;
}

double vt_ranks_skew(const vt_ranks *rk)
{
    if (!rk->n || !rk->r[rk->lo].peak) return 0.0;
    return (double)rk->r[rk->hi].peak / (double)rk->r[rk->lo].peak;
}

/* The merged device a device of trace ti was summed into. */
static size_t gpu_of(const vt_analysis *a, int ti, int device)
{
    char label[96];
    vt_device_label(&a->t[ti], device, label, sizeof label);
    for (size_t m = 0; m < a->nmdev; m++)
        if (!strcmp(a->mdev[m]->label, label)) return m;
    return SIZE_MAX;
}

int vt_ranks_on_gpu(const vt_analysis *a, int ti, size_t m)
{
    for (int d = -1; d < VT_NDEV - 1; d++) {
        const vt_device *dv = vt_replay_device(a->t[ti].rp, d);
        if (dv && dv->dev.peak && gpu_of(a, ti, d) == m) return 1;
    }
    return 0;
}

/* Ranks in order; traces without one after them; then by pid. */
static int rank_cmp(const void *x, const void *y)
{
    const vt_rank *p = x, *q = y;
    unsigned rp = (unsigned)p->rank, rq = (unsigned)q->rank;  /* -1 sorts last */
    if (rp != rq) return rp < rq ? -1 : 1;
    if (p->pid != q->pid) return p->pid < q->pid ? -1 : 1;
    return p->trace - q->trace;
}

static int fill_one(const vt_analysis *a, int ti, vt_rank *r)
{
    const vt_trace *t = &a->t[ti];
    memset(r, 0, sizeof *r);
    r->trace = ti;
    r->rank = t->rd.hdr.rank < 0 ? -1 : t->rd.hdr.rank;
    r->local_rank = vt_trace_local_rank(t);
    r->pid = t->rd.hdr.pid;
    r->layer = UINT32_MAX;
    r->gpu = SIZE_MAX;
    r->device = -1;
    for (int d = -1; d < VT_NDEV - 1; d++) {
        const vt_device *dv = vt_replay_device(t->rp, d);
        if (dv && dv->dev.peak && (!r->tk || dv->dev.peak > r->tk->peak)) {
            r->tk = &dv->dev;
            r->device = d;
        }
    }
    if (!r->tk) return 0;
    r->peak = r->tk->peak;
    r->peak_time = r->tk->peak_time;
    r->peak_rt = r->tk->peak_rt;
    if (a->merged) r->gpu = gpu_of(a, ti, r->device);
    vt_cat_sum cs;
    vt_cat_sum_at(a, r->tk, VT_AT_PEAK, &cs);
    for (int c = 0; c < VT_CAT_N; c++) r->cat[c] = cs.row[c].bytes;
    vt_row *rows;
    size_t n = vt_rows(a, r->tk, VT_AT_PEAK, VT_BY_LAYER, &rows);
    if (n == (size_t)-1) return -1;
    for (size_t i = 0; i < n; i++)
        if (rows[i].bytes && rows[i].key < VT_ROW_POOL) {
            r->layer = rows[i].key;
            r->layer_bytes = rows[i].bytes;
            break;
        }
    free(rows);
    return 0;
}

/* The site whose bytes at the two peaks differ most (hi's minus lo's, largest first). */
static int site_delta(const vt_analysis *a, vt_ranks *rk)
{
    const vt_rank *h = &rk->r[rk->hi], *l = &rk->r[rk->lo];
    vt_row *rh = NULL, *rl = NULL;
    size_t nh = h->tk ? vt_rows(a, h->tk, VT_AT_PEAK, VT_BY_SITE, &rh) : 0;
    size_t nl = l->tk ? vt_rows(a, l->tk, VT_AT_PEAK, VT_BY_SITE, &rl) : 0;
    if (nh == (size_t)-1 || nl == (size_t)-1) {
        if (nh != (size_t)-1) free(rh);
        if (nl != (size_t)-1) free(rl);
        return -1;
    }
    /* Few sites hold bytes at a peak: the quadratic match is cheap. */
    for (size_t i = 0; i < nh; i++) {
        int64_t d = (int64_t)rh[i].bytes;
        for (size_t k = 0; k < nl; k++)
            if (rl[k].key == rh[i].key) d -= (int64_t)rl[k].bytes;
        if (d > rk->site_delta) {
            rk->site_delta = d;
            rk->site = rh[i].key;
        }
    }
    free(rh);
    free(rl);
    return 0;
}

int vt_ranks_of(const vt_analysis *a, vt_ranks *rk)
{
    memset(rk, 0, sizeof *rk);
    rk->cat = -1;
    rk->site = UINT32_MAX;
    if (a->n <= 0) return 0;
    rk->r = calloc((size_t)a->n, sizeof *rk->r);
    if (!rk->r) return -1;
    rk->n = (size_t)a->n;
    rk->t0 = UINT64_MAX;
    for (int i = 0; i < a->n; i++) {
        if (fill_one(a, i, &rk->r[i])) return -1;
        if (rk->r[i].rank >= 0) rk->any_rank = 1;
        if (a->t[i].rd.hdr.start_realtime_ns < rk->t0) rk->t0 = a->t[i].rd.hdr.start_realtime_ns;
    }
    qsort(rk->r, rk->n, sizeof *rk->r, rank_cmp);
    for (size_t i = 1; i < rk->n; i++) {
        if (rk->r[i].peak > rk->r[rk->hi].peak) rk->hi = i;
        if (rk->r[i].peak < rk->r[rk->lo].peak) rk->lo = i;
    }
    if (rk->hi == rk->lo) return 0;
    const vt_rank *h = &rk->r[rk->hi], *l = &rk->r[rk->lo];
    uint64_t best = 0;
    for (int c = 0; c < VT_CAT_N; c++) {
        int64_t d = (int64_t)h->cat[c] - (int64_t)l->cat[c];
        uint64_t m = d < 0 ? (uint64_t)-d : (uint64_t)d;
        if (m > best) {
            best = m;
            rk->cat = c;
            rk->cat_delta = d;
        }
    }
    return site_delta(a, rk);
}

void vt_ranks_free(vt_ranks *rk)
{
    free(rk->r);
    memset(rk, 0, sizeof *rk);
}
