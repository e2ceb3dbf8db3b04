// SPDX-License-Identifier: MIT
/* vt_analyze.c - one analysis: read, replay, symbolize, fold. */
#include "vt_analyze.h"
#include "vt_cat.h"
#include "vt_ctrl.h"
#include "vt_fclass.h"
#include "vt_layer.h"
#include "vt_progress.h"
#include "vt_replay_read.h"

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
    const vt_replay_result *res = vt_replay_result_of(rp);
    vt_analysis *a = ctx;
    const vt_trace *t = &a->t[res->trace];
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
static void replay_one(vt_trace *t, const vt_replay_tap *tap)
{
    vt_replay_read_tap(t->rp, &t->rd, tap);
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
        for (int i = 0; i < n; i++) replay_one(&a->t[i], NULL);
        return;
    }
    for (int i = 0; i < n; i++) has[i] = vt_reader_next(&a->t[i].rd, &cur[i]);
    uint64_t steps = 0;
    for (;;) {
        int best = -1;
        uint64_t bk = 0;
        for (int i = 0; i < n; i++) {
            if (!has[i]) continue;
            uint64_t k = vt_rec_timed(cur[i].type) ? vt_replay_result_of(a->t[i].rp)->rt_base + cur[i].time_ns : 0;
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
    const vt_replay_result *res = vt_replay_result_of(rp);
    if (rd->stopped)
        fprintf(stderr, "vramtrace: %s: trace ends early at byte %" PRIu64 ": %s; reporting what was read\n",
                t->path, rd->err_offset, rd->err);
    else if (!res->has_trailer)
        fprintf(stderr, "vramtrace: %s: no trailer: the traced process did not finish "
                "(killed or crashed?); reporting what was read\n", t->path);
    if (res->nomem)
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
    return vt_analyze_tap(a, n, paths, o, NULL);
}

int vt_analyze_tap(vt_analysis *a, int n, char **paths, const vt_analyze_opts *o, const vt_replay_tap *tap)
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
        if (o) vt_replay_set_stop(t->rp, o->stop_time, o->stop_mark);
        vt_replay_set_global(t->rp, &a->global);
        if (vt_cat_wanted(o ? o->cat : NULL)) vt_replay_keep_catlog(t->rp);
        total += t->rd.file_size;
    }
    a->merged = n > 1 && !(o && o->no_merge);
    if (n > 1 && !a->merged) {
        /* Independent analyses must not share a total. */
        for (int i = 0; i < n; i++) {
            vt_tracker *g = calloc(1, sizeof *g);
            if (!g) { fprintf(stderr, "vramtrace: out of memory\n"); return 2; }
            g->trace = i;
            vt_replay_set_global(a->t[i].rp, g);
        }
    }
    vt_progress prog;
    vt_progress_init(&prog, total);
    if (a->merged) {
        for (int i = 0; i < n; i++) vt_replay_set_merged(a->t[i].rp, merged_tracker, a);
        replay_merged(a, &prog);
    } else {
        for (int i = 0; i < n; i++) {
            vt_trace *t = &a->t[i];
            t->rd.progress = &prog;
            if (tap && n == 1) vt_reader_start_events_streams(&t->rd);
            else vt_reader_start_events(&t->rd);
            replay_one(t, n == 1 ? tap : NULL);
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
            const vt_replay_result *res = vt_replay_result_of(t->rp);
            for (size_t m = 0; m < res->nmodules; m++) {
                const vt_module *mod = &res->modules[m];
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
    const vt_replay_result *res = vt_replay_result_of(rp);
    vt_frame f[16];
    for (size_t i = 0; i < res->nsyms;) {
        const vt_symrec *y = &res->syms[i];
        size_t n = y->count, k = 0;
        while (k < n && i + k < res->nsyms && res->syms[i + k].ip == y->ip && res->syms[i + k].index == k) k++;
        if (y->index != 0 || n == 0 || k != n) { i += k ? k : 1; continue; }
        size_t m = n < 16 ? n : 16;
        for (size_t j = 0; j < m; j++) {
            memset(&f[j], 0, sizeof f[j]);
            f[j].function = res->syms[i + j].function;
            f[j].file = res->syms[i + j].file;
            f[j].line = res->syms[i + j].line;
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
        vt_tracker *own = t->rp ? vt_replay_result_of(t->rp)->global : NULL;
        if (own != &a->global) free(own);
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

size_t vt_trace_devices(const vt_trace *t, int *ordinals, size_t max)
{
    size_t n = 0;
    for (int d = -1; d < VT_NDEV - 1 && n < max; d++) {
        const vt_device *dv = vt_replay_device(t->rp, d);
        if (!dv) continue;
        if (dv->has_info || dv->dev.peak || dv->managed.peak) ordinals[n++] = d;
        else {
            /* an OOM alone also makes a device worth a section */
            const vt_replay_result *res = vt_replay_result_of(t->rp);
            for (size_t i = 0; i < res->nooms; i++)
                if (res->ooms[i].device == d) { ordinals[n++] = d; break; }
        }
    }
    return n;
}
