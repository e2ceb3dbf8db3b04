// SPDX-License-Identifier: MIT
/* vt_moments.c - the top sites at a timeline's sampled moments (see vt_moments.h). */
#include "vt_moments.h"
#include "vt_layer.h"
#include "vt_show.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

/* A site key: the lines `top` prints for the site, on one line (without the count of
 * frames left out, as vt_show_group_rows compares them); sites that read alike are one
 * row, as there. */
typedef struct {
    uint32_t site;          /* the first site seen with this text */
    uint32_t layer;         /* its layer's name id (UINT32_MAX: none) */
    uint32_t out;           /* index in vt_moments.sites, NONE until a row names it */
    uint64_t bytes, count;  /* at the moment being summed */
    uint64_t cat[VT_CAT_N];
} key_info;

typedef struct {
    const vt_analysis *a;
    int ti;                 /* the trace */
    vt_moments *m;
    vt_strtab texts;        /* key texts */
    uint32_t *site_key;     /* site index (+ 1 slot for "no site") -> key, NONE: not yet */
    key_info *keys;
    size_t nkeys, keys_cap;
    uint32_t *touched;      /* keys with bytes at the moment being summed */
    size_t ntouched;
    size_t rowix_cap, rows_cap, sites_cap;
    uint32_t *row_hash;     /* open addressing over rows: index + 1, 0 empty */
    size_t row_hash_cap;
} mctx;

static int grow(void *pp, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return 0;
    size_t c = *cap ? *cap : 64;
    while (c < need) c *= 2;
    void *p = realloc(*(void **)pp, c * elem);
    if (!p) return -1;
    *(void **)pp = p;
    *cap = c;
    return 0;
}

static char *site_text(const vt_analysis *a, uint32_t site, uint32_t lines, int inline_form)
{
    char *p = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&p, &len);
    if (!f) return NULL;
    vt_frames fr = { VT_VIEW_USER, lines };
    if (inline_form) vt_show_site_inline(f, a, site, &fr, VT_SHOW_FRAMES);
    else vt_show_site(f, a, site, &fr, 0);
    fclose(f);
    while (len && p[len - 1] == '\n') p[--len] = 0;
    return p;
}

/* The key of site `site` (first-pass group g gives its layer). */
static uint32_t key_of(mctx *c, uint32_t site, const vt_group *g)
{
    size_t ns = c->a->sites.n;
    size_t slot = site < ns ? site : ns;
    if (c->site_key[slot] != NONE) return c->site_key[slot];
    char *text = site_text(c->a, site, 0, 1);
    if (!text) return NONE;
    uint32_t k = vt_strtab_intern(&c->texts, text, strlen(text));
    free(text);
    if (k == NONE) return NONE;
    if (k >= c->nkeys) {
        if (grow(&c->keys, &c->keys_cap, (size_t)k + 1, sizeof *c->keys)) return NONE;
        for (size_t i = c->nkeys; i <= k; i++) {
            memset(&c->keys[i], 0, sizeof c->keys[i]);
            c->keys[i].site = site;
            c->keys[i].layer = g->layer ? g->layer->name_id : UINT32_MAX;
            c->keys[i].out = NONE;
        }
        c->nkeys = (size_t)k + 1;
    }
    c->site_key[slot] = k;
    return k;
}

static uint64_t row_hash(const vt_moment_row *r)
{
    return vt_hash64(r->bytes ^ vt_hash64(r->count ^ vt_hash64((uint64_t)r->site << 8 | r->cat)));
}

/* The index of row r among the distinct rows, adding it when new. */
static uint32_t row_index(mctx *c, const vt_moment_row *r)
{
    vt_moments *m = c->m;
    if (2 * (m->nrows + 1) > c->row_hash_cap) {
        size_t cap = c->row_hash_cap ? c->row_hash_cap * 2 : 1024;
        uint32_t *h = calloc(cap, sizeof *h);
        if (!h) return NONE;
        for (size_t i = 0; i < m->nrows; i++) {
            size_t j = row_hash(&m->rows[i]) & (cap - 1);
            while (h[j]) j = (j + 1) & (cap - 1);
            h[j] = (uint32_t)i + 1;
        }
        free(c->row_hash);
        c->row_hash = h;
        c->row_hash_cap = cap;
    }
    size_t j = row_hash(r) & (c->row_hash_cap - 1);
    for (; c->row_hash[j]; j = (j + 1) & (c->row_hash_cap - 1)) {
        const vt_moment_row *o = &m->rows[c->row_hash[j] - 1];
        if (o->site == r->site && o->cat == r->cat && o->bytes == r->bytes && o->count == r->count)
            return c->row_hash[j] - 1;
    }
    if (grow(&m->rows, &c->rows_cap, m->nrows + 1, sizeof *m->rows)) return NONE;
    m->rows[m->nrows] = *r;
    c->row_hash[j] = (uint32_t)m->nrows + 1;
    return (uint32_t)m->nrows++;
}

/* The output site of key k, added to the table when first named. */
static uint32_t site_out(mctx *c, uint32_t k)
{
    key_info *ki = &c->keys[k];
    if (ki->out != NONE) return ki->out;
    vt_moments *m = c->m;
    if (grow(&m->sites, &c->sites_cap, m->nsites + 1, sizeof *m->sites)) return NONE;
    vt_moment_site *s = &m->sites[m->nsites];
    s->label = site_text(c->a, ki->site, 0, 1);
    s->detail = site_text(c->a, ki->site, 12, 0);
    s->layer = strdup(vt_row_name(c->a, VT_BY_LAYER, ki->layer));
    if (!s->label || !s->detail || !s->layer) {
        free(s->label);
        free(s->detail);
        free(s->layer);
        return NONE;
    }
    ki->out = (uint32_t)m->nsites++;
    return ki->out;
}

static int by_bytes(const void *x, const void *y, void *keys)
{
    const key_info *a = &((const key_info *)keys)[*(const uint32_t *)x];
    const key_info *b = &((const key_info *)keys)[*(const uint32_t *)y];
    if (a->bytes != b->bytes) return a->bytes > b->bytes ? -1 : 1;
    return *(const uint32_t *)x < *(const uint32_t *)y ? -1 : *(const uint32_t *)x > *(const uint32_t *)y;
}

/* The state now: the selected groups' live bytes summed by key, the top ones kept. */
static int take_state(mctx *c, const vt_replay *rp, const uint32_t *fp_of, int device)
{
    const vt_analysis *a = c->a;
    const vt_replay_result *rp1 = vt_replay_result_of(a->t[c->ti].rp);
    vt_moments *m = c->m;
    uint64_t total = 0;
    c->ntouched = 0;
    for (size_t i = 0, n = vt_replay_ngroups(rp); i < n; i++) {
        const vt_group *g = vt_replay_group(rp, i);
        if (!g->live || g->cls != VT_CLASS_DEVICE) continue;
        if (device != VT_ALL_DEVICES && g->device != device) continue;
        const vt_group *g1 = fp_of[i] != NONE ? &rp1->groups[fp_of[i]] : NULL;
        if (!g1) continue; /* not in the first pass: cannot happen (the series counts it) */
        uint32_t k = key_of(c, g1->site, g1);
        if (k == NONE) return -1;
        key_info *ki = &c->keys[k];
        if (!ki->bytes && !ki->count) c->touched[c->ntouched++] = k;
        ki->bytes += g->live;
        ki->count += g->live_count;
        ki->cat[g1->cat < VT_CAT_N ? g1->cat : VT_CAT_OTHER] += g->live;
        total += g->live;
    }
    qsort_r(c->touched, c->ntouched, sizeof *c->touched, by_bytes, c->keys);
    size_t n = c->ntouched < m->top ? c->ntouched : m->top;
    size_t st = m->nstates;
    if (grow(&m->rowix, &c->rowix_cap, m->nrowix + n, sizeof *m->rowix)) return -1;
    uint64_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        key_info *ki = &c->keys[c->touched[i]];
        vt_moment_row r = { site_out(c, c->touched[i]), 0, ki->bytes, ki->count };
        if (r.site == NONE) return -1;
        for (unsigned k = 1; k < VT_CAT_N; k++)
            if (ki->cat[k] > ki->cat[r.cat]) r.cat = (uint8_t)k;
        uint32_t ri = row_index(c, &r);
        if (ri == NONE) return -1;
        m->rowix[m->nrowix++] = ri;
        kept += ki->bytes;
    }
    m->total[st] = total;
    m->rest_bytes[st] = total - kept;
    m->rest_sites[st] = (uint32_t)(c->ntouched - n);
    m->first[st + 1] = (uint32_t)m->nrowix;
    m->nstates++;
    for (size_t i = 0; i < c->ntouched; i++) {
        key_info *ki = &c->keys[c->touched[i]];
        ki->bytes = ki->count = 0;
        memset(ki->cat, 0, sizeof ki->cat);
    }
    return 0;
}

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

static uint32_t state_of(const uint64_t *ords, size_t n, uint64_t o)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (ords[mid] < o) lo = mid + 1;
        else hi = mid;
    }
    return (uint32_t)lo;
}

/* Maps the groups the replay made since *seen to the first pass's, then takes the state. */
static int take_due(mctx *c, const vt_replay *rp, uint32_t **fp_of, size_t *fp_cap, size_t *seen,
                    const vt_idmap *gmap, int device)
{
    size_t ng = vt_replay_ngroups(rp);
    if (ng > *seen) {
        if (grow(fp_of, fp_cap, ng, sizeof **fp_of)) return -1;
        for (; *seen < ng; (*seen)++) {
            const vt_group *g = vt_replay_group(rp, *seen);
            const uint32_t *v = vt_idmap_get(gmap, vt_series_group_key(g->stack_id, g->kind, g->device));
            (*fp_of)[*seen] = v ? *v : NONE;
        }
    }
    return take_state(c, rp, *fp_of, device);
}

/* The replay to each target record count; a state taken at each. */
static int replay(mctx *c, const vt_series *s, const uint64_t *ords, size_t nords, const vt_idmap *gmap)
{
    const vt_trace *t = &c->a->t[c->ti];
    char msg[512];
    vt_reader rd;
    if (vt_reader_open(&rd, t->path, msg, sizeof msg) != VT_READ_OK) {
        fprintf(stderr, "vramtrace: %s\n", msg);
        return 2;
    }
    vt_replay *rp = vt_replay_new(c->ti, rd.hdr.start_realtime_ns);
    vt_tracker all = { 0 };
    uint32_t *fp_of = NULL;
    size_t fp_cap = 0, seen = 0, next = 0;
    uint64_t nrec = 0;
    int rc = rp ? 0 : -1;
    if (rp) vt_replay_set_global(rp, &all);
    vt_reader_start_events(&rd);
    /* the same walk as vt_series_build's, so that record counts name the same moments */
#define TAKE_DUE()                                                                                   \
    while (!rc && next < nords && ords[next] == nrec) {                                              \
        rc = take_due(c, rp, &fp_of, &fp_cap, &seen, gmap, s->device);                               \
        next++;                                                                                      \
    }
    while (!rc && next < nords) {
        const vt_ev *ev;
        vt_rec r;
        size_t n = vt_reader_events(&rd, &ev);
        if (n) {
            /* runs up to the next moment at once: the fast path */
            for (size_t i = 0; i < n && !rc && next < nords;) {
                TAKE_DUE();
                if (rc || next == nords) break;
                size_t run = n - i;
                if (ords[next] - nrec < run) run = (size_t)(ords[next] - nrec);
                vt_replay_events(rp, &ev[i], run);
                i += run;
                nrec += run;
            }
            continue;
        }
        TAKE_DUE();
        if (rc || next == nords || !vt_reader_next(&rd, &r)) break;
        vt_replay_rec(rp, &r);
        nrec++;
    }
    TAKE_DUE();
#undef TAKE_DUE
    free(fp_of);
    if (rp) vt_replay_free(rp);
    vt_reader_close(&rd);
    if (rc) fprintf(stderr, "vramtrace: out of memory\n");
    return rc ? 2 : 0;
}

int vt_moments_build(vt_moments *m, const vt_analysis *a, int ti, const vt_series *s, unsigned top)
{
    memset(m, 0, sizeof *m);
    m->top = top;
    m->nbuckets = s->nbuckets;
    size_t nb = s->nbuckets;
    uint64_t *ords = malloc((2 * nb + 1) * sizeof *ords);
    m->bmax = malloc((nb + 1) * sizeof *m->bmax);
    m->bmin = malloc((nb + 1) * sizeof *m->bmin);
    if (!ords || !m->bmax || !m->bmin) goto nomem;
    for (size_t i = 0; i < nb; i++) {
        ords[2 * i] = s->b[i].omax;
        ords[2 * i + 1] = s->b[i].omin;
    }
    qsort(ords, 2 * nb, sizeof *ords, cmp_u64);
    size_t nords = 0;
    for (size_t i = 0; i < 2 * nb; i++)
        if (!nords || ords[i] != ords[nords - 1]) ords[nords++] = ords[i];
    for (size_t i = 0; i < nb; i++) {
        m->bmax[i] = state_of(ords, nords, s->b[i].omax);
        m->bmin[i] = state_of(ords, nords, s->b[i].omin);
    }
    m->total = malloc((nords + 1) * sizeof *m->total);
    m->rest_bytes = malloc((nords + 1) * sizeof *m->rest_bytes);
    m->rest_sites = malloc((nords + 1) * sizeof *m->rest_sites);
    m->first = calloc(nords + 1, sizeof *m->first);
    mctx c = { .a = a, .ti = ti, .m = m };
    c.site_key = malloc((a->sites.n + 1) * sizeof *c.site_key);
    vt_idmap gmap = { 0 };
    int rc = 0;
    if (!m->total || !m->rest_bytes || !m->rest_sites || !m->first || !c.site_key) rc = -1;
    const vt_replay_result *rp1 = vt_replay_result_of(a->t[ti].rp);
    for (size_t i = 0; !rc && i < rp1->ngroups; i++) {
        const vt_group *g = &rp1->groups[i];
        if (g->cls == VT_CLASS_DEVICE && !g->split && vt_idmap_put(&gmap, vt_series_group_key(g->stack_id, g->kind, g->device), (uint32_t)i))
            rc = -1;
    }
    if (!rc) {
        for (size_t i = 0; i <= a->sites.n; i++) c.site_key[i] = NONE;
        /* at most every first-pass group's key is touched at once */
        c.touched = malloc((rp1->ngroups + 1) * sizeof *c.touched);
        if (!c.touched) rc = -1;
    }
    if (!rc) rc = replay(&c, s, ords, nords, &gmap);
    else fprintf(stderr, "vramtrace: out of memory\n");
    if (!rc && m->nstates != nords) {
        /* the trace ended before a counted record: the two passes disagree */
        fprintf(stderr, "vramtrace: %s: the moments pass saw fewer records than the series pass\n", a->t[ti].path);
        rc = 2;
    }
    vt_idmap_free(&gmap);
    vt_strtab_free(&c.texts);
    free(c.site_key);
    free(c.keys);
    free(c.touched);
    free(c.row_hash);
    free(ords);
    return rc;
nomem:
    free(ords);
    fprintf(stderr, "vramtrace: out of memory\n");
    return 2;
}

void vt_moments_free(vt_moments *m)
{
    for (size_t i = 0; i < m->nsites; i++) {
        free(m->sites[i].label);
        free(m->sites[i].detail);
        free(m->sites[i].layer);
    }
    free(m->sites);
    free(m->total);
    free(m->rest_bytes);
    free(m->rest_sites);
    free(m->first);
    free(m->rowix);
    free(m->rows);
    free(m->bmax);
    free(m->bmin);
    memset(m, 0, sizeof *m);
}
