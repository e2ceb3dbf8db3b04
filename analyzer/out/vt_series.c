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
#include "vt_cat.h"
#include "vt_layer.h"
#include "vt_names.h"
#include "vt_show.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ *
 *  Selection
 * ------------------------------------------------------------------------ */
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
/* The sites of `timeline --by site`, named and grouped as report and top show them (the
 * op, the innermost user frame, the Python chain: vt_show.h's user view), so a legend
 * entry reads like the report's row it is. */
typedef struct {
    char *label;          /* one line: up to three lines of the view joined by " <- " */
    uint32_t site;        /* the largest site of those that read alike (its detail) */
    uint64_t at_peak;     /* bytes at the peak of tk, of all of them */
} site_series;

typedef struct {
    site_series *top;     /* largest at the peak first */
    size_t ntop;
    size_t nrest;         /* groups of sites left for "other" */
    vt_idmap of;          /* row key (site index, VT_ROW_IDLE) -> index in top */
} site_set;

/* Row key r as report's text view shows it, on one line of at most `lines` lines. */
static char *site_row_text(const vt_analysis *a, uint32_t key, int lines)
{
    if (key >= a->sites.n) return strdup(vt_row_name(a, VT_BY_SITE, key));
    char *p = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&p, &len);
    if (!f) return NULL;
    vt_show_site_inline(f, a, key, &(vt_frames){ VT_VIEW_USER, 0 }, lines);
    if (fclose(f)) { free(p); return NULL; }
    while (len && p[len - 1] == '\n') p[--len] = 0;
    return p;
}

typedef struct {
    uint32_t key;         /* first (largest) row of the group */
    uint64_t bytes, total;
} site_group;

static int site_group_cmp(const void *x, const void *y)
{
    const site_group *a = x, *b = y;
    if (a->bytes != b->bytes) return a->bytes > b->bytes ? -1 : 1;
    if (a->total != b->total) return a->total > b->total ? -1 : 1;
    return a->key < b->key ? -1 : a->key > b->key;
}

static void series_sites_free(site_set *s)
{
    for (size_t i = 0; s->top && i < s->ntop; i++) free(s->top[i].label);
    free(s->top);
    vt_idmap_free(&s->of);
    memset(s, 0, sizeof *s);
}

/* The `top` largest groups of sites at the peak of tk. 0, or -1 when out of memory. */
static int series_sites(site_set *out, const vt_analysis *a, const vt_tracker *tk, size_t top)
{
    memset(out, 0, sizeof *out);
    vt_row *rows = NULL;
    size_t n = vt_rows(a, tk, VT_AT_PEAK, VT_BY_SITE, &rows);
    if (n == (size_t)-1) return -1;
    /* rows that read alike in report's default view are one group */
    vt_strtab texts = { 0 };
    site_group *gs = calloc(n ? n : 1, sizeof *gs);
    uint32_t *gid = calloc(n ? n : 1, sizeof *gid);
    int rc = !gs || !gid ? -1 : 0;
    for (size_t i = 0; i < n && !rc; i++) {
        char *t = site_row_text(a, rows[i].key, VT_SHOW_FRAMES);
        size_t before = texts.n;
        uint32_t id = t ? vt_strtab_intern(&texts, t, strlen(t)) : UINT32_MAX;
        free(t);
        if (id == UINT32_MAX) { rc = -1; break; }
        gid[i] = id;
        if (texts.n > before) gs[id].key = rows[i].key; /* rows come largest first */
        gs[id].bytes += rows[i].bytes;
        gs[id].total += rows[i].total_bytes;
    }
    size_t ng = texts.n;
    site_group *order = rc ? NULL : malloc((ng ? ng : 1) * sizeof *order);
    if (!rc && !order) rc = -1;
    if (!rc) {
        memcpy(order, gs, ng * sizeof *order);
        qsort(order, ng, sizeof *order, site_group_cmp);
        out->ntop = ng < top ? ng : top;
        out->nrest = ng - out->ntop;
        out->top = calloc(out->ntop ? out->ntop : 1, sizeof *out->top);
        if (!out->top) rc = -1;
    }
    /* the group id of each top entry, to map the rows */
    vt_idmap top_of = { 0 };
    for (size_t i = 0; !rc && i < out->ntop; i++) {
        site_series *t = &out->top[i];
        t->site = order[i].key;
        t->at_peak = order[i].bytes;
        t->label = site_row_text(a, t->site, 3);
        if (!t->label) { rc = -1; break; }
        for (size_t j = 0; j < i; j++) {
            /* two groups that read the same on three lines: both in full */
            if (strcmp(out->top[j].label, t->label)) continue;
            char *x = site_row_text(a, out->top[j].site, VT_SHOW_FRAMES), *y = site_row_text(a, t->site, VT_SHOW_FRAMES);
            if (!x || !y) { free(x); free(y); rc = -1; break; }
            free(out->top[j].label);
            free(t->label);
            out->top[j].label = x;
            t->label = y;
        }
    }
    for (size_t i = 0; !rc && i < n; i++) {
        /* the group of row i: its text id; the top entry of that group, if any */
        uint32_t id = gid[i];
        const uint32_t *ti = vt_idmap_get(&top_of, id);
        if (!ti) {
            for (size_t k = 0; k < out->ntop; k++)
                if (gs[id].key == out->top[k].site) {
                    if (vt_idmap_put(&top_of, id, (uint32_t)k)) rc = -1;
                    ti = vt_idmap_get(&top_of, id);
                    break;
                }
        }
        if (!rc && ti && vt_idmap_put(&out->of, rows[i].key, *ti)) rc = -1;
    }
    vt_idmap_free(&top_of);
    free(order);
    free(gs);
    free(gid);
    free(rows);
    vt_strtab_free(&texts);
    if (rc) series_sites_free(out);
    return rc;
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

/* The key of group g's series by category or by kind. By category, PyTorch's idle segment
 * bytes have a series of their own, as report shows them in no category. */
static int def_key(const vt_analysis *a, const vt_series_opts *o, const vt_group *g)
{
    if (o->by == VT_SERIES_BY_KIND) return g->kind;
    if (g->kind == VT_GROUP_POOL) return VT_SERIES_POOL;
    return g->kind == VT_GROUP_IDLE ? VT_SERIES_IDLE : (int)vt_series_group_cat(a, 0, g);
}

static int build_defs(vt_series *s, const vt_analysis *a, const vt_series_opts *o, vt_idmap *gmap)
{
    const vt_replay *rp = a->t[0].rp;
    const vt_replay_result *res = vt_replay_result_of(rp);
    int sid_of[256];
    for (int i = 0; i < 256; i++) sid_of[i] = -1;

    if (o->by == VT_SERIES_BY_CATEGORY || o->by == VT_SERIES_BY_KIND) {
        /* present keys, with their bytes at the peak for ordering */
        uint64_t peak[256] = { 0 }, total[256] = { 0 };
        int present[256] = { 0 };
        for (size_t i = 0; i < res->ngroups; i++) {
            const vt_group *g = &res->groups[i];
            int k = vt_series_group_tk(a, g, o->device);
            if (k < 0) continue;
            int key = def_key(a, o, g);
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
                               : key == VT_SERIES_IDLE   ? VT_ROW_IDLE_NAME
                               : key == VT_SERIES_POOL   ? VT_ROW_POOL_NAME
                                                         : vt_series_cat_name((vt_cat)key);
            const char *detail = o->by == VT_SERIES_BY_KIND ? "driver allocation call"
                                 : key == VT_SERIES_IDLE   ? VT_ROW_IDLE_WHAT " (reserved)"
                                 : key == VT_SERIES_POOL   ? VT_ROW_POOL_WHAT " (reserved)"
                                                           : vt_cat_what((vt_cat)key);
            if (add_def(s, name, detail, key, NULL)) return -1;
            sid_of[key] = (int)s->nseries - 1;
        }
        for (size_t i = 0; i < res->ngroups; i++) {
            const vt_group *g = &res->groups[i];
            int k = vt_series_group_tk(a, g, o->device);
            if (k < 0) continue;
            int sid = sid_of[def_key(a, o, g) & 0xff];
            s->series[sid].at_peak += g->at_peak[k];
            s->series[sid].total_bytes += g->total_bytes;
            /* a part split off a group (vt_cat_split.c) is fed by the group's events:
             * the second pass moves its allocations (moved_event) */
            if (!g->split && vt_idmap_put(gmap, vt_series_group_key(g->stack_id, g->kind, g->device), (uint32_t)sid))
                return -1;
        }
        return 0;
    }

    /* by site or layer: the top ones at the peak, then "other"; sites as report names
     * and groups them (series_sites) */
    vt_by by = o->by == VT_SERIES_BY_LAYER ? VT_BY_LAYER : VT_BY_SITE;
    const vt_tracker *tk = vt_series_tracker(a, o->device);
    size_t top = o->top ? o->top : 10;
    if (top > VT_SERIES_MAX - 1) top = VT_SERIES_MAX - 1;
    vt_row *rows = NULL;
    site_set sites = { 0 };
    size_t nrows = 0, ntop = 0, nrest = 0;
    if (by == VT_BY_SITE) {
        if (tk && series_sites(&sites, a, tk, top)) return -1;
        ntop = sites.ntop;
        nrest = sites.nrest;
    } else {
        nrows = tk ? vt_rows(a, tk, VT_AT_PEAK, by, &rows) : 0;
        if (nrows == (size_t)-1) return -1;
        ntop = nrows < top ? nrows : top;
        nrest = nrows - ntop;
    }
    vt_idmap key_sid = { 0 };
    int rc = 0;
    for (size_t i = 0; i < ntop && !rc; i++) {
        if (by == VT_BY_SITE) {
            char *detail = site_detail(a, sites.top[i].site);
            if (!detail || add_def(s, sites.top[i].label, NULL, (int)sites.top[i].site, detail)) rc = -1;
        } else {
            if (add_def(s, vt_row_name(a, by, rows[i].key), "layer: the innermost scope (NVTX range, module) "
                        "or Python frame of the program's own code", (int)rows[i].key, NULL))
                rc = -1;
            if (!rc && vt_idmap_put(&key_sid, rows[i].key, (uint32_t)i)) rc = -1;
        }
    }
    int other = -1;
    if (!rc && nrest) {
        if (add_def(s, "other", by == VT_BY_SITE ? "every other site" : "every other layer", -1, NULL)) rc = -1;
        other = (int)s->nseries - 1;
    }
    free(rows);
    const vt_idmap *sid_of_key = by == VT_BY_SITE ? &sites.of : &key_sid;
    for (size_t i = 0; i < res->ngroups && !rc; i++) {
        const vt_group *g = &res->groups[i];
        int k = vt_series_group_tk(a, g, o->device);
        if (k < 0) continue;
        /* PyTorch's idle bytes as the rows key them, by site and by layer alike */
        uint32_t key = g->kind == VT_GROUP_IDLE   ? VT_ROW_IDLE
                       : g->kind == VT_GROUP_POOL ? VT_ROW_POOL
                       : by == VT_BY_SITE         ? g->site
                       : g->layer                 ? g->layer->name_id : UINT32_MAX;
        const uint32_t *v = vt_idmap_get(sid_of_key, key);
        int sid = v ? (int)*v : other;
        if (sid < 0) continue; /* cannot happen: every key is in the rows */
        s->series[sid].at_peak += g->at_peak[k];
        s->series[sid].total_bytes += g->total_bytes;
        if (!g->split && vt_idmap_put(gmap, vt_series_group_key(g->stack_id, g->kind, g->device), (uint32_t)sid)) rc = -1;
    }
    vt_idmap_free(&key_sid);
    series_sites_free(&sites);
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

/* Allocations split off their group by lifetimes (vt_cat_split.c): the second replay
 * feeds each to its group's series, so for --by category they are moved to their own
 * category's series as they come and go. They are met in the order the first pass
 * logged them, which is the order of the records. */
typedef struct {
    const vt_cat_odd *odd;      /* t->cat->odd: the moved ones have a part */
    size_t n, next;             /* next: the first not met yet */
    const vt_group *g1;         /* the first pass's groups */
    const vt_idmap *gmap;       /* group key -> series */
    int cat_sid[VT_CAT_N];      /* category -> series, -1: none */
    vt_idmap live;              /* space and address of a moved allocation live -> odd + 1 */
} moves;

typedef struct {
    vt_series *s;
    vt_tracker *ser;      /* one per series */
    const vt_tracker *tot;
    long cur;             /* bucket being filled, -1 before the first */
    uint64_t cur_start;   /* its start time */
    uint64_t nrec;        /* records applied so far */
    moves *mv;            /* NULL: nothing to move */
} pass_state;

static uint64_t moved_key(unsigned kind, uint64_t addr)
{
    return addr ^ (uint64_t)vt_kind_space(kind) << 59;
}

/* After the replay applied an allocation or a free: moves its bytes between series when
 * it is one of the allocations split off its group. */
static void moved_event(pass_state *ps, unsigned type, unsigned kind, int device, uint32_t stack_id,
                        uint64_t addr, uint64_t size, uint64_t t)
{
    moves *m = ps->mv;
    if (type == VT_REC_FREE) {
        uint32_t *v = m->live.n ? vt_idmap_get(&m->live, moved_key(kind, addr)) : NULL;
        if (!v || !*v) return;
        const vt_cat_odd *o = &m->odd[*v - 1];
        const vt_group *g1 = &m->g1[o->group];
        const uint32_t *from = vt_idmap_get(m->gmap, vt_series_group_key(g1->stack_id, g1->kind, g1->device));
        int to = m->cat_sid[o->cat];
        *v = 0;
        if (!from || to < 0 || ps->ser[to].live < o->size || !ps->ser[to].count) return;
        ps->ser[to].live -= o->size;
        ps->ser[to].count--;
        ps->ser[*from].live += o->size;
        ps->ser[*from].count++;
        return;
    }
    while (m->next < m->n && !m->odd[m->next].part) m->next++;
    if (m->next >= m->n) return;
    const vt_cat_odd *o = &m->odd[m->next];
    const vt_group *g1 = &m->g1[o->group];
    if (o->time != t || o->size != size || g1->stack_id != stack_id || g1->kind != kind || g1->device != device)
        return;
    m->next++;
    const uint32_t *from = vt_idmap_get(m->gmap, vt_series_group_key(stack_id, kind, device));
    int to = m->cat_sid[o->cat];
    if (!from || to < 0 || ps->ser[*from].live < size || !ps->ser[*from].count) return;
    if (vt_idmap_put(&m->live, moved_key(kind, addr), (uint32_t)(o - m->odd) + 1)) return;
    ps->ser[*from].live -= size;
    ps->ser[*from].count--;
    ps->ser[to].live += size;
    ps->ser[to].count++;
}

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
        bk->blocks_max = ps->tot ? ps->tot->blocks : 0;
        bk->tmin = bk->tmax = ps->cur_start = vt_series_bucket_start(s, k);
        bk->omin = bk->omax = ps->nrec;
        snap(ps, &s->at_max[k * s->nseries]);
        if (s->at_min) snap(ps, &s->at_min[k * s->nseries]);
    }
}

/* seg: the event made a driver allocation a PyTorch segment (its bytes became idle) */
static void on_change(pass_state *ps, uint64_t t, int seg)
{
    vt_series *s = ps->s;
    vt_bucket *bk = &s->b[ps->cur];
    uint64_t v = total_now(ps);
    uint64_t blocks = ps->tot ? ps->tot->blocks : 0;
    /* a late record (another thread's, stamped a little earlier) counts at the start of
     * the bucket it lands in, so that moments stay in time order */
    if (t < ps->cur_start) t = ps->cur_start;
    bk->events++;
    /* report's peak is taken again at the same total when a segment becomes known or the
     * blocks reach a new high (vt_replay.c, group_shift) */
    if (v > bk->max || (v == bk->max && (seg || blocks > bk->blocks_max))) {
        bk->max = v;
        bk->blocks_max = blocks;
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
    size_t n = vt_replay_ngroups(rp);
    for (size_t i = seen; i < n; i++) {
        const vt_group *g = vt_replay_group(rp, i);
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
    return n;
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
    const vt_replay_result *res = vt_replay_result_of(rp);
    const vt_nvml *nv = &res->nvml[nvix + 1];
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
    const vt_replay_result *res = vt_replay_result_of(t->rp);
    const vt_tracker *tk1 = vt_series_tracker(a, o->device);
    if (!tk1) {
        fprintf(stderr, "vramtrace: %s: device %d has no memory in this trace\n", t->path, o->device);
        return 2;
    }
    s->peak = tk1->peak;
    s->peak_time = tk1->peak_time;
    s->end_live = tk1->live;
    s->span_end = res->last_time;
    s->t0 = o->from;
    s->t1 = o->to == UINT64_MAX ? res->last_time : o->to;
    if (s->t1 < s->t0) {
        fprintf(stderr, "vramtrace: %s: the time range is empty (the trace ends at %.6f s)\n", t->path,
                (double)res->last_time / 1e9);
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
            if (res->nvml[i + 1].has_proc) s->nvml_proc = 1;
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
    vt_replay_set_global(rp, &all);
    moves mv = { 0 };
    pass_state ps = { s, ser, o->device == VT_ALL_DEVICES ? &all : NULL, -1, 0, 0, NULL };
    if (o->by == VT_SERIES_BY_CATEGORY && t->cat && t->cat->nodd) {
        mv = (moves){ t->cat->odd, t->cat->nodd, 0, res->groups, &gmap, { 0 }, { 0 } };
        for (int c = 0; c < VT_CAT_N; c++) {
            mv.cat_sid[c] = -1;
            for (size_t i = 0; i < s->nseries; i++)
                if (s->series[i].key == c) mv.cat_sid[c] = (int)i;
        }
        ps.mv = &mv;
    }
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
                if (vt_replay_ngroups(rp) > seen_groups)
                    seen_groups = attach_groups(&ps, rp, seen_groups, &gmap, o->device);
                if (ps.mv) moved_event(&ps, ev[i].type, ev[i].kind, ev[i].device, ev[i].stack_id, ev[i].addr,
                                       ev[i].size, ev[i].time_ns);
                if (!ps.tot) ps.tot = device_tracker(rp, o->device);
                if (in_range) on_change(&ps, ev[i].time_ns, 0);
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
        if (vt_replay_ngroups(rp) > seen_groups)
            seen_groups = attach_groups(&ps, rp, seen_groups, &gmap, o->device);
        if (ps.mv && (r.type == VT_REC_ALLOC || r.type == VT_REC_FREE))
            moved_event(&ps, r.type, r.kind, r.device, r.stack_id, r.addr, r.size, r.time_ns);
        if (!ps.tot) ps.tot = device_tracker(rp, o->device);
        if (!in_range) continue;
        if (memory) {
            on_change(&ps, r.time_ns, r.type == VT_REC_VMM && r.kind == VT_VMM_TORCH_SEGMENT);
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
    vt_idmap_free(&mv.live);
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

/* ------------------------------------------------------------------------ *
 *  Colours
 * ------------------------------------------------------------------------ */
const char *vt_html_series_color(const vt_series *s, size_t i)
{
    /* categories: one fixed colour each, so every report reads alike */
    static const char *const cat[VT_CAT_N] = {
        "#4e79a7", /* weights: blue */
        "#f28e2b", /* activations: orange */
        "#59a14f", /* gradients: green */
        "#b07aa1", /* optimizer_state: purple */
        "#edc948", /* workspace: yellow */
        "#ff9da7", /* temporary: pink */
        "#e15759", /* communication: red */
        "#76b7b2", /* host_pinned: teal */
        "#bab0ac", /* other: grey */
    };
    static const char *const pal[] = { "#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#b07aa1",
                                       "#edc948", "#76b7b2", "#ff9da7", "#9c755f", "#86bcb6",
                                       "#d37295", "#a0cbe8", "#ffbe7d", "#8cd17d", "#f1ce63" };
    const vt_series_def *d = &s->series[i];
    if (s->by == VT_SERIES_BY_CATEGORY && d->key == VT_SERIES_IDLE) return "#e3e3e3";  /* idle cache: pale */
    if (s->by == VT_SERIES_BY_CATEGORY && d->key == VT_SERIES_POOL) return "#c9d3e6";  /* graph pool: pale blue */
    if (s->by == VT_SERIES_BY_CATEGORY) return (unsigned)d->key < VT_CAT_N ? cat[d->key] : cat[VT_CAT_OTHER];
    if (d->key < 0) return "#bab0ac";
    return pal[i % (sizeof pal / sizeof pal[0])];
}
