/* SPDX-License-Identifier: MIT */
/* vt_cmd_forecast.c - `vramtrace forecast --vary NAME VALUE:TRACE VALUE:TRACE
 * [VALUE:TRACE...] [--memory SIZE]... [--allocator ...] [--alloc-conf S] [--context SIZE]
 * [--json]`: runs of one program that differ in one knob (batch size, sequence length)
 * matched allocation by allocation, each allocation's size fitted as a function of the
 * knob, and the program synthesized and replayed through an allocator model at other
 * values: the peak there and the largest value that fits each card (docs/fit.md). */
#include "vt_cmds.h"

#include "vt_alloc_model.h"
#include "vt_analyze.h"
#include "vt_args.h"
#include "vt_cat.h"
#include "vt_fit.h"
#include "vt_fit_cmd.h"
#include "vt_json.h"
#include "vt_replay.h"
#include "vt_show.h"
#include "vt_sites.h"
#include "vt_table.h"
#include "vt_units.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: vramtrace forecast --vary NAME VALUE:TRACE VALUE:TRACE [VALUE:TRACE...] [--memory SIZE]...\n"
    "                          [--allocator exact|caching|expandable|async] [--alloc-conf S]\n"
    "                          [--context SIZE] [--allocator-cap] [--at VALUE]... [--json]\n"
    "  Per-tensor traces of one program run at different values of one knob (--vary batch:\n"
    "  8:b8.vtrace 16:b16.vtrace 24:b24.vtrace). Matches their allocations by site and order,\n"
    "  fits each size as constant, linear or (three runs or more, when they curve) quadratic\n"
    "  in the knob, and replays the program synthesized at other values through the\n"
    "  allocator model: the peak per category at the given values (and --at ones), and the\n"
    "  largest value that fits each --memory (default 16, 24, 40, 80 and 141 GB).\n"
    "  --allocator-cap: a --memory bounds the allocator alone, as\n"
    "  torch.cuda.set_per_process_memory_fraction does (no context, nothing outside it).\n";

#define MAX_RUNS 16

typedef struct {
    uint32_t site;      /* analysis-wide */
    uint32_t k;         /* occurrence of its site */
    uint64_t size;
    uint64_t stream;
    uint8_t  cat, outside;
    uint32_t freed_at;  /* op index of its free, UINT32_MAX: never */
} fc_alloc;

typedef struct {
    double x;
    const char *path;
    fc_alloc *al;
    size_t nal, capal;
    uint32_t *ops;      /* alloc index, or free: index | 0x80000000 */
    size_t nops, capops;
    vt_idmap live;      /* address -> alloc index + 1 (0: freed) */
    uint32_t *site_count;   /* per site (and nsites: no site), allocations */
    size_t nsites;
    const vt_fit_trace *ft;
} fc_run;

static int push_u32(uint32_t **a, size_t *n, size_t *cap, uint32_t v)
{
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 1024;
        uint32_t *p = realloc(*a, c * sizeof *p);
        if (!p) return -1;
        *a = p;
        *cap = c;
    }
    (*a)[(*n)++] = v;
    return 0;
}

static int run_event(void *ctx, uint64_t key, const vt_fit_req *req)
{
    fc_run *r = ctx;
    if (!req) {
        uint32_t *ix = vt_idmap_get(&r->live, key);
        if (!ix || !*ix) return 0;
        uint32_t a = *ix - 1;
        *ix = 0;
        r->al[a].freed_at = (uint32_t)r->nops;
        return push_u32(&r->ops, &r->nops, &r->capops, a | 0x80000000u);
    }
    if (r->nal == r->capal) {
        size_t c = r->capal ? r->capal * 2 : 1024;
        fc_alloc *p = realloc(r->al, c * sizeof *p);
        if (!p) return -1;
        r->al = p;
        r->capal = c;
    }
    const vt_fit_trace *ft = r->ft;
    uint32_t site = UINT32_MAX;
    if (req->stack_id < ft->nstack && ft->group_of_stack[req->stack_id])
        site = vt_replay_result_of(ft->an->t[ft->ti].rp)->groups[ft->group_of_stack[req->stack_id] - 1].site;
    fc_alloc *al = &r->al[r->nal];
    if (site >= r->nsites) site = (uint32_t)r->nsites;
    al->site = site;
    al->k = r->site_count[site]++;
    al->size = req->size;
    al->stream = req->stream;
    al->cat = req->cat;
    al->outside = req->outside;
    al->freed_at = UINT32_MAX;
    if (vt_idmap_put(&r->live, key, (uint32_t)r->nal + 1)) return -1;
    r->nal++;
    return push_u32(&r->ops, &r->nops, &r->capops, (uint32_t)r->nal - 1);
}

/* size = c0 + c1 x + c2 x^2 per allocation of the template run; past cap (> 0), a
 * reduction's staging buffer (grid_cap below) */
typedef struct { double c[3]; double cap; } fc_fit;

static void fit_sizes(const double *x, const double *y, int n, fc_fit *f)
{
    memset(f, 0, sizeof *f);
    int same = 1;
    for (int i = 1; i < n; i++) if (y[i] != y[0]) same = 0;
    if (same) { f->c[0] = y[0]; return; }
    /* linear least squares */
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int i = 0; i < n; i++) { sx += x[i]; sy += y[i]; sxx += x[i] * x[i]; sxy += x[i] * y[i]; }
    double d = n * sxx - sx * sx;
    double b = d ? (n * sxy - sx * sy) / d : 0, a = (sy - b * sx) / n;
    f->c[0] = a;
    f->c[1] = b;
    if (n < 3) return;
    double worst = 0, ymax = 0;
    for (int i = 0; i < n; i++) {
        double r = fabs(y[i] - (a + b * x[i]));
        if (r > worst) worst = r;
        if (y[i] > ymax) ymax = y[i];
    }
    if (worst <= 4096 && worst <= 0.005 * ymax) return;
    /* curvature: quadratic least squares (normal equations, Cramer's rule) */
    double s[5] = { 0 }, t[3] = { 0 };
    for (int i = 0; i < n; i++) {
        double p = 1;
        for (int k = 0; k < 5; k++) { s[k] += p; if (k < 3) t[k] += p * y[i]; p *= x[i]; }
    }
    double M[3][3] = { { s[0], s[1], s[2] }, { s[1], s[2], s[3] }, { s[2], s[3], s[4] } };
#define DET(m) ((m)[0][0] * ((m)[1][1] * (m)[2][2] - (m)[1][2] * (m)[2][1]) - (m)[0][1] * ((m)[1][0] * (m)[2][2] - (m)[1][2] * (m)[2][0]) + (m)[0][2] * ((m)[1][0] * (m)[2][1] - (m)[1][1] * (m)[2][0]))
    double D = DET(M);
    if (fabs(D) < 1e-12) return;
    for (int k = 0; k < 3; k++) {
        double N[3][3];
        memcpy(N, M, sizeof N);
        for (int r = 0; r < 3; r++) N[r][k] = t[r];
        f->c[k] = DET(N) / D;
    }
#undef DET
}

static uint64_t size_at(const fc_fit *f, double x)
{
    double v = f->c[0] + f->c[1] * x + f->c[2] * x * x;
    if (f->cap > 0 && v > f->cap) v = fmax(f->cap, v / 16);
    return v < 1 ? 1 : (uint64_t)llround(v);
}

/* PyTorch's reductions (at::native::gpu_reduce_kernel, its Reduce.cuh) keep partial
 * results in a global buffer of outputs x CTAs-per-output accumulators. The CTAs per
 * output are chosen from the rows reduced: one per 16 values a thread (so the buffer
 * grows linearly with the batch, as the runs show), at most as many as fill the device
 * (SMs x threads per SM / threads per CTA, shared by the outputs' CTAs), yet never so few
 * that a thread takes more than 256 values (16 times fewer than the linear count). So
 * past the cap the size stays flat, then grows again 16 times slower (size_at). For the
 * column sums of training (a Linear's bias gradient: 512 outputs or more, 4-byte
 * accumulators, CTAs of 32 x 4 threads each holding 4 outputs) the cap is 4 B x (32 x 4)^2
 * x SMs x threads per SM / 128 = 512 B x SMs x threads per SM: 132 MiB on an H200 (132
 * SMs of 2,048 threads), what its BERT traces show at every batch from 64 to 512
 * (docs/fit.md). Sums over fewer outputs stop lower; this bounds them. 0: the trace does
 * not say the device's size (written before the DEVICE record held it). */
static double grid_cap(const vt_device *d)
{
    return d && d->sms && d->threads_per_sm ? 512.0 * d->sms * d->threads_per_sm : 0;
}

/* A site whose allocation is made by a PyTorch reduction's own code: its staging buffer
 * (or its semaphores, constant in the batch: the cap never reaches them). */
static int is_reduce_staging(const vt_site *s)
{
    for (uint32_t i = 0; i < s->nframes && i < 8; i++)
        if (strstr(s->frames[i].function, "at::native::gpu_reduce_kernel<")) return 1;
    return 0;
}

typedef struct {
    uint64_t reserved, allocated, traced, outside;
    uint64_t cat[VT_CAT_N];
    int fits[VT_FIT_MAX_MEM];
} fc_result;

/* The template program at x through the chosen model (uncapped, and capped per memory). */
static int synth(const fc_run *tp, const fc_fit *fits, double x, const vt_fit_opts *o, const uint64_t *mem, int nmem,
                 uint64_t context, fc_result *res)
{
    vt_am *m[VT_FIT_MAX_MODELS];
    uint64_t lim[VT_FIT_MAX_MODELS];
    int n = 0;
    lim[n] = VT_AM_NO_LIMIT;
    m[n++] = vt_am_new(o->kind, &o->conf, VT_AM_NO_LIMIT);
    for (int i = 0; i < nmem; i++) {
        m[n] = vt_fit_capped(o, mem[i], context, &lim[n]);
        n++;
    }
    for (int i = 0; i < n; i++)
        if (!m[i]) { while (n--) vt_am_free(m[n]); return -1; }
    vt_fit_sim *s = vt_fit_sim_new(m, lim, n);
    if (!s) return -1;
    for (size_t i = 0; i < tp->nops; i++) {
        uint32_t op = tp->ops[i];
        if (op & 0x80000000u) { vt_fit_sim_free_key(s, op & 0x7fffffffu); continue; }
        const fc_alloc *a = &tp->al[op];
        vt_fit_req q = { 0, size_at(&fits[op], x), a->stream, 0, 0, a->cat, a->outside };
        if (vt_fit_sim_alloc(s, op, &q)) { vt_fit_sim_free(s); return -1; }
    }
    const vt_fit_slot *sl = vt_fit_sim_slot(s, 0);
    res->reserved = vt_am_stats_of(sl->m)->peak_reserved;
    res->allocated = vt_am_stats_of(sl->m)->peak_allocated;
    res->traced = vt_fit_sim_peak(s);
    res->outside = vt_fit_sim_outside_peak(s);
    memcpy(res->cat, sl->cat_at_peak, sizeof res->cat);
    for (int i = 0; i < nmem; i++) res->fits[i] = !vt_fit_sim_slot(s, 1 + i)->failed;
    vt_fit_sim_free(s);
    return 0;
}

/* The largest integer value of the knob that fits memory slot mi (0: none fits). */
static int64_t largest(const fc_run *tp, const fc_fit *fits, const vt_fit_opts *o, uint64_t mem, uint64_t ctx)
{
    fc_result r;
    int64_t lo = 0, hi = 1;
    const int64_t cap = 1 << 20;
    for (;;) {
        if (synth(tp, fits, (double)hi, o, &mem, 1, ctx, &r)) return -1;
        if (!r.fits[0]) break;
        lo = hi;
        if (hi >= cap) return cap;
        hi *= 2;
    }
    while (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        if (synth(tp, fits, (double)mid, o, &mem, 1, ctx, &r)) return -1;
        if (r.fits[0]) lo = mid;
        else hi = mid;
    }
    return lo;
}

/* VRAMTRACE_FORECAST_DEBUG: on stderr, the matched sites whose sizes the fit misses most
 * at one of the runs (with four runs or more, a size that stops growing shows here), each
 * with its sizes per run and its frames. */
static void debug_sites(const vt_analysis *an, const fc_run *runs, int nruns, int tpi, uint32_t *const *order,
                        const uint32_t *start, size_t ns, const fc_fit *fits)
{
    for (size_t st = 0; st < ns; st++) {
        double worst = 0;
        uint32_t wpos = 0;
        for (uint32_t pos = start[st]; pos < start[st + 1]; pos++) {
            const fc_fit *f = &fits[order[tpi][pos]];
            for (int i = 0; i < nruns; i++) {
                double y = (double)runs[i].al[order[i][pos]].size;
                double e = fabs((double)size_at(f, runs[i].x) - y);
                if (e > 4096 && e > 0.02 * y && e > worst) { worst = e; wpos = pos; }
            }
        }
        if (worst == 0) continue;
        fprintf(stderr, "forecast debug: site %zu, %" PRIu32 " allocations, worst miss %.0f B; sizes:", st,
                start[st + 1] - start[st], worst);
        for (int i = 0; i < nruns; i++)
            fprintf(stderr, " %g:%" PRIu64, runs[i].x, runs[i].al[order[i][wpos]].size);
        fprintf(stderr, "\n");
        if (st < an->sites.n) vt_show_site_inline(stderr, an, (uint32_t)st, &(vt_frames){ VT_VIEW_ALL, 0 }, 12);
    }
}

static void run_free(fc_run *r)
{
    free(r->al);
    free(r->ops);
    free(r->site_count);
    vt_idmap_free(&r->live);
}

int vt_cmd_forecast(int argc, char **argv)
{
    enum { O_VARY = 1, O_MEM, O_ALLOC, O_CONF, O_CTX, O_AT, O_JSON, O_CAP, O_HELP };
    static const vt_opt opts[] = {
        { "vary", 0, 1, O_VARY }, { "memory", 0, 1, O_MEM }, { "allocator", 0, 1, O_ALLOC },
        { "alloc-conf", 0, 1, O_CONF }, { "context", 0, 1, O_CTX }, { "at", 0, 1, O_AT }, { "json", 0, 0, O_JSON },
        { "allocator-cap", 0, 0, O_CAP },
        { "help", 'h', 0, O_HELP }, { NULL, 0, 0, 0 }
    };
    vt_fit_opts fo;
    vt_fit_opts_init(&fo);
    const char *knob = NULL;
    double xs[MAX_RUNS], at[8];
    char *paths[MAX_RUNS];
    int nruns = 0, nat = 0;
    vt_args a;
    vt_args_init(&a, "forecast", argc, argv);
    const char *v;
    int id;
    while ((id = vt_args_next(&a, opts, &v)) != VT_ARGS_END) {
        switch (id) {
        case VT_ARGS_ERROR: return 2;
        case VT_ARGS_OPERAND: {
            const char *colon = strchr(v, ':');
            char *end;
            double x = colon ? strtod(v, &end) : 0;
            if (!colon || end != colon || colon[1] == 0 || x <= 0) {
                vt_args_error(&a, "bad run '%s' (want VALUE:TRACE, the value a positive number)", v);
                return 2;
            }
            if (nruns == MAX_RUNS) { vt_args_error(&a, "at most %d runs", MAX_RUNS); return 2; }
            xs[nruns] = x;
            paths[nruns++] = (char *)colon + 1;
            break;
        }
        case O_VARY: knob = v; break;
        case O_AT: {
            char *end;
            double x = strtod(v, &end);
            if (*end || x <= 0 || nat == 8) { vt_args_error(&a, "bad --at '%s' (a positive number; 8 at most)", v); return 2; }
            at[nat++] = x;
            break;
        }
        case O_HELP: fputs(usage, stdout); return 0;
        default:
            if (vt_fit_opts_take(&fo, &a, id == O_MEM ? VT_FIT_OPT_MEMORY : id == O_ALLOC ? VT_FIT_OPT_ALLOCATOR
                                 : id == O_CONF ? VT_FIT_OPT_CONF : id == O_CTX ? VT_FIT_OPT_CONTEXT
                                 : id == O_CAP ? VT_FIT_OPT_ALLOCATOR_CAP : VT_FIT_OPT_JSON, v))
                return 2;
        }
    }
    if (!knob) { vt_args_error(&a, "missing --vary NAME"); return 2; }
    if (nruns < 2) {
        vt_args_error(&a, "--vary %s needs runs at two values or more (VALUE:TRACE VALUE:TRACE), got %d", knob, nruns);
        return 2;
    }
    for (int i = 0; i < nruns; i++)
        for (int k = 0; k < i; k++)
            if (xs[i] == xs[k]) { vt_args_error(&a, "%s=%g is given twice", knob, xs[i]); return 2; }
    if (vt_fit_opts_finish(&fo, &a)) return 2;
    if (!fo.nmem) {
        static const double gb[] = { 16, 24, 40, 80, 141 };
        for (int i = 0; i < 5; i++) fo.mem[fo.nmem++] = (uint64_t)(gb[i] * 1e9);
    }

    vt_cat_opts cat = { .nrules = 0 };
    vt_analyze_opts ao = { UINT64_MAX, 1, &cat, NULL };
    vt_analysis an;
    int rc = vt_analyze(&an, nruns, paths, &ao);
    if (rc) { vt_analysis_free(&an); return rc; }
    vt_fit_trace ft[MAX_RUNS];
    fc_run runs[MAX_RUNS];
    memset(runs, 0, sizeof runs);
    memset(ft, 0, sizeof ft);
    fc_fit *fits = NULL;
    size_t nmatched = 0, nunmatched_sites = 0, nreduce = 0, nreduce_uncapped = 0;
    double cap = 0;
    unsigned sms = 0;
    rc = 2;
    for (int i = 0; i < nruns; i++) {
        vt_fit_opts one = fo;
        one.nmem = 0;
        if (vt_fit_trace_prepare(&ft[i], &an, i, &one)) goto out;
        runs[i].x = xs[i];
        runs[i].path = paths[i];
        runs[i].ft = &ft[i];
        runs[i].nsites = an.sites.n;
        runs[i].site_count = calloc(an.sites.n + 1, sizeof *runs[i].site_count);
        if (!runs[i].site_count) { fprintf(stderr, "vramtrace: out of memory\n"); goto out; }
        vt_fit_sink sink = { run_event, &runs[i], NULL };
        char msg[300];
        int r = vt_fit_read(paths[i], ft[i].device, ft[i].cat_of_stack, ft[i].nstack, ft[i].split_async, &sink, msg,
                            sizeof msg);
        if (r < 0) { fprintf(stderr, "vramtrace: %s: %s\n", paths[i], msg); goto out; }
        /* r > 0: cut short; vt_analyze has said so already */
    }
    /* match: the k-th allocation of a site in one run is the k-th in every other. The run
     * at the largest value is the template (the program is synthesized from its
     * allocations, in its order): forecasts mostly look beyond the runs, and there a
     * program's shape is most like its largest run. A site whose count differs between
     * runs (a library or kernel choosing its path by size: cuBLAS's heuristics, an
     * attention backward that zero-fills only at some lengths) is left unmatched and
     * keeps the template's sizes; the output says how many. When most of the template's
     * allocations cannot be matched, the runs are not of one program. */
    int tpi = 0;
    for (int i = 1; i < nruns; i++) if (xs[i] > xs[tpi]) tpi = i;
    fc_run *tp = &runs[tpi];
    size_t ns = an.sites.n + 1;
    uint8_t *ok = malloc(ns);
    uint32_t *start = calloc(ns + 1, sizeof *start);
    uint32_t **order = calloc((size_t)nruns, sizeof *order);
    fits = calloc(tp->nal ? tp->nal : 1, sizeof *fits);
    int oom = !ok || !start || !order || !fits;
    size_t bad_site = SIZE_MAX;
    int bad_run = 0;
    for (size_t st = 0; st < ns && !oom; st++) {
        ok[st] = 1;
        for (int i = 0; i < nruns; i++) {
            if (runs[i].site_count[st] == tp->site_count[st]) continue;
            ok[st] = 0;
            nunmatched_sites++;
            if (bad_site == SIZE_MAX && tp->site_count[st]) { bad_site = st; bad_run = i; }
            break;
        }
    }
    if (!oom)
        for (size_t st = 0; st < ns; st++) start[st + 1] = start[st] + (ok[st] ? tp->site_count[st] : 0);
    for (int i = 0; i < nruns && !oom; i++) {
        order[i] = malloc((runs[i].nal ? runs[i].nal : 1) * sizeof **order);
        if (!order[i]) { oom = 1; break; }
        for (size_t k = 0; k < runs[i].nal; k++) {
            const fc_alloc *al = &runs[i].al[k];
            if (ok[al->site]) order[i][start[al->site] + al->k] = (uint32_t)k;
        }
    }
    if (!oom) {
        for (size_t k = 0; k < tp->nal; k++) fits[k].c[0] = (double)tp->al[k].size;  /* unmatched: as traced */
        nmatched = start[ns];
        const vt_device *dev = vt_replay_device(an.t[tpi].rp, ft[tpi].device);
        cap = grid_cap(dev);
        sms = dev ? dev->sms : 0;
        for (size_t pos = 0, st = 0; pos < start[ns]; pos++) {
            double y[MAX_RUNS], ymax = 0;
            for (int i = 0; i < nruns; i++) {
                y[i] = (double)runs[i].al[order[i][pos]].size;
                if (y[i] > ymax) ymax = y[i];
            }
            fc_fit *f = &fits[order[tpi][pos]];
            fit_sizes(xs, y, nruns, f);
            while (start[st + 1] <= pos) st++;
            if (st < an.sites.n && (f->c[1] > 0 || f->c[2] > 0) && is_reduce_staging(&an.sites.sites[st])) {
                if (!cap) { nreduce_uncapped++; continue; }
                /* a buffer bigger than the cap already is not the case modelled */
                if (ymax <= cap) { f->cap = cap; nreduce++; }
            }
        }
        if (getenv("VRAMTRACE_FORECAST_DEBUG")) debug_sites(&an, runs, nruns, tpi, order, start, ns, fits);
    }
    for (int i = 0; i < nruns && order; i++) free(order[i]);
    free(order);
    free(start);
    free(ok);
    if (oom) { fprintf(stderr, "vramtrace: out of memory\n"); goto out; }
    if (2 * nmatched < tp->nal) {
        fprintf(stderr, "vramtrace: runs cannot be matched: %zu of %zu allocations of %s=%g are in the other runs "
                        "(not the same program and steps?); the first site that differs allocates %" PRIu32
                        " times at %s=%g, %" PRIu32 " at %s=%g: ",
                nmatched, tp->nal, knob, tp->x, bad_site < ns ? tp->site_count[bad_site] : 0, knob, tp->x,
                bad_site < ns ? runs[bad_run].site_count[bad_site] : 0, knob, runs[bad_run].x);
        if (bad_site < an.sites.n) vt_show_site_inline(stderr, &an, (uint32_t)bad_site, &(vt_frames){ VT_VIEW_USER, 0 }, 2);
        else fprintf(stderr, "(no stack)\n");
        goto out;
    }

    uint64_t ctx = fo.context_given ? fo.context : ft[tpi].context;
    /* the values to show: the runs', then --at */
    double show[MAX_RUNS + 8];
    int nshow = 0;
    for (int i = 0; i < nruns; i++) show[nshow++] = xs[i];
    for (int i = 0; i < nat; i++) show[nshow++] = at[i];
    fc_result res[MAX_RUNS + 8];
    for (int i = 0; i < nshow; i++)
        if (synth(tp, fits, show[i], &fo, fo.mem, fo.nmem, ctx, &res[i])) { fprintf(stderr, "vramtrace: out of memory\n"); goto out; }
    int64_t best[VT_FIT_MAX_MEM];
    for (int i = 0; i < fo.nmem; i++) {
        best[i] = largest(tp, fits, &fo, fo.mem[i], ctx);
        if (best[i] < 0) { fprintf(stderr, "vramtrace: out of memory\n"); goto out; }
    }
    char b1[VT_UNITS_BUF], b2[VT_UNITS_BUF], b3[VT_UNITS_BUF], b4[VT_UNITS_BUF];
    if (fo.json) {
        vt_json j;
        vt_json_init(&j, stdout);
        vt_json_obj(&j, NULL);
        vt_json_str(&j, "schema", "vramtrace-forecast/1");
        vt_json_str(&j, "vary", knob);
        vt_json_str(&j, "allocator", vt_am_name(fo.kind));
        vt_json_u64(&j, "context_bytes", ctx);
        vt_json_u64(&j, "allocations", tp->nal);
        vt_json_u64(&j, "allocations_matched", nmatched);
        vt_json_f64(&j, "template_value", tp->x);
        vt_json_u64(&j, "unmatched_sites", nunmatched_sites);
        vt_json_u64(&j, "reduction_buffers_capped", nreduce);
        vt_json_u64(&j, "reduction_cap_bytes", (uint64_t)cap);
        vt_json_arr(&j, "values");
        for (int i = 0; i < nshow; i++) {
            vt_json_obj(&j, NULL);
            vt_json_f64(&j, "value", show[i]);
            vt_json_bool(&j, "traced", i < nruns);
            vt_json_u64(&j, "predicted_peak_bytes", res[i].reserved);
            vt_json_u64(&j, "predicted_allocated_peak_bytes", res[i].allocated);
            vt_json_u64(&j, "traced_peak_bytes", res[i].traced);
            vt_json_u64(&j, "outside_allocator_peak_bytes", res[i].outside);
            vt_json_u64(&j, "total_peak_bytes", res[i].reserved + res[i].outside + ctx);
            vt_json_obj(&j, "by_category_at_peak");
            for (int c = 0; c < VT_CAT_N; c++)
                if (c != VT_CAT_HOST_PINNED) vt_json_u64(&j, vt_cat_name((vt_cat)c), res[i].cat[c]);
            vt_json_end(&j);
            vt_json_end(&j);
        }
        vt_json_end(&j);
        vt_json_arr(&j, "largest");
        for (int i = 0; i < fo.nmem; i++) {
            vt_json_obj(&j, NULL);
            vt_json_u64(&j, "memory_bytes", fo.mem[i]);
            vt_json_i64(&j, "value", best[i]);
            vt_json_end(&j);
        }
        vt_json_end(&j);
        vt_json_end(&j);
        vt_json_finish(&j);
    } else {
        printf("forecast over %s: %d runs, %zu of %zu allocations of %s=%g matched; allocator %s; context %s\n", knob,
               nruns, nmatched, tp->nal, knob, tp->x, vt_am_name(fo.kind), vt_units_size(b1, ctx));
        if (nunmatched_sites)
            printf("  %zu site%s allocate%s a different number of times from run to run: %s=%g's sizes kept\n",
                   nunmatched_sites, nunmatched_sites == 1 ? "" : "s", nunmatched_sites == 1 ? "s" : "", knob, tp->x);
        if (nreduce)
            printf("  %zu reduction buffer%s (PyTorch's gpu_reduce_kernel) stop at %s, as the device's %u SMs bound "
                   "them\n", nreduce, nreduce == 1 ? "" : "s", vt_units_size(b1, (uint64_t)cap), sms);
        else if (nreduce_uncapped)
            printf("  %zu reduction buffer%s extrapolated linearly: the trace does not say the device's SMs (written "
                   "before 2026-12-02)\n", nreduce_uncapped, nreduce_uncapped == 1 ? "" : "s");
        printf("  largest %s that fits:", knob);
        for (int i = 0; i < fo.nmem; i++)
            printf("%s %s -> %" PRId64, i ? "," : "", vt_units_size(b1, fo.mem[i]), best[i]);
        /* A size can stop growing past the runs (a kernel sizing its scratch by the grid:
         * grid_cap models PyTorch's reductions, others may hide); far out, say so. */
        double far = 0;
        for (int i = 0; i < fo.nmem; i++)
            if (tp->x > 0 && (double)best[i] / tp->x > far) far = (double)best[i] / tp->x;
        for (int i = nruns; i < nshow; i++)
            if (tp->x > 0 && show[i] / tp->x > far) far = show[i] / tp->x;
        if (far > 4)
            printf("\n  (up to %.0fx the largest run, extrapolated: a run nearer the target makes it surer)", far);
        printf("\n\n  %10s  %13s  %14s  %11s  %13s\n", knob, "reserved peak", "allocated peak", "traced peak",
               "with context");
        for (int i = 0; i < nshow; i++)
            printf("  %10g  %13s  %14s  %11s  %13s%s\n", show[i], vt_units_size(b1, res[i].reserved),
                   vt_units_size(b2, res[i].allocated), vt_units_size(b3, res[i].traced),
                   vt_units_size(b4, res[i].reserved + res[i].outside + ctx), i < nruns ? "  (traced run)" : "");
        printf("\n  by category at the reserved peak (bytes asked):\n  %10s", knob);
        for (int c = 0; c < VT_CAT_N; c++)
            if (c != VT_CAT_HOST_PINNED) printf("  %15s", vt_cat_name((vt_cat)c));
        printf("\n");
        for (int i = 0; i < nshow; i++) {
            printf("  %10g", show[i]);
            for (int c = 0; c < VT_CAT_N; c++)
                if (c != VT_CAT_HOST_PINNED) printf("  %15s", vt_units_size(b1, res[i].cat[c]));
            printf("\n");
        }
    }
    rc = 0;
out:
    free(fits);
    for (int i = 0; i < nruns; i++) {
        run_free(&runs[i]);
        vt_fit_trace_free(&ft[i]);
    }
    vt_analysis_free(&an);
    return rc;
}
