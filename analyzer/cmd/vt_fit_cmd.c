/* SPDX-License-Identifier: MIT */
/* vt_fit_cmd.c - what `fit` and `forecast` share: options, one trace prepared for the
 * allocator models, the pass through them, and the verdict in text and JSON. */
#include "vt_fit_cmd.h"

#include "vt_cat.h"
#include "vt_json.h"
#include "vt_layer.h"
#include "vt_show.h"
#include "vt_units.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void vt_fit_opts_init(vt_fit_opts *o)
{
    memset(o, 0, sizeof *o);
    o->kind = VT_AM_CACHING;
    o->device = -2;
    o->frames = VT_SHOW_FRAMES;
    vt_am_conf_init(&o->conf);
}

int vt_fit_opts_take(vt_fit_opts *o, const vt_args *a, vt_fit_opt which, const char *v)
{
    char err[200];
    uint64_t x;
    switch (which) {
    case VT_FIT_OPT_ALLOCATOR: {
        int k = vt_am_parse(v);
        if (k < 0) {
            vt_args_error(a, "bad value '%s' for --allocator (exact, caching, expandable or async)", v);
            return -1;
        }
        o->kind = (vt_am_kind)k;
        o->kind_given = 1;
        return 0;
    }
    case VT_FIT_OPT_MEMORY:
        if (o->nmem == VT_FIT_MAX_MEM) {
            vt_args_error(a, "at most %d --memory sizes", VT_FIT_MAX_MEM);
            return -1;
        }
        if (vt_args_size(a, "--memory", v, &x)) return -1;
        if (!x) { vt_args_error(a, "--memory must be more than 0"); return -1; }
        o->mem[o->nmem++] = x;
        return 0;
    case VT_FIT_OPT_CONTEXT:
        if (vt_args_size(a, "--context", v, &o->context)) return -1;
        o->context_given = 1;
        return 0;
    case VT_FIT_OPT_CONF:
        if (vt_am_conf_parse(&o->conf, v, err, sizeof err)) {
            vt_args_error(a, "%s", err);
            return -1;
        }
        o->conf_str = v;
        return 0;
    case VT_FIT_OPT_DEVICE:
        if (vt_args_uint(a, "--device", v, 127, &x)) return -1;
        o->device = (int)x;
        return 0;
    case VT_FIT_OPT_JSON: o->json = 1; return 0;
    case VT_FIT_OPT_ALLOCATOR_CAP:
        o->allocator_cap = 1;
        if (!o->context_given) o->context = 0;
        o->context_given = 1;
        return 0;
    case VT_FIT_OPT_FRAMES: return vt_args_uint(a, "--frames", v, VT_SITE_MAX_FRAMES, &o->frames) ? -1 : 0;
    }
    return -1;
}

int vt_fit_opts_finish(vt_fit_opts *o, const vt_args *a)
{
    (void)a;
    if (o->kind_given) {
        /* caching + expandable_segments:True is the expandable model */
        if (o->kind == VT_AM_CACHING && o->conf.expandable) o->kind = VT_AM_EXPANDABLE;
        if (o->kind == VT_AM_CACHING && o->conf.backend_async) o->kind = VT_AM_ASYNC;
        return 0;
    }
    if (o->conf.backend_async) o->kind = VT_AM_ASYNC;
    else if (o->conf.expandable) o->kind = VT_AM_EXPANDABLE;
    return 0;
}

const char *vt_fit_setting(vt_am_kind k)
{
    switch (k) {
    case VT_AM_EXACT: return "no allocator (the bytes asked)";
    case VT_AM_CACHING: return "the native caching allocator (expandable_segments:False)";
    case VT_AM_EXPANDABLE: return "expandable_segments:True";
    case VT_AM_ASYNC: return "backend:cudaMallocAsync";
    default: return "?";
    }
}

/* The built-in rules' [cuda-libraries] section, or a --rules file's own section of that
 * name (named FILE:cuda-libraries). */
static int is_lib_section(const char *name)
{
    static const char lib[] = "cuda-libraries";
    size_t n = strlen(name), k = sizeof lib - 1;
    return n >= k && !strcmp(name + n - k, lib) && (n == k || name[n - k - 1] == ':');
}

/* ------------------------------------------------------------------------ *
 *  One trace
 * ------------------------------------------------------------------------ */
int vt_fit_trace_prepare(vt_fit_trace *ft, vt_analysis *an, int ti, const vt_fit_opts *o)
{
    memset(ft, 0, sizeof *ft);
    ft->an = an;
    ft->ti = ti;
    const vt_trace *t = &an->t[ti];
    const vt_replay *rp = t->rp;
    const vt_replay_result *res = vt_replay_result_of(rp);
    int dev = o->device;
    if (dev == -2) {
        uint64_t best = 0;
        for (int d = 0; d < VT_NDEV - 1; d++) {
            const vt_device *dv = vt_replay_device(rp, d);
            if (dv && dv->dev.peak > best) { best = dv->dev.peak; dev = d; }
        }
    }
    const vt_device *dv = dev >= 0 ? vt_replay_device(rp, dev) : NULL;
    if (!dv || !dv->dev.peak) {
        if (o->device >= 0) fprintf(stderr, "vramtrace: %s: no device memory on device %d\n", t->path, o->device);
        else fprintf(stderr, "vramtrace: %s: no device memory was allocated in this trace\n", t->path);
        return 2;
    }
    ft->device = dev;
    ft->device_total = dv->total;
    vt_cat_sum s;
    vt_cat_sum_at(an, &dv->dev, VT_AT_PEAK, &s);
    if (vt_cat_caching(&s)) {
        fprintf(stderr, "vramtrace: %s was recorded in caching mode (a framework's segments, not tensors): "
                        "record it with `vramtrace run --per-tensor`\n", t->path);
        return 2;
    }
    uint32_t maxs = 0;
    for (size_t i = 0; i < res->ngroups; i++)
        if (res->groups[i].stack_id > maxs) maxs = res->groups[i].stack_id;
    ft->nstack = (size_t)maxs + 1;
    ft->cat_of_stack = malloc(ft->nstack);
    ft->group_of_stack = calloc(ft->nstack, sizeof *ft->group_of_stack);
    if (!ft->cat_of_stack || !ft->group_of_stack) {
        fprintf(stderr, "vramtrace: out of memory\n");
        return 2;
    }
    memset(ft->cat_of_stack, VT_CAT_OTHER, ft->nstack);  /* stacks of no device group */
    for (size_t i = 0; i < res->ngroups; i++) {
        const vt_group *g = &res->groups[i];
        if (g->device != dev || g->cls != VT_CLASS_DEVICE || ft->group_of_stack[g->stack_id]) continue;
        if (g->kind == VT_KIND_MEM_ALLOC_ASYNC) ft->split_async = 1;
        /* what the CUDA libraries allocate for themselves (cuBLAS's handle workspaces in
         * plain CUDA C: the rules' cuda-libraries section) is no framework allocator's
         * either; but a library workspace a framework asked its own allocator for
         * (PyTorch's cuBLAS/cuBLASLt workspaces: cuMemAllocAsync under --per-tensor) sits
         * in that allocator's blocks, and max_memory_allocated counts it */
        int lib = g->cat_how == VT_CAT_HOW_RULE && g->kind != VT_KIND_MEM_ALLOC_ASYNC &&
                  is_lib_section(vt_cat_section_name(an, g->cat_rule));
        ft->cat_of_stack[g->stack_id] = (uint8_t)(g->cat | (lib ? VT_FIT_OUTSIDE : 0));
        ft->group_of_stack[g->stack_id] = (uint32_t)i + 1;
    }
    if (o->context_given) {
        ft->context = o->context;
        ft->context_src = 2;
    } else if (vt_fit_context(rp, dev, &ft->context)) {
        ft->context_src = 1;
    }
    ft->nmem = o->nmem;
    memcpy(ft->mem, o->mem, sizeof ft->mem);
    if (!ft->nmem && ft->device_total) ft->mem[ft->nmem++] = ft->device_total;
    return 0;
}

vt_fit_sim *vt_fit_models(const vt_fit_trace *ft, const vt_fit_opts *o)
{
    vt_am *m[VT_FIT_MAX_MODELS];
    uint64_t lim[VT_FIT_MAX_MODELS];
    int n = 0;
    for (int k = 0; k < VT_AM_N; k++) {
        lim[n] = VT_AM_NO_LIMIT;
        m[n] = vt_am_new((vt_am_kind)k, &o->conf, VT_AM_NO_LIMIT);
        if (!m[n]) goto fail;
        n++;
    }
    for (int i = 0; i < ft->nmem; i++) {
        m[n] = vt_fit_capped(o, ft->mem[i], ft->context, &lim[n]);
        if (!m[n]) goto fail;
        n++;
    }
    return vt_fit_sim_new(m, lim, n);
fail:
    while (n--) vt_am_free(m[n]);
    return NULL;
}

/* The limits of the chosen model capped at memory. */
static vt_fit_cap cap_of(const vt_fit_opts *o, uint64_t memory, uint64_t context)
{
    /* --allocator-cap, torch.cuda.set_per_process_memory_fraction: the allocator's own
     * total only */
    if (o->allocator_cap) return (vt_fit_cap){ VT_AM_NO_LIMIT, memory };
    uint64_t l = memory > context ? memory - context : 0;
    return (vt_fit_cap){ l, l };
}

vt_am *vt_fit_capped(const vt_fit_opts *o, uint64_t memory, uint64_t context, uint64_t *sim_limit)
{
    vt_fit_cap c = cap_of(o, memory, context);
    *sim_limit = c.sim_limit;
    return vt_am_new(o->kind, &o->conf, c.model_limit);
}

static int sim_event(void *ctx, uint64_t key, const vt_fit_req *req)
{
    vt_fit_sim *s = ctx;
    if (!req) {
        vt_fit_sim_free_key(s, key);
        return 0;
    }
    return vt_fit_sim_alloc(s, key, req);
}

static void sim_ahead(void *ctx, uint64_t key) { vt_fit_sim_prefetch(ctx, key); }

int vt_fit_trace_run(vt_fit_trace *ft, const vt_fit_opts *o, vt_fit_early *early)
{
    if (early) {
        vt_fit_cap caps[VT_FIT_MAX_MEM];
        for (int i = 0; i < ft->nmem; i++) caps[i] = cap_of(o, ft->mem[i], ft->context);
        const char *why;
        ft->sim = vt_fit_early_take(early, ft->device, ft->cat_of_stack, ft->nstack, ft->split_async, caps, ft->nmem,
                                    o->conf.gc_threshold > 0, &why);
        /* VRAMTRACE_FIT_DEBUG=1: which way the models went (docs/fit.md, "Speed") */
        const char *dbg = getenv("VRAMTRACE_FIT_DEBUG");
        if (dbg && *dbg == '1')
            fprintf(stderr, "vramtrace: fit: %s%s\n", ft->sim ? "one pass" : "two passes: ", ft->sim ? "" : why);
        if (ft->sim) return 0;
    }
    ft->sim = vt_fit_models(ft, o);
    if (!ft->sim) {
        fprintf(stderr, "vramtrace: out of memory\n");
        return 2;
    }
    vt_fit_sink sink = { sim_event, ft->sim, sim_ahead };
    char msg[300];
    const char *path = ft->an->t[ft->ti].path;
    int rc = vt_fit_read(path, ft->device, ft->cat_of_stack, ft->nstack, ft->split_async, &sink, msg, sizeof msg);
    if (rc < 0) {
        fprintf(stderr, "vramtrace: %s: %s\n", path, msg);
        return 2;
    }
    /* rc > 0: cut short; vt_analyze has said so already, and what was read was fitted */
    return 0;
}

void vt_fit_trace_free(vt_fit_trace *ft)
{
    vt_fit_sim_free(ft->sim);
    free(ft->cat_of_stack);
    free(ft->group_of_stack);
    memset(ft, 0, sizeof *ft);
}

int vt_fit_suggest(const vt_fit_sim *sim, vt_am_kind chosen, uint64_t *saves)
{
    uint64_t mine = vt_am_stats_of(vt_fit_sim_slot(sim, chosen)->m)->peak_reserved;
    int best = -1;
    uint64_t best_peak = mine;
    for (int k = VT_AM_CACHING; k < VT_AM_N; k++) {
        uint64_t p = vt_am_stats_of(vt_fit_sim_slot(sim, k)->m)->peak_reserved;
        if (k != (int)chosen && p < best_peak) { best = k; best_peak = p; }
    }
    if (best < 0 || (mine - best_peak) * 20 <= mine) return -1;
    *saves = mine - best_peak;
    return best;
}

/* ------------------------------------------------------------------------ *
 *  Output
 * ------------------------------------------------------------------------ */
static const vt_group *group_of(const vt_fit_trace *ft, uint32_t stack_id)
{
    if (stack_id >= ft->nstack || !ft->group_of_stack[stack_id]) return NULL;
    return &vt_replay_result_of(ft->an->t[ft->ti].rp)->groups[ft->group_of_stack[stack_id] - 1];
}

static const char *layer_of(const vt_fit_trace *ft, const vt_group *g)
{
    return g && g->layer ? vt_row_name(ft->an, VT_BY_LAYER, g->layer->name_id) : "-";
}

static void fail_text(const vt_fit_trace *ft, const vt_fit_slot *sl, const vt_fit_opts *o)
{
    char b1[VT_UNITS_BUF], b2[VT_UNITS_BUF], tb[VT_UNITS_BUF];
    const vt_group *g = group_of(ft, sl->fail.stack_id);
    printf("      first failure at %s: %s asked on stream %#" PRIx64 " with %s live; category %s, layer %s\n",
           vt_units_time(tb, sl->fail.time), vt_units_size(b1, sl->fail.size), sl->fail.stream,
           vt_units_size(b2, sl->live_at_fail), vt_cat_name((vt_cat)sl->fail.cat), layer_of(ft, g));
    if (g && g->site != UINT32_MAX) {
        printf("      ");
        vt_frames fr = { VT_VIEW_USER, (uint32_t)o->frames };
        vt_show_site(stdout, ft->an, g->site, &fr, 6);
    }
}

int vt_fit_show_text(const vt_fit_trace *ft, const vt_fit_opts *o)
{
    const vt_fit_sim *sim = ft->sim;
    const vt_trace *t = &ft->an->t[ft->ti];
    const vt_device *dv = vt_replay_device(t->rp, ft->device);
    const vt_am_stats *st = vt_am_stats_of(vt_fit_sim_slot(sim, o->kind)->m);
    char b1[VT_UNITS_BUF], b2[VT_UNITS_BUF], b3[VT_UNITS_BUF], b4[VT_UNITS_BUF], b5[VT_UNITS_BUF];
    int status = 0;
    uint64_t outside = vt_fit_sim_outside_peak(sim);
    printf("%s: device %d%s%s%s, allocator %s%s%s\n", t->path, ft->device, dv->name[0] ? " (" : "", dv->name,
           dv->name[0] ? ")" : "", vt_am_name(o->kind), o->conf_str ? " with " : "", o->conf_str ? o->conf_str : "");
    for (int i = 0; i < ft->nmem; i++) {
        const vt_fit_slot *sl = vt_fit_sim_slot(sim, VT_FIT_SLOT_MEM(i));
        const vt_am_stats *ms = vt_am_stats_of(sl->m);
        if (!sl->failed) {
            printf("  %10s: fits (needs %s: %s reserved", vt_units_size(b1, ft->mem[i]),
                   vt_units_size(b2, ms->peak_reserved + outside + ft->context), vt_units_size(b3, ms->peak_reserved));
            if (outside) printf(" + %s outside the allocator", vt_units_size(b4, outside));
            printf(" + %s context)\n", vt_units_size(b5, ft->context));
        } else {
            status = 1;
            printf("  %10s: DOES NOT FIT (%s after %s of context", vt_units_size(b1, ft->mem[i]),
                   vt_units_size(b2, ft->mem[i] > ft->context ? ft->mem[i] - ft->context : 0),
                   vt_units_size(b3, ft->context));
            if (sl->outside_at_fail) printf(", %s of it outside the allocator then", vt_units_size(b4, sl->outside_at_fail));
            printf(")\n");
            fail_text(ft, sl, o);
        }
    }
    printf("  predicted peak: %s reserved, %s allocated, %s fragmentation (reserved - allocated, at the reserved peak)\n",
           vt_units_size(b1, st->peak_reserved), vt_units_size(b2, st->peak_allocated),
           vt_units_size(b3, st->peak_reserved - st->allocated_at_peak));
    if (outside)
        printf("  outside the allocator (cuMemAlloc beside its cuMemAllocAsync: libraries' workspaces): %s at most\n",
               vt_units_size(b1, outside));
    printf("  traced peak: %s asked; context %s (%s); as nvidia-smi would show: %s\n",
           vt_units_size(b1, vt_fit_sim_peak(sim)), vt_units_size(b2, ft->context),
           ft->context_src == 2 ? "--context" : ft->context_src == 1 ? "NVML, the least over its samples"
                                                                     : "unknown: no NVML figure, --context sets it",
           vt_units_size(b3, st->peak_reserved + outside + ft->context));
    uint64_t saves;
    int k = vt_fit_suggest(sim, o->kind, &saves);
    if (k >= 0)
        printf("  %s would lower the reserved peak by %s (to %s)\n", vt_fit_setting((vt_am_kind)k),
               vt_units_size(b1, saves),
               vt_units_size(b2, vt_am_stats_of(vt_fit_sim_slot(sim, k)->m)->peak_reserved));
    printf("\n  allocator   reserved peak  allocated peak  fragmentation  segments  retries\n");
    for (int m = 0; m < VT_AM_N; m++) {
        const vt_am_stats *ms = vt_am_stats_of(vt_fit_sim_slot(sim, m)->m);
        printf("  %-10s  %13s  %14s  %13s  %8" PRIu64 "  %7" PRIu64 "%s\n", vt_am_name((vt_am_kind)m),
               vt_units_size(b1, ms->peak_reserved), vt_units_size(b2, ms->peak_allocated),
               vt_units_size(b3, ms->peak_reserved - ms->allocated_at_peak), ms->peak_segments, ms->retries,
               m == (int)o->kind ? "  <- chosen" : "");
    }
    const vt_fit_slot *cs = vt_fit_sim_slot(sim, o->kind);
    printf("\n  by category at the reserved peak (bytes asked):\n");
    for (int c = 0; c < VT_CAT_N; c++)
        if (cs->cat_at_peak[c]) printf("    %10s  %s\n", vt_units_size(b1, cs->cat_at_peak[c]), vt_cat_name((vt_cat)c));
    if (vt_fit_sim_streams(sim) > 1) printf("  streams: %" PRIu64 " (pools are per stream)\n", vt_fit_sim_streams(sim));
    return status;
}

int vt_fit_show_json(const vt_fit_trace *ft, const vt_fit_opts *o)
{
    const vt_fit_sim *sim = ft->sim;
    const vt_trace *t = &ft->an->t[ft->ti];
    const vt_am_stats *st = vt_am_stats_of(vt_fit_sim_slot(sim, o->kind)->m);
    int status = 0;
    vt_json j;
    vt_json_init(&j, stdout);
    vt_json_obj(&j, NULL);
    vt_json_str(&j, "schema", "vramtrace-fit/1");
    vt_json_str(&j, "trace", t->path);
    vt_json_i64(&j, "device", ft->device);
    vt_json_str(&j, "allocator", vt_am_name(o->kind));
    if (o->conf_str) vt_json_str(&j, "alloc_conf", o->conf_str);
    else vt_json_null(&j, "alloc_conf");
    vt_json_u64(&j, "predicted_peak_bytes", st->peak_reserved);
    vt_json_u64(&j, "predicted_allocated_peak_bytes", st->peak_allocated);
    vt_json_u64(&j, "fragmentation_bytes", st->peak_reserved - st->allocated_at_peak);
    vt_json_u64(&j, "context_bytes", ft->context);
    vt_json_str(&j, "context_source", ft->context_src == 2 ? "option" : ft->context_src == 1 ? "nvml" : "unknown");
    vt_json_u64(&j, "traced_peak_bytes", vt_fit_sim_peak(sim));
    vt_json_u64(&j, "outside_allocator_peak_bytes", vt_fit_sim_outside_peak(sim));
    vt_json_u64(&j, "total_peak_bytes", st->peak_reserved + vt_fit_sim_outside_peak(sim) + ft->context);
    vt_json_u64(&j, "streams", vt_fit_sim_streams(sim));
    vt_json_arr(&j, "fits");
    for (int i = 0; i < ft->nmem; i++) {
        const vt_fit_slot *sl = vt_fit_sim_slot(sim, VT_FIT_SLOT_MEM(i));
        vt_json_obj(&j, NULL);
        vt_json_u64(&j, "memory_bytes", ft->mem[i]);
        vt_json_bool(&j, "fits", !sl->failed);
        if (!sl->failed) {
            vt_json_null(&j, "first_failure");
        } else {
            status = 1;
            const vt_group *g = group_of(ft, sl->fail.stack_id);
            vt_json_obj(&j, "first_failure");
            vt_json_u64(&j, "time_ns", sl->fail.time);
            vt_json_u64(&j, "size", sl->fail.size);
            vt_json_u64(&j, "stream", sl->fail.stream);
            vt_json_u64(&j, "live_bytes", sl->live_at_fail);
            vt_json_u64(&j, "outside_allocator_bytes", sl->outside_at_fail);
            vt_json_str(&j, "category", vt_cat_name((vt_cat)sl->fail.cat));
            if (g && g->layer) vt_json_str(&j, "layer", layer_of(ft, g));
            else vt_json_null(&j, "layer");
            if (g && g->site != UINT32_MAX) vt_show_site_json(&j, ft->an, g->site);
            vt_json_end(&j);
        }
        vt_json_end(&j);
    }
    vt_json_end(&j);
    vt_json_arr(&j, "allocators");
    for (int m = 0; m < VT_AM_N; m++) {
        const vt_am_stats *ms = vt_am_stats_of(vt_fit_sim_slot(sim, m)->m);
        vt_json_obj(&j, NULL);
        vt_json_str(&j, "allocator", vt_am_name((vt_am_kind)m));
        vt_json_u64(&j, "predicted_peak_bytes", ms->peak_reserved);
        vt_json_u64(&j, "predicted_allocated_peak_bytes", ms->peak_allocated);
        vt_json_u64(&j, "fragmentation_bytes", ms->peak_reserved - ms->allocated_at_peak);
        vt_json_u64(&j, "peak_segments", ms->peak_segments);
        vt_json_end(&j);
    }
    vt_json_end(&j);
    uint64_t saves;
    int k = vt_fit_suggest(sim, o->kind, &saves);
    if (k >= 0) {
        vt_json_obj(&j, "suggestion");
        vt_json_str(&j, "allocator", vt_am_name((vt_am_kind)k));
        vt_json_str(&j, "setting", vt_fit_setting((vt_am_kind)k));
        vt_json_u64(&j, "saves_bytes", saves);
        vt_json_end(&j);
    } else {
        vt_json_null(&j, "suggestion");
    }
    const vt_fit_slot *cs = vt_fit_sim_slot(sim, o->kind);
    vt_json_obj(&j, "by_category_at_peak");
    for (int c = 0; c < VT_CAT_N; c++)
        if (c != VT_CAT_HOST_PINNED) vt_json_u64(&j, vt_cat_name((vt_cat)c), cs->cat_at_peak[c]);
    vt_json_end(&j);
    vt_json_end(&j);
    vt_json_finish(&j);
    return status;
}
