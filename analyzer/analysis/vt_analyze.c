// SPDX-License-Identifier: MIT
/* vt_analyze.c - one analysis: read, replay, symbolize, fold, sum. */
#include "vt_analyze.h"
#include "vt_cat.h"
#include "vt_ctrl.h"
#include "vt_fclass.h"
#include "vt_layer.h"
#include "vt_names.h"
#include "vt_progress.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ *
 *  Merged devices: one tracker per physical GPU over all traces
 * ------------------------------------------------------------------------ */
void vt_device_label(const vt_trace *t, int device, char *buf, size_t n)
{
    const vt_device *d = vt_replay_device(t->rp, device);
    if (d && vt_device_has_uuid(d)) {
        const uint8_t *u = d->uuid;
        snprintf(buf, n, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
                 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11],
                 u[12], u[13], u[14], u[15]);
    } else {
        snprintf(buf, n, "%s:%d", t->rd.host ? t->rd.host : "?", device);
    }
}

static vt_tracker *merged_tracker(void *ctx, vt_replay *rp, int device)
{
    vt_analysis *a = ctx;
    const vt_trace *t = &a->t[rp->trace];
    char label[96];
    vt_device_label(t, device, label, sizeof label);
    for (size_t i = 0; i < a->nmdev; i++)
        if (strcmp(a->mdev[i]->label, label) == 0) return &a->mdev[i]->tk;
    vt_mdev **p = realloc(a->mdev, (a->nmdev + 1) * sizeof *p);
    if (!p) return NULL;
    a->mdev = p;
    vt_mdev *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    snprintf(m->label, sizeof m->label, "%s", label);
    const vt_device *d = vt_replay_device(rp, device);
    snprintf(m->name, sizeof m->name, "%s", d && d->has_info ? d->name : "");
    m->ordinal = device;
    m->tk.trace = -1;
    a->mdev[a->nmdev++] = m;
    return &m->tk;
}

/* ------------------------------------------------------------------------ *
 *  Reading
 * ------------------------------------------------------------------------ */
static void replay_one(vt_trace *t)
{
    vt_replay_read(t->rp, &t->rd);
}

/* Several traces: always apply the earliest pending timed record, on the realtime
 * clock, so that the merged trackers see the sum as it was at each moment. Records
 * without a time (stacks, modules, ...) go through as soon as they come. */
static void replay_merged(vt_analysis *a, vt_progress *prog)
{
    int n = a->n;
    vt_rec *cur = calloc((size_t)n, sizeof *cur);
    int *has = calloc((size_t)n, sizeof *has);
    if (!cur || !has) {
        free(cur);
        free(has);
        for (int i = 0; i < n; i++) replay_one(&a->t[i]);
        return;
    }
    for (int i = 0; i < n; i++) has[i] = vt_reader_next(&a->t[i].rd, &cur[i]);
    uint64_t steps = 0;
    for (;;) {
        int best = -1;
        uint64_t bk = 0;
        for (int i = 0; i < n; i++) {
            if (!has[i]) continue;
            uint64_t k = vt_rec_timed(cur[i].type) ? a->t[i].rp->rt_base + cur[i].time_ns : 0;
            if (best < 0 || k < bk) { best = i; bk = k; }
            if (k == 0) break;
        }
        if (best < 0) break;
        vt_replay_rec(a->t[best].rp, &cur[best]);
        has[best] = vt_reader_next(&a->t[best].rd, &cur[best]);
        if ((++steps & 0xffff) == 0 && prog) {
            uint64_t done = 0;
            for (int i = 0; i < n; i++) done += a->t[i].rd.offset;
            vt_progress_update(prog, done);
        }
    }
    free(cur);
    free(has);
}

static void warn_trace(const vt_trace *t)
{
    const vt_reader *rd = &t->rd;
    const vt_replay *rp = t->rp;
    if (rd->stopped)
        fprintf(stderr, "vramtrace: %s: trace ends early at byte %" PRIu64 ": %s; reporting what was read\n",
                t->path, rd->err_offset, rd->err);
    else if (!rp->has_trailer)
        fprintf(stderr, "vramtrace: %s: no trailer: the traced process did not finish "
                "(killed or crashed?); reporting what was read\n", t->path);
    if (rp->nomem)
        fprintf(stderr, "vramtrace: %s: out of memory: some records were left out\n", t->path);
    if (t->sym) {
        const char *const *lines;
        size_t nw = vt_sym_warnings(t->sym, &lines);
        for (size_t i = 0; i < nw && i < 5; i++) {
            /* the warnings name module paths from the trace */
            char *e = vt_ctrl_dup(lines[i], strlen(lines[i]));
            fprintf(stderr, "vramtrace: %s: %s\n", t->path, e ? e : "(out of memory)");
            free(e);
        }
        if (nw > 5) fprintf(stderr, "vramtrace: %s: %zu more symbol warnings\n", t->path, nw - 5);
    }
}

static void add_search_dirs(vt_sym *sym)
{
    const char *env = getenv("VRAMTRACE_SYM_PATH");
    if (!env || !*env) return;
    char *copy = strdup(env);
    if (!copy) return;
    for (char *save = NULL, *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save))
        vt_sym_add_search_dir(sym, d);
    free(copy);
}

static int add_known(vt_sym *s, const vt_replay *rp);

int vt_analyze(vt_analysis *a, int n, char **paths, const vt_analyze_opts *o)
{
    memset(a, 0, sizeof *a);
    /* Rules first: a bad --rules file fails before a long read of the traces. */
    if (vt_cat_rules_load(o ? o->cat : NULL, &a->rules)) return 2;
    a->t = calloc((size_t)n, sizeof *a->t);
    if (!a->t) {
        fprintf(stderr, "vramtrace: out of memory\n");
        return 2;
    }
    a->global.trace = -1;
    uint64_t total = 0;
    for (int i = 0; i < n; i++) {
        char msg[512];
        vt_trace *t = &a->t[i];
        t->path = paths[i];
        if (vt_reader_open(&t->rd, paths[i], msg, sizeof msg) != VT_READ_OK) {
            fprintf(stderr, "vramtrace: %s\n", msg);
            a->n = i;
            return 2;
        }
        a->n = i + 1;
        t->rp = vt_replay_new(i, t->rd.hdr.start_realtime_ns);
        if (!t->rp) {
            fprintf(stderr, "vramtrace: out of memory\n");
            return 2;
        }
        if (o) {
            t->rp->stop_time = o->stop_time;
            t->rp->stop_mark = o->stop_mark;
        }
        t->rp->global = &a->global;
        if (vt_cat_wanted(o ? o->cat : NULL)) t->rp->catlog = calloc(1, sizeof *t->rp->catlog);
        total += t->rd.file_size;
    }
    a->merged = n > 1 && !(o && o->no_merge);
    if (n > 1 && !a->merged) {
        /* Independent analyses must not share a total. */
        for (int i = 0; i < n; i++) {
            vt_tracker *g = calloc(1, sizeof *g);
            if (!g) { fprintf(stderr, "vramtrace: out of memory\n"); return 2; }
            g->trace = i;
            a->t[i].rp->global = g;
        }
    }
    vt_progress prog;
    vt_progress_init(&prog, total);
    if (a->merged) {
        for (int i = 0; i < n; i++) {
            a->t[i].rp->merged = merged_tracker;
            a->t[i].rp->merged_ctx = a;
        }
        replay_merged(a, &prog);
    } else {
        for (int i = 0; i < n; i++) {
            vt_trace *t = &a->t[i];
            t->rd.progress = &prog;
            vt_reader_start_events(&t->rd);
            replay_one(t);
            vt_progress_next_input(&prog, t->rd.file_size);
        }
    }
    vt_progress_done(&prog);
    /* The live sets go first, then the category logs (in vt_cat_lifetimes), before the
     * sites' memory is taken, so that none of them add up at the peak. */
    for (int i = 0; i < n; i++) {
        vt_replay_finish(a->t[i].rp);
        vt_replay_drop_live(a->t[i].rp);
    }
    if (vt_cat_lifetimes(a, o ? o->cat : NULL)) return 2;

    for (int i = 0; i < n; i++) {
        vt_trace *t = &a->t[i];
        t->sym = vt_sym_new();
        if (t->sym) {
            add_search_dirs(t->sym);
            for (size_t m = 0; m < t->rp->nmodules; m++) {
                const vt_module *mod = &t->rp->modules[m];
                vt_sym_add_module(t->sym, mod->path, mod->bias, mod->size, mod->build_id,
                                  mod->build_id_len);
            }
            /* A self-contained trace (SYMBOL records) reads the same on any host. */
            if (add_known(t->sym, t->rp)) fprintf(stderr, "vramtrace: out of memory while reading symbols\n");
        }
        if (vt_sites_assign(&a->sites, t->rp, t->sym) || vt_layers_intern(t->rp, &a->sites.names))
            fprintf(stderr, "vramtrace: out of memory while folding stacks\n");
        warn_trace(t);
        /* Every stack is folded: the symbol tables' memory goes back before the rules
         * run over the sites. */
        if (t->sym) vt_sym_free(t->sym);
        t->sym = NULL;
    }
    if (vt_fclass_assign(&a->sites, a->rules, o ? o->cat : NULL))
        fprintf(stderr, "vramtrace: out of memory while classing frames\n");
    if (vt_cat_assign(a, o ? o->cat : NULL)) return 2;
    return 0;
}

/* SYMBOL records come in runs of `count` per address, index 0 first. A run that is not
 * whole (a trace cut short) is left out. */
static int add_known(vt_sym *s, const vt_replay *rp)
{
    vt_frame f[16];
    for (size_t i = 0; i < rp->nsyms;) {
        const vt_symrec *y = &rp->syms[i];
        size_t n = y->count, k = 0;
        while (k < n && i + k < rp->nsyms && rp->syms[i + k].ip == y->ip && rp->syms[i + k].index == k) k++;
        if (y->index != 0 || n == 0 || k != n) { i += k ? k : 1; continue; }
        size_t m = n < 16 ? n : 16;
        for (size_t j = 0; j < m; j++) {
            memset(&f[j], 0, sizeof f[j]);
            f[j].function = rp->syms[i + j].function;
            f[j].file = rp->syms[i + j].file;
            f[j].line = rp->syms[i + j].line;
        }
        if (vt_sym_add_known(s, y->ip, f, m)) return -1;
        i += n;
    }
    return 0;
}

void vt_analysis_free(vt_analysis *a)
{
    vt_cat_free(a);
    for (int i = 0; i < a->n; i++) {
        vt_trace *t = &a->t[i];
        if (t->rp && t->rp->global != &a->global) free(t->rp->global);
        vt_replay_free(t->rp);
        if (t->sym) vt_sym_free(t->sym);
        vt_reader_close(&t->rd);
    }
    free(a->t);
    for (size_t i = 0; i < a->nmdev; i++) free(a->mdev[i]);
    free(a->mdev);
    vt_sites_free(&a->sites);
    memset(a, 0, sizeof *a);
}

/* ------------------------------------------------------------------------ *
 *  Rows
 * ------------------------------------------------------------------------ */
const char *vt_row_name(const vt_analysis *a, vt_by by, uint32_t key)
{
    switch (by) {
    case VT_BY_SITE:
        if (key == VT_ROW_IDLE) return VT_ROW_IDLE_NAME;
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
    if (g->kind == VT_GROUP_IDLE && (by == VT_BY_SITE || by == VT_BY_LAYER)) return VT_ROW_IDLE;
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
        for (size_t i = 0; i < rp->ngroups; i++) {
            const vt_group *g = &rp->groups[i];
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
    for (uint32_t i = 0; i < o->nsnap; i++) {
        const vt_group *g = &rp->groups[o->snap_group[i]];
        vt_row *r = row_for(&rs, row_key(a, by, g));
        if (!r) { failed = 1; break; }
        r->bytes += o->snap_bytes[i];
        r->nallocs += g->nallocs;
        r->total_bytes += g->total_bytes;
    }
    return rows_done(a, by, &rs, failed, out);
}

size_t vt_trace_devices(const vt_trace *t, int *ordinals, size_t max)
{
    size_t n = 0;
    for (int d = -1; d < VT_NDEV - 1 && n < max; d++) {
        const vt_device *dv = vt_replay_device(t->rp, d);
        if (!dv) continue;
        if (dv->has_info || dv->dev.peak || dv->managed.peak) ordinals[n++] = d;
        else {
            /* an OOM alone also makes a device worth a section */
            for (size_t i = 0; i < t->rp->nooms; i++)
                if (t->rp->ooms[i].device == d) { ordinals[n++] = d; break; }
        }
    }
    return n;
}
