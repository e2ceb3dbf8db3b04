// SPDX-License-Identifier: MIT
/* vt_series.c - memory over time (see vt_series.h for what a bucket holds).
 *
 * The second pass replays the trace with a fresh vt_replay, so the live-set rules
 * (VMM references and mappings, frees of unseen allocations, ...) are exactly those
 * of the first pass. Each series is a vt_tracker of its own: when the replay creates
 * a group, the group is given its series' tracker as one more of the trackers it
 * feeds (a group of one trace feeds at most two otherwise: its device and all
 * devices), so the replay keeps every series' live bytes up to date itself, with no
 * lookup per event. Groups are matched to the first pass's by (stack, kind, device). */
#include "vt_series.h"
#include "vt_layer.h"
#include "vt_names.h"
#include "vt_show.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ *
 *  Selection
 * ------------------------------------------------------------------------ */
const vt_tracker *vt_series_tracker(const vt_analysis *a, int device)
{
    if (device == VT_ALL_DEVICES) return &a->global;
    const vt_device *d = a->n ? vt_replay_device(a->t[0].rp, device) : NULL;
    return d ? &d->dev : NULL;
}

int vt_series_group_tk(const vt_analysis *a, const vt_group *g, int device)
{
    const vt_tracker *tk = vt_series_tracker(a, device);
    if (!tk || g->cls != VT_CLASS_DEVICE) return -1;
    for (unsigned k = 0; k < g->ntk; k++)
        if (g->tk[k] == tk) return (int)k;
    return -1;
}

vt_cat vt_series_group_cat(const vt_analysis *a, int ti, const vt_group *g)
{
    /* vt_analyze decided it (vt_cat_assign) and left it in the group */
    (void)a;
    (void)ti;
    return g->cat < VT_CAT_N ? (vt_cat)g->cat : VT_CAT_OTHER;
}

const char *vt_series_cat_name(vt_cat c)
{
    return vt_cat_name(c);
}

uint64_t vt_series_group_key(uint32_t stack_id, unsigned kind, int device)
{
    return stack_id | (uint64_t)(kind & 0xff) << 32 | (uint64_t)(uint8_t)(device + 1) << 40;
}

/* ------------------------------------------------------------------------ *
 *  Labels
 * ------------------------------------------------------------------------ */
/* A function name without its parameter list: "alloc_grad(unsigned long, ...)
 * [clone .constprop.0]" -> "alloc_grad". Operators keep their names. */
static void short_function(const char *fn, char *buf, size_t n)
{
    size_t len = strlen(fn);
    const char *p = strchr(fn, '(');
    if (p && p > fn && !strstr(fn, "operator")) len = (size_t)(p - fn);
    if (len >= n) len = n - 1;
    memcpy(buf, fn, len);
    buf[len] = 0;
}

/* The label of site s with nf frames from its first distinguishing one: "f1 <- f2 (file:line)". */
static void label_frames(const vt_site *s, uint32_t skip, uint32_t nf, char *buf, size_t n)
{
    size_t k = 0;
    buf[0] = 0;
    for (uint32_t i = skip; i < s->nframes && i < skip + nf && k + 1 < n; i++) {
        char fn[128];
        short_function(s->frames[i].function, fn, sizeof fn);
        k += (size_t)snprintf(buf + k, n - k, "%s%s", i > skip ? " \xe2\x86\x90 " : "", fn);
    }
    uint32_t last = skip + nf - 1 < s->nframes ? skip + nf - 1 : s->nframes - 1;
    const vt_site_frame *o = &s->frames[last];
    if (last > skip && o->file_base && o->line && k + 1 < n)
        snprintf(buf + k, n - k, " (%s:%u)", o->file_base, o->line);
}

/* Innermost frames every site shares (the allocator wrapper, cudaMalloc, ...) tell
 * the sites apart no better than nothing: how many to skip. */
static uint32_t common_frames(const vt_analysis *a, const vt_site *s, const uint32_t *among, size_t nsites)
{
    uint32_t skip = 0;
    for (;; skip++) {
        if (skip + 1 >= s->nframes || nsites < 2) return skip;
        for (size_t i = 0; i < nsites; i++) {
            const vt_site *o = among[i] < a->sites.n ? &a->sites.sites[among[i]] : NULL;
            if (!o || o->nframes <= skip + 1 || strcmp(o->frames[skip].function, s->frames[skip].function))
                return skip;
        }
    }
}

const char *vt_series_site_label(const vt_analysis *a, uint32_t site, const uint32_t *among,
                                 size_t nsites, char *buf, size_t n)
{
    const vt_site *s = site < a->sites.n ? &a->sites.sites[site] : NULL;
    if (!s || !s->nframes) {
        snprintf(buf, n, "[no stack]");
        return buf;
    }
    uint32_t skip = common_frames(a, s, among, nsites);
    /* two frames, or more while another site of the list would read the same */
    for (uint32_t nf = 2;; nf++) {
        label_frames(s, skip, nf, buf, n);
        if (nf >= 5 || skip + nf >= s->nframes) return buf;
        int clash = 0;
        for (size_t i = 0; i < nsites && !clash; i++) {
            if (among[i] == site || among[i] >= a->sites.n) continue;
            const vt_site *o = &a->sites.sites[among[i]];
            if (!o->nframes) continue;
            char other[400];
            label_frames(o, common_frames(a, o, among, nsites), nf, other, sizeof other);
            clash = !strcmp(other, buf);
        }
        if (!clash) return buf;
    }
}

/* The site as the text views show it (the op, the user's line, the Python chain), one
 * line each. */
static char *site_detail(const vt_analysis *a, uint32_t site)
{
    char *p = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&p, &len);
    if (!f) return NULL;
    vt_show_site(f, a, site, &(vt_frames){ VT_VIEW_USER, 12 }, 0);
    fclose(f);
    /* vt_show_site indents outer frames with "<- "; keep it, it reads as a call chain. */
    while (len && p[len - 1] == '\n') p[--len] = 0;
    return p;
}

static const char *cat_detail(vt_cat c)
{
    switch (c) {
    case VT_CAT_WEIGHTS: return "model parameters";
    case VT_CAT_ACTIVATIONS: return "tensors kept from the forward pass for the backward pass";
    case VT_CAT_GRADIENTS: return "gradients of the parameters";
    case VT_CAT_OPTIMIZER_STATE: return "optimizer state (momentum, variance, ...)";
    case VT_CAT_WORKSPACE: return "library workspaces (cuBLAS, cuDNN, NCCL, ...)";
    case VT_CAT_TEMPORARY: return "short-lived buffers";
    case VT_CAT_HOST_PINNED: return "pinned host memory";
    default: return "not attributed to a category";
    }
}

/* ------------------------------------------------------------------------ *
 *  Series definitions, from the first pass
 * ------------------------------------------------------------------------ */
static int add_def(vt_series *s, const char *name, const char *detail, int key, char *owned_detail)
{
    if (s->nseries == VT_SERIES_MAX) { free(owned_detail); return -1; }
    vt_series_def *d = &s->series[s->nseries];
    memset(d, 0, sizeof *d);
    d->name = strdup(name);
    d->detail = owned_detail ? owned_detail : strdup(detail ? detail : "");
    d->key = key;
    if (!d->name || !d->detail) return -1;
    s->nseries++;
    return 0;
}

static int build_defs(vt_series *s, const vt_analysis *a, const vt_series_opts *o, vt_idmap *gmap)
{
    const vt_replay *rp = a->t[0].rp;
    int sid_of[256];
    for (int i = 0; i < 256; i++) sid_of[i] = -1;

    if (o->by == VT_SERIES_BY_CATEGORY || o->by == VT_SERIES_BY_KIND) {
        /* present keys, with their bytes at the peak for ordering */
        uint64_t peak[256] = { 0 }, total[256] = { 0 };
        int present[256] = { 0 };
        for (size_t i = 0; i < rp->ngroups; i++) {
            const vt_group *g = &rp->groups[i];
            int k = vt_series_group_tk(a, g, o->device);
            if (k < 0) continue;
            int key = o->by == VT_SERIES_BY_KIND ? g->kind : (int)vt_series_group_cat(a, 0, g);
            present[key & 0xff] = 1;
            peak[key & 0xff] += g->at_peak[k];
            total[key & 0xff] += g->total_bytes;
        }
        int order[256], n = 0;
        for (int key = 0; key < 256; key++)
            if (present[key]) order[n++] = key;
        if (o->by == VT_SERIES_BY_KIND) {
            /* largest at the peak at the bottom of the stack */
            for (int i = 1; i < n; i++)
                for (int j = i; j > 0 && (peak[order[j]] > peak[order[j - 1]] ||
                                          (peak[order[j]] == peak[order[j - 1]] && total[order[j]] > total[order[j - 1]])); j--) {
                    int t = order[j]; order[j] = order[j - 1]; order[j - 1] = t;
                }
        }
        for (int i = 0; i < n; i++) {
            int key = order[i];
            const char *name = o->by == VT_SERIES_BY_KIND ? vt_kind_name((unsigned)key)
                                                          : vt_series_cat_name((vt_cat)key);
            const char *detail = o->by == VT_SERIES_BY_KIND ? "driver allocation call" : cat_detail((vt_cat)key);
            if (add_def(s, name, detail, key, NULL)) return -1;
            sid_of[key] = (int)s->nseries - 1;
        }
        for (size_t i = 0; i < rp->ngroups; i++) {
            const vt_group *g = &rp->groups[i];
            int k = vt_series_group_tk(a, g, o->device);
            if (k < 0) continue;
            int key = o->by == VT_SERIES_BY_KIND ? g->kind : (int)vt_series_group_cat(a, 0, g);
            int sid = sid_of[key & 0xff];
            s->series[sid].at_peak += g->at_peak[k];
            s->series[sid].total_bytes += g->total_bytes;
            if (vt_idmap_put(gmap, vt_series_group_key(g->stack_id, g->kind, g->device), (uint32_t)sid)) return -1;
        }
        return 0;
    }

    /* by site or layer: the top ones at the peak, then "other" */
    vt_by by = o->by == VT_SERIES_BY_LAYER ? VT_BY_LAYER : VT_BY_SITE;
    const vt_tracker *tk = vt_series_tracker(a, o->device);
    vt_row *rows = NULL;
    size_t nrows = tk ? vt_rows(a, tk, VT_AT_PEAK, by, &rows) : 0;
    if (nrows == (size_t)-1) return -1;
    size_t top = o->top ? o->top : 10;
    if (top > VT_SERIES_MAX - 1) top = VT_SERIES_MAX - 1;
    size_t ntop = nrows < top ? nrows : top;
    uint32_t among[VT_SERIES_MAX];
    for (size_t i = 0; i < ntop; i++) among[i] = rows[i].key;
    vt_idmap key_sid = { 0 };
    int rc = 0;
    for (size_t i = 0; i < ntop && !rc; i++) {
        char label[400];
        if (by == VT_BY_SITE) {
            vt_series_site_label(a, rows[i].key, among, ntop, label, sizeof label);
            char *detail = site_detail(a, rows[i].key);
            if (!detail || add_def(s, label, NULL, (int)rows[i].key, detail)) rc = -1;
        } else {
            if (add_def(s, vt_row_name(a, by, rows[i].key), "layer: the innermost scope (NVTX range, module) "
                        "or Python frame of the program's own code", (int)rows[i].key, NULL))
                rc = -1;
        }
        if (!rc && vt_idmap_put(&key_sid, rows[i].key, (uint32_t)i)) rc = -1;
    }
    int other = -1;
    if (!rc && nrows > ntop) {
        if (add_def(s, "other", by == VT_BY_SITE ? "every other site" : "every other layer", -1, NULL)) rc = -1;
        other = (int)s->nseries - 1;
    }
    free(rows);
    for (size_t i = 0; i < rp->ngroups && !rc; i++) {
        const vt_group *g = &rp->groups[i];
        int k = vt_series_group_tk(a, g, o->device);
        if (k < 0) continue;
        uint32_t key = by == VT_BY_SITE ? g->site : g->layer ? g->layer->name_id : UINT32_MAX;
        const uint32_t *v = vt_idmap_get(&key_sid, key);
        int sid = v ? (int)*v : other;
        if (sid < 0) continue; /* cannot happen: every key is in the rows */
        s->series[sid].at_peak += g->at_peak[k];
        s->series[sid].total_bytes += g->total_bytes;
        if (vt_idmap_put(gmap, vt_series_group_key(g->stack_id, g->kind, g->device), (uint32_t)sid)) rc = -1;
    }
    vt_idmap_free(&key_sid);
    return rc;
}

/* ------------------------------------------------------------------------ *
 *  Buckets
 * ------------------------------------------------------------------------ */
typedef unsigned __int128 u128;

uint64_t vt_series_bucket_start(const vt_series *s, size_t i)
{
    u128 w = (u128)(s->t1 - s->t0) + 1;
    /* ceil(i * w / n): the first time whose bucket_of is i */
    return s->t0 + (uint64_t)(((u128)i * w + s->nbuckets - 1) / s->nbuckets);
}

static size_t bucket_of(const vt_series *s, uint64_t t)
{
    if (t <= s->t0) return 0;
    u128 w = (u128)(s->t1 - s->t0) + 1;
    u128 b = (u128)(t - s->t0) * s->nbuckets / w;
    return b >= s->nbuckets ? s->nbuckets - 1 : (size_t)b;
}

typedef struct {
    vt_series *s;
    vt_tracker *ser;      /* one per series */
    const vt_tracker *tot;
    long cur;             /* bucket being filled, -1 before the first */
    uint64_t cur_start;   /* its start time */
    uint64_t nrec;        /* records applied so far */
} pass_state;

static uint64_t total_now(const pass_state *ps)
{
    return ps->tot ? ps->tot->live : 0;
}

static void snap(const pass_state *ps, uint64_t *dst)
{
    for (size_t i = 0; i < ps->s->nseries; i++) dst[i] = ps->ser[i].live;
}

/* Opens the buckets up to b with the state as it is now (before the next event). */
static void advance(pass_state *ps, size_t b)
{
    vt_series *s = ps->s;
    while (ps->cur < (long)b) {
        size_t k = (size_t)++ps->cur;
        vt_bucket *bk = &s->b[k];
        bk->min = bk->max = total_now(ps);
        bk->tmin = bk->tmax = ps->cur_start = vt_series_bucket_start(s, k);
        bk->omin = bk->omax = ps->nrec;
        snap(ps, &s->at_max[k * s->nseries]);
        if (s->at_min) snap(ps, &s->at_min[k * s->nseries]);
    }
}

static void on_change(pass_state *ps, uint64_t t)
{
    vt_series *s = ps->s;
    vt_bucket *bk = &s->b[ps->cur];
    uint64_t v = total_now(ps);
    /* a late record (another thread's, stamped a little earlier) counts at the start of
     * the bucket it lands in, so that moments stay in time order */
    if (t < ps->cur_start) t = ps->cur_start;
    bk->events++;
    if (v > bk->max) {
        bk->max = v;
        bk->tmax = t;
        bk->omax = ps->nrec;
        snap(ps, &s->at_max[(size_t)ps->cur * s->nseries]);
    }
    if (v < bk->min) {
        bk->min = v;
        bk->tmin = t;
        bk->omin = ps->nrec;
        if (s->at_min) snap(ps, &s->at_min[(size_t)ps->cur * s->nseries]);
    }
}

/* Before a memory event at t: opens its bucket (a late record, stamped before the
 * bucket already open, counts in that one). */
static void before_change(pass_state *ps, uint64_t t)
{
    size_t b = bucket_of(ps->s, t);
    if ((long)b > ps->cur) advance(ps, b);
}

/* Gives the groups the replay made since `seen` their series' trackers; returns the
 * new count. */
static size_t attach_groups(pass_state *ps, vt_replay *rp, size_t seen, const vt_idmap *gmap, int device)
{
    for (size_t i = seen; i < rp->ngroups; i++) {
        vt_group *g = &rp->groups[i];
        if (g->cls != VT_CLASS_DEVICE) continue;
        if (device != VT_ALL_DEVICES && g->device != device) continue;
        const uint32_t *sid = vt_idmap_get(gmap, vt_series_group_key(g->stack_id, g->kind, g->device));
        vt_tracker *st = sid ? &ps->ser[*sid] : NULL;
        if (!st || vt_replay_group_feed(rp, i, st)) {
            ps->s->mismatch++;
            continue;
        }
        /* the record that made the group was applied before it fed the series */
        st->live += g->live;
        st->count += g->live_count;
    }
    return rp->ngroups;
}

/* The selected device's tracker in the second replay, once the device exists; the
 * all-devices total is set from the start. */
static const vt_tracker *device_tracker(const vt_replay *rp, int device)
{
    if (device == VT_ALL_DEVICES) return NULL;
    const vt_device *d = vt_replay_device(rp, device);
    return d ? &d->dev : NULL;
}

/* ------------------------------------------------------------------------ *
 *  NVML: which NVML indexes feed the line
 * ------------------------------------------------------------------------ */
static int nvml_included(const vt_analysis *a, int nvix, int device)
{
    const vt_replay *rp = a->t[0].rp;
    const vt_nvml *nv = &rp->nvml[nvix + 1];
    if (!nv->seen) return 0;
    int matched_any = 0;
    /* by UUID first: NVML and CUDA may number the GPUs differently */
    for (int d = -1; d < VT_NDEV - 1; d++) {
        const vt_device *dv = vt_replay_device(rp, d);
        if (!dv || !vt_device_has_uuid(dv) || !nv->uuid[0]) continue;
        char u[48];
        vt_show_uuid(u, dv->uuid);
        if (strcmp(u, nv->uuid)) continue;
        matched_any = 1;
        if (device == VT_ALL_DEVICES ? dv->dev.peak > 0 : d == device) return 1;
    }
    if (matched_any) return 0;
    if (device == VT_ALL_DEVICES) {
        const vt_device *dv = vt_replay_device(rp, nvix);
        return dv && dv->dev.peak > 0;
    }
    return nvix == device;
}

/* ------------------------------------------------------------------------ *
 *  The pass
 * ------------------------------------------------------------------------ */
int vt_series_build(vt_series *s, const vt_analysis *a, const vt_series_opts *o)
{
    memset(s, 0, sizeof *s);
    s->by = o->by;
    s->device = o->device;
    const vt_trace *t = &a->t[0];
    const vt_tracker *tk1 = vt_series_tracker(a, o->device);
    if (!tk1) {
        fprintf(stderr, "vramtrace: %s: device %d has no memory in this trace\n", t->path, o->device);
        return 2;
    }
    s->peak = tk1->peak;
    s->peak_time = tk1->peak_time;
    s->end_live = tk1->live;
    s->span_end = t->rp->last_time;
    s->t0 = o->from;
    s->t1 = o->to == UINT64_MAX ? t->rp->last_time : o->to;
    if (s->t1 < s->t0) {
        fprintf(stderr, "vramtrace: %s: the time range is empty (the trace ends at %.6f s)\n", t->path,
                (double)t->rp->last_time / 1e9);
        return 2;
    }
    s->nbuckets = o->nbuckets ? o->nbuckets : 2000;
    s->series = calloc(VT_SERIES_MAX, sizeof *s->series);
    s->b = calloc(s->nbuckets, sizeof *s->b);
    vt_idmap gmap = { 0 };
    if (!s->series || !s->b || build_defs(s, a, o, &gmap)) {
        vt_idmap_free(&gmap);
        fprintf(stderr, "vramtrace: out of memory\n");
        return 2;
    }
    size_t ns = s->nseries ? s->nseries : 1;
    s->at_max = calloc(s->nbuckets * ns, sizeof *s->at_max);
    if (o->keep_min) s->at_min = calloc(s->nbuckets * ns, sizeof *s->at_min);
    vt_tracker *ser = calloc(ns, sizeof *ser);
    if (!s->at_max || (o->keep_min && !s->at_min) || !ser) {
        free(ser);
        vt_idmap_free(&gmap);
        fprintf(stderr, "vramtrace: out of memory\n");
        return 2;
    }

    /* NVML: the process's own figure where the recorder got one, else the device's */
    int nv_inc[VT_NDEV] = { 0 };
    for (int i = -1; i < VT_NDEV - 1; i++) {
        nv_inc[i + 1] = nvml_included(a, i, o->device);
        if (nv_inc[i + 1]) {
            s->has_nvml = 1;
            if (t->rp->nvml[i + 1].has_proc) s->nvml_proc = 1;
        }
    }
    uint64_t nv_last[VT_NDEV] = { 0 }; /* latest figure + 1 of each NVML index */

    char msg[512];
    vt_reader rd;
    if (vt_reader_open(&rd, t->path, msg, sizeof msg) != VT_READ_OK) {
        fprintf(stderr, "vramtrace: %s\n", msg);
        free(ser);
        vt_idmap_free(&gmap);
        return 2;
    }
    vt_replay *rp = vt_replay_new(0, rd.hdr.start_realtime_ns);
    vt_tracker all = { 0 };
    if (!rp) {
        vt_reader_close(&rd);
        free(ser);
        vt_idmap_free(&gmap);
        fprintf(stderr, "vramtrace: out of memory\n");
        return 2;
    }
    rp->global = &all;
    pass_state ps = { s, ser, o->device == VT_ALL_DEVICES ? &all : NULL, -1, 0, 0 };
    size_t seen_groups = 0;
    vt_rec r;
    const vt_ev *ev;
    /* ALLOC and FREE records come decoded in runs (vt_reader_events), the rest one by
     * one; both are applied in file order, every one of them, even past the range:
     * records of several threads (and NVML samples) are not in time order. */
    vt_reader_start_events(&rd);
    for (;;) {
        size_t n = vt_reader_events(&rd, &ev);
        if (n) {
            for (size_t i = 0; i < n; i++) {
                int in_range = ev[i].time_ns >= s->t0 && ev[i].time_ns <= s->t1;
                if (in_range) before_change(&ps, ev[i].time_ns);
                /* one at a time: the total after each event is what the buckets need */
                vt_replay_events(rp, &ev[i], 1);
                ps.nrec++;
                if (rp->ngroups > seen_groups) seen_groups = attach_groups(&ps, rp, seen_groups, &gmap, o->device);
                if (!ps.tot) ps.tot = device_tracker(rp, o->device);
                if (in_range) on_change(&ps, ev[i].time_ns);
            }
            continue;
        }
        if (!vt_reader_next(&rd, &r)) break;
        int memory = r.type == VT_REC_ALLOC || r.type == VT_REC_FREE || r.type == VT_REC_VMM;
        int in_range = vt_rec_timed(r.type) && (memory || r.type == VT_REC_NVML) && r.time_ns >= s->t0 &&
                       r.time_ns <= s->t1;
        if (in_range && memory) before_change(&ps, r.time_ns);
        vt_replay_rec(rp, &r);
        ps.nrec++;
        if (rp->ngroups > seen_groups) seen_groups = attach_groups(&ps, rp, seen_groups, &gmap, o->device);
        if (!ps.tot) ps.tot = device_tracker(rp, o->device);
        if (!in_range) continue;
        if (memory) {
            on_change(&ps, r.time_ns);
        } else if (r.device >= -1 && nv_inc[r.device + 1]) { /* int8_t: below VT_NDEV - 1 */
            uint64_t v = s->nvml_proc ? r.aux0 : r.size + 1;
            if (!v) continue; /* this sample did not know the process's figure */
            nv_last[r.device + 1] = v;
            uint64_t sum = 0;
            for (int i = 0; i < VT_NDEV; i++)
                if (nv_last[i]) sum += nv_last[i] - 1;
            /* NVML does not change the live bytes: its own bucket, open or not */
            vt_bucket *bk = &s->b[bucket_of(s, r.time_ns)];
            if (sum + 1 > bk->nvml) bk->nvml = sum + 1;
        }
    }
    advance(&ps, s->nbuckets - 1);
    /* Every series must add up to the total (the check that the two passes agree). */
    uint64_t sum = 0;
    for (size_t i = 0; i < s->nseries; i++) sum += ser[i].live;
    if (sum != total_now(&ps)) s->mismatch++;
    if (s->mismatch)
        fprintf(stderr, "vramtrace: %s: the series do not add up to the total (%llu groups unmatched)\n",
                t->path, (unsigned long long)s->mismatch);
    vt_replay_free(rp);
    vt_reader_close(&rd);
    free(ser);
    vt_idmap_free(&gmap);
    return 0;
}

void vt_series_free(vt_series *s)
{
    for (size_t i = 0; i < s->nseries; i++) {
        free(s->series[i].name);
        free(s->series[i].detail);
    }
    free(s->series);
    free(s->b);
    free(s->at_max);
    free(s->at_min);
    memset(s, 0, sizeof *s);
}
