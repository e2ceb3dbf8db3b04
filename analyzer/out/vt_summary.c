/* SPDX-License-Identifier: MIT */
/* vt_summary.c - the summary at the exit of `vramtrace run`. */
#include "vt_summary.h"

#include "vt_cat.h"
#include "vt_format.h"
#include "vt_gap.h"
#include "vt_rows.h"
#include "vt_show_rows.h"
#include "vt_units.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    FILE *f;
    int lines;              /* printed so far */
} out;

/* One line of at most VT_SUMMARY_COLS columns (UTF-8 counted by characters), cut with
 * "…" when longer; nothing once VT_SUMMARY_LINES are out. */
static void line(out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void line(out *o, const char *fmt, ...)
{
    if (o->lines >= VT_SUMMARY_LINES) return;
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    size_t cols = 0, i = 0, cut = 0;
    for (; buf[i]; i++) {
        if (((unsigned char)buf[i] & 0xc0) == 0x80) continue;
        if (cols == VT_SUMMARY_COLS - 1) cut = i;
        if (++cols > VT_SUMMARY_COLS) break;
    }
    if (buf[i]) strcpy(buf + cut, "\xe2\x80\xa6");
    fprintf(o->f, "%s\n", buf);
    o->lines++;
}

/* The site as `report` shows it, on one line: the op, the user's line, the chain. */
static void site_text(const vt_analysis *a, uint32_t site, int nlines, char *buf, size_t n)
{
    if (site == VT_ROW_IDLE || site == VT_ROW_POOL) {  /* PyTorch's idle segment bytes: no site's */
        snprintf(buf, n, "%s", site == VT_ROW_IDLE ? VT_ROW_IDLE_NAME ": " VT_ROW_IDLE_WHAT
                                                   : VT_ROW_POOL_NAME ": " VT_ROW_POOL_WHAT);
        return;
    }
    vt_show_site_text(buf, n, a, site, nlines);
}

static double pct(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* The categories as report sums them (vt_cat_sum_at), with PyTorch's idle segment
 * bytes and a CUDA graph's pool among them by name (in no category, as report shows
 * them), largest first: under CUDA graphs the pool is most of the peak, and a line cut
 * at its width must not leave it out. */
static void categories(out *o, const vt_analysis *a, const vt_tracker *tk)
{
    vt_cat_sum s;
    vt_cat_sum_at(a, tk, VT_AT_PEAK, &s);
    int order[VT_CAT_N];
    int n = vt_cat_sum_order(&s, order);
    typedef struct { const char *name; uint64_t bytes; } item;
    item it[VT_CAT_N + 2];
    int m = 0;
    for (int i = 0; i < n; i++) it[m++] = (item){ vt_cat_name((vt_cat)order[i]), s.row[order[i]].bytes };
    uint64_t extra[2] = { s.blocks ? s.idle_cache_bytes : 0, s.graph_pool_bytes };
    const char *names[2] = { VT_ROW_IDLE_NAME, VT_ROW_POOL_NAME };
    for (int e = 0; e < 2; e++) {
        if (!extra[e]) continue;
        int at = m++;
        while (at > 0 && it[at - 1].bytes < extra[e]) { it[at] = it[at - 1]; at--; }
        it[at] = (item){ names[e], extra[e] };
    }
    char buf[512], b[VT_UNITS_BUF];
    size_t k = 0;
    for (int i = 0; i < m && i < 5 && k < sizeof buf; i++)
        k += (size_t)snprintf(buf + k, sizeof buf - k, "%s%s %s %.0f%%", k ? ", " : "", it[i].name,
                              vt_units_size(b, it[i].bytes), pct(it[i].bytes, tk->peak));
    if (k) line(o, "vramtrace:   by category: %s", buf);
}

static void layers(out *o, const vt_analysis *a, const vt_tracker *tk)
{
    if (!vt_layer_any(a)) return;
    vt_row *rows;
    size_t n = vt_rows(a, tk, VT_AT_PEAK, VT_BY_LAYER, &rows);
    if (n == (size_t)-1) return;
    char buf[512], b[VT_UNITS_BUF];
    size_t k = 0;
    for (size_t i = 0, m = 0; i < n && m < 4 && k < sizeof buf; i++) {
        if (!rows[i].bytes || rows[i].key == UINT32_MAX) continue;
        m++;
        k += (size_t)snprintf(buf + k, sizeof buf - k, "%s%s %s", k ? ", " : "", vt_row_name(a, VT_BY_LAYER, rows[i].key),
                              vt_units_size(b, rows[i].bytes));
    }
    if (k) line(o, "vramtrace:   top layers: %s", buf);
    free(rows);
}

static void sites(out *o, const vt_analysis *a, const vt_tracker *tk, int max)
{
    vt_row *rows;
    size_t k = vt_show_site_rows(a, tk, VT_AT_PEAK, &(vt_frames){ VT_VIEW_USER, 0 }, &rows);
    if (k == (size_t)-1) return;
    if (k) line(o, "vramtrace:   top sites at the peak:");
    char b[VT_UNITS_BUF], s[600];
    for (size_t i = 0; i < k && i < (size_t)max; i++) {
        /* three lines of the site when they fit, else two */
        site_text(a, rows[i].key, 3, s, sizeof s);
        if (strlen(s) > VT_SUMMARY_COLS - 32) site_text(a, rows[i].key, 2, s, sizeof s);
        line(o, "vramtrace:   %9s %5.1f%%  %s", vt_units_size(b, rows[i].bytes), pct(rows[i].bytes, tk->peak), s);
    }
    free(rows);
}

static void ooms(out *o, const vt_analysis *a, const vt_trace *t)
{
    const vt_replay *rp = t->rp;
    const vt_replay_result *res = vt_replay_result_of(rp);
    if (!res->nooms) return;
    const vt_oom *oo = &res->ooms[0];
    char b1[VT_UNITS_BUF], b2[VT_UNITS_BUF], tb[VT_UNITS_BUF], s[600];
    site_text(a, oo->site, 3, s, sizeof s);
    char more[48] = "";
    if (res->nooms > 1) snprintf(more, sizeof more, " (%zu OOMs; the first)", res->nooms);
    /* The asking line on a line of its own: behind the sizes it would be cut off. */
    if (oo->kind == VT_KIND_TORCH_BLOCK && oo->free_bytes > oo->size)
        /* the device had room: PyTorch's allocator refused under a limit of its own */
        line(o, "vramtrace:   OUT OF MEMORY%s at %s: %s over PyTorch's cap; asked by", more,
             vt_units_time(tb, oo->time), vt_units_size(b1, oo->size));
    else if (oo->total_bytes)
        line(o, "vramtrace:   OUT OF MEMORY%s at %s: %s asked, %s free; asked by", more, vt_units_time(tb, oo->time),
             vt_units_size(b1, oo->size), vt_units_size(b2, oo->free_bytes));
    else
        line(o, "vramtrace:   OUT OF MEMORY%s at %s: %s asked; asked by", more, vt_units_time(tb, oo->time),
             vt_units_size(b1, oo->size));
    line(o, "vramtrace:     %s", s);
}

static void gap(out *o, const vt_trace *t, int dev)
{
    vt_gap g;
    vt_gap_of(t->rp, dev, &g);
    char b1[VT_UNITS_BUF], b2[VT_UNITS_BUF];
    if (g.known && g.has_pool)
        line(o, "vramtrace:   beyond the allocations (NVML): pool slack %s, unexplained %s (context, modules)",
             vt_units_size(b1, g.pool_slack), vt_units_size(b2, g.unexplained));
    else if (g.known)
        line(o, "vramtrace:   beyond the allocations (NVML): unexplained %s (context, modules, pool slack)",
             vt_units_size(b1, g.unexplained));
    else if (g.has_pool)
        line(o, "vramtrace:   driver pools: %s reserved, %s of it freed and kept (pool slack)",
             vt_units_size(b1, g.pool_reserved), vt_units_size(b2, g.pool_slack));
}

void vt_summary_print(FILE *f, const vt_analysis *a, char *const *shown, const char *headline)
{
    out o = { f, 0 };
    char b1[VT_UNITS_BUF], b2[VT_UNITS_BUF], tb[VT_UNITS_BUF], te[VT_UNITS_BUF];
    if (!a->n) return;
    if (headline && *headline) line(&o, "vramtrace: %s", headline);
    for (int i = 0; i < a->n; i++) {
        const vt_trace *t = &a->t[i];
        int devs[VT_NDEV];
        size_t nd = vt_trace_devices(t, devs, VT_NDEV);
        const vt_device *best = NULL;
        int bestd = 0;
        for (size_t k = 0; k < nd; k++) {
            const vt_device *d = vt_replay_device(t->rp, devs[k]);
            if (!best || d->dev.peak > best->dev.peak) { best = d; bestd = devs[k]; }
        }
        if (!best || !best->dev.peak) {
            line(&o, "vramtrace: pid %u: no device memory was allocated", t->rd.hdr.pid);
            continue;
        }
        const vt_tracker *tk = &best->dev;
        char who[48] = "";
        if (t->rd.hdr.rank >= 0) snprintf(who, sizeof who, "rank %d, ", t->rd.hdr.rank);
        line(&o, "vramtrace: %spid %u: peak %s on device %d%s%s%s at %s of %s", who, t->rd.hdr.pid,
             vt_units_size(b1, tk->peak), bestd, best->name[0] ? " (" : "", best->name, best->name[0] ? ")" : "",
             vt_units_time(tb, tk->peak_time), vt_units_time(te, vt_replay_result_of(t->rp)->last_time));
        for (size_t k = 0; k < nd; k++) {
            const vt_device *d = vt_replay_device(t->rp, devs[k]);
            if (d == best || !d->dev.peak) continue;
            line(&o, "vramtrace:   device %d: peak %s at %s", devs[k], vt_units_size(b2, d->dev.peak),
                 vt_units_time(tb, d->dev.peak_time));
        }
        /* a run of several processes: the first two in full, the others by their peak */
        if (i >= 2) continue;
        /* a run that died of an OOM: that first, the answer to why it stopped */
        ooms(&o, a, t);
        categories(&o, a, tk);
        gap(&o, t, bestd);
        layers(&o, a, tk);
        sites(&o, a, tk, a->n > 1 ? 3 : 5);
    }
    o.lines = o.lines < VT_SUMMARY_LINES - 1 ? o.lines : VT_SUMMARY_LINES - 1;
    char paths[400];
    size_t k = 0;
    for (int i = 0; i < a->n && i < 3 && k < sizeof paths; i++)
        k += (size_t)snprintf(paths + k, sizeof paths - k, " %s", shown[i]);
    if (a->n > 3 && k < sizeof paths) snprintf(paths + k, sizeof paths - k, " ...");
    line(&o, "vramtrace: next: vramtrace report%s (every site, the layers, the end state)", paths);
}
