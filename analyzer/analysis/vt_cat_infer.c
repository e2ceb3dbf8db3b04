// SPDX-License-Identifier: MIT
/* vt_cat_infer.c - categories from lifetimes: training iterations, their phases, and
 * what each group's allocations did relative to them (docs/categories.md).
 *
 * Iterations. Training memory is a saw: each forward piles activations up, each
 * backward frees them. The device total over the logged window (vt_cat_life.h) is cut
 * into swings with a hysteresis h: a maximum counts once the total has fallen h below
 * it, a minimum once it has risen h above it. Too large an h sees one hill, too small
 * an h sees every temporary. The coarsest h (peak/2, peak/4, ...) whose swings repeat
 * (consecutive forwards allocate from mostly the same groups) gives the iterations; a
 * swing like neither neighbour (an optimizer step's scratch) is dropped. An iteration
 * whose forward does not show as a tooth (the first one of a small batch, where
 * gradients and optimizer state grow faster than activations shrink) is found by its
 * pattern: the groups that open the next forward, seen earlier in the same order.
 *
 * Phases of iteration k: forward [fwd_k, fwd_end_k], backward (fwd_end_k, bwd_end_k],
 * optimizer step and the rest (bwd_end_k, fwd_k+1). The activations of k are the
 * allocations made by its peak and freed after it, before the next forward: fwd_k is the
 * first of them, bwd_end_k their last free (stragglers after a long pause left out).
 * The peak may come a little into the backward, so a second round ends the forward at
 * the last allocation of a group the first round found to be activations.
 *
 * Each allocation of the window then gets a label from its allocation and free phases
 * (weights, activations, gradients, optimizer_state, temporary, other), and each group
 * the label holding most of its bytes. Every scan is bounded by the span it looks at,
 * so the whole costs O(window) per hysteresis tried. */
#include "vt_cat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void vt_cat_trace_free(vt_cat_trace *ct)
{
    free(ct->iters);
    free(ct->inferred);
    free(ct->evidence);
    free(ct->odd);
    memset(ct, 0, sizeof *ct);
}

/* ------------------------------------------------------------------------ *
 *  Swings of the device total
 * ------------------------------------------------------------------------ */
typedef struct {
    size_t imax;      /* log index where the total was highest in the swing */
    size_t imin;      /* index of the lowest point after it (before the next rise) */
} swing;

/* The maxima whose rise before and fall after are both >= h. Writes at most max of
 * them (when out is not NULL) and returns how many there are. */
static size_t swings(const int64_t *c, size_t n, int64_t h, swing *out, size_t max)
{
    size_t k = 0;
    int up = 0;              /* 0: looking for a rise from mn; 1: for a fall from mx */
    int64_t mn = 0, mx = 0;  /* the total starts at 0, before any allocation */
    size_t imx = 0, imn = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t v = c[i];
        if (!up) {
            if (v < mn) { mn = v; imn = i; }
            if (v - mn >= h) {
                if (k && out && k - 1 < max) out[k - 1].imin = imn;
                up = 1;
                mx = v;
                imx = i;
            }
        } else {
            if (v > mx) { mx = v; imx = i; }
            if (mx - v >= h) {
                if (out && k < max) {
                    out[k].imax = imx;
                    out[k].imin = i;
                }
                k++;
                up = 0;
                mn = v;
                imn = i;
            }
        }
    }
    if (!up && k && out && k - 1 < max) out[k - 1].imin = imn;
    return k;
}

/* c's first and last values and its turning points (where it stops rising or falling),
 * into out (n values at most); returns how many. swings() counts the same on them as on
 * c: within a rising or falling run the hysteresis can only turn where the run ends,
 * which is the run's extreme, and it ends each run in the same state. The search below
 * counts swings at up to 40 thresholds; this makes those passes shorter. */
static size_t turning_points(const int64_t *c, size_t n, int64_t *out)
{
    if (!n) return 0;
    size_t k = 0;
    int dir = 0;
    out[k++] = c[0];
    for (size_t i = 1; i < n; i++) {
        int d = (c[i] > c[i - 1]) - (c[i] < c[i - 1]);
        if (!d) continue;
        if (dir && d != dir) out[k++] = c[i - 1];
        dir = d;
    }
    out[k++] = c[n - 1];
    return k;
}

/* ------------------------------------------------------------------------ *
 *  Phases
 * ------------------------------------------------------------------------ */
enum { PH_INIT = 0 };
/* forward of k: 1 + 3k, backward: 2 + 3k, after the backward: 3 + 3k (the last one of
 * these runs to the end of the trace: teardown). */

static size_t phase_of(const vt_cat_iter *it, size_t n, uint64_t t)
{
    if (!n || t < it[0].fwd) return PH_INIT;
    /* the last iteration whose forward began at or before t */
    size_t lo = 0, hi = n;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (it[mid].fwd <= t) lo = mid;
        else hi = mid;
    }
    if (t <= it[lo].fwd_end) return 1 + 3 * lo;
    if (t <= it[lo].bwd_end) return 2 + 3 * lo;
    return 3 + 3 * lo;
}

#define FREE_NEVER VT_CAT_FREE_NEVER

/* What one allocation was, from when it was made and freed. */
static vt_cat label(const vt_cat_iter *it, size_t n, uint64_t a, uint64_t f)
{
    size_t pa = phase_of(it, n, a);
    size_t end = 3 + 3 * (n - 1);     /* after the last backward */
    size_t pf = f == FREE_NEVER ? end + 1 : phase_of(it, n, f);
    if (f != FREE_NEVER && pa == pf) return VT_CAT_TEMPORARY;
    if (pf >= end) {
        /* Alive past the last backward: made to last. */
        if (pa == PH_INIT || pa == 1) return VT_CAT_WEIGHTS;
        if ((pa - 1) % 3 == 1) return VT_CAT_GRADIENTS;
        if (pa == 3) return VT_CAT_OPTIMIZER_STATE;
        return VT_CAT_OTHER;
    }
    if (pa == PH_INIT) return VT_CAT_OTHER;
    size_t k = (pa - 1) / 3, ph = (pa - 1) % 3;
    if (ph == 0 && pf == 2 + 3 * k) return VT_CAT_ACTIVATIONS;
    if (ph == 1 && (pf == 3 + 3 * k || pf == 4 + 3 * k)) return VT_CAT_GRADIENTS;
    return VT_CAT_OTHER;
}

vt_cat vt_cat_label(const vt_cat_trace *ct, uint64_t alloc_time, uint64_t free_time)
{
    return label(ct->iters, ct->niters, alloc_time, free_time);
}

/* ------------------------------------------------------------------------ *
 *  Iterations
 * ------------------------------------------------------------------------ */
static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

/* The first log entry after time t. The log is in record order, which is time order
 * but for threads racing by a few microseconds: scans that start here may miss such a
 * straggler, never more. Keeps every scan below proportional to what it looks at. */
static size_t after(const vt_catlog *l, uint64_t t)
{
    size_t lo = 0, hi = l->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (l->e[mid].time <= t) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* Sets of groups, without clearing between uses: g is in the set while mark[g] equals
 * the set's stamp; a new set takes the next stamp. */
typedef struct {
    uint32_t *mark;
    size_t n;
    uint32_t stamp;
    const uint32_t *cls;  /* group -> the group standing for its class; NULL: itself */
} gset;

/* The class of group g, which the set marks: where allocations are alike across steps
 * (forwards that repeat, the groups that open one) is asked of classes, not groups. */
static inline uint32_t gcls(const gset *s, uint32_t g)
{
    return s->cls && g < s->n ? s->cls[g] : g;
}

static int gset_init(gset *s, size_t n)
{
    s->mark = calloc(n ? n : 1, sizeof *s->mark);
    s->n = n;
    s->stamp = 0;
    s->cls = NULL;
    return s->mark ? 0 : -1;
}

/* Forward start and backward end of an iteration from its peak: the allocations made
 * after lo (the previous backward's end) by the peak and freed after it, up to until
 * (the next forward): fwd is the first of them, bwd_end their last free. Only groups
 * in the set `only` (stamp only_stamp) count, when only_stamp is not 0; the groups that
 * count go into `seen` with seen_stamp, when it is not 0. Returns the group of the
 * first one (UINT32_MAX: none). */
static uint32_t bounds_of(const vt_catlog *l, vt_cat_iter *it, uint64_t lo, uint64_t until,
                          const gset *only, uint32_t only_stamp, gset *seen, uint32_t seen_stamp)
{
    uint64_t fwd = UINT64_MAX;
    uint32_t first = UINT32_MAX;
    size_t n = 0, start = after(l, it->peak);
    for (int pass = 0; pass < 2; pass++) {
        size_t k = 0;
        uint64_t prev = 0, maxgap = 0, end = 0;
        for (size_t i = start; i < l->n && l->e[i].time <= until; i++) {
            const vt_catlog_ent *e = &l->e[i];
            if (e->op != VT_CATLOG_FREE) continue;
            uint64_t at = vt_catlog_alloc_time(l, e);
            if (at <= lo || at > it->peak) continue;
            if (only_stamp && (e->group >= only->n || only->mark[gcls(only, e->group)] != only_stamp)) continue;
            if (pass == 0) {
                if (seen_stamp && e->group < seen->n) seen->mark[gcls(seen, e->group)] = seen_stamp;
                if (at < fwd) { fwd = at; first = e->group; }
                n++;
                continue;
            }
            /* The backward ends with these frees, but for a few stragglers a program
             * may free only after its optimizer step, zero_grad or teardown (PyTorch's
             * loss tensor). Past 90% of the frees, a pause three times longer than any
             * between the frees before ends it. */
            uint64_t gap = prev ? e->time - prev : 0;
            if (k * 10 < n * 9) {
                if (gap > maxgap) maxgap = gap;
            } else if (gap > 3 * maxgap && gap > 100000) {
                break;
            }
            prev = end = e->time;
            k++;
        }
        if (pass == 1) it->bwd_end = end ? end : it->peak;
        if (!n) break;
    }
    it->fwd = fwd == UINT64_MAX ? it->peak : fwd;
    if (!n) it->bwd_end = it->peak;
    it->fwd_end = it->peak;
    return first;
}

static uint32_t bounds(const vt_catlog *l, vt_cat_iter *it, uint64_t lo, uint64_t until)
{
    return bounds_of(l, it, lo, until, NULL, 0, NULL, 0);
}

/* Each group's allocations in the log, by index: where the next one of a group comes
 * is then a binary search, not a scan of the log (a group that never allocates again
 * would make every swing scan to the end: O(swings x log) per hysteresis tried). */
typedef struct {
    uint32_t *off;    /* class c's allocations are ix[off[c] .. off[c + 1]) */
    uint32_t *ix;     /* log indexes, ascending within a class */
    size_t ng;
    const uint32_t *cls;  /* as gset's: group -> class; NULL: a group is its class */
} gallocs;

static inline uint32_t ga_cls(const gallocs *ga, uint32_t g)
{
    return ga->cls && g < ga->ng ? ga->cls[g] : g;
}

static int gallocs_init(gallocs *ga, const vt_catlog *l, size_t ng, const uint32_t *cls)
{
    ga->ng = ng;
    ga->cls = cls;
    ga->off = calloc(ng + 2, sizeof *ga->off);
    size_t na = 0;
    for (size_t i = 0; i < l->n; i++) na += l->e[i].op == VT_CATLOG_ALLOC && l->e[i].group < ng;
    ga->ix = malloc((na ? na : 1) * sizeof *ga->ix);
    if (!ga->off || !ga->ix) {
        free(ga->off);
        free(ga->ix);
        return -1;
    }
    /* counting sort: off[g + 2] counts, then off[g + 1] becomes g's next free place */
    for (size_t i = 0; i < l->n; i++)
        if (l->e[i].op == VT_CATLOG_ALLOC && l->e[i].group < ng) ga->off[ga_cls(ga, l->e[i].group) + 2]++;
    for (size_t g = 2; g < ng + 2; g++) ga->off[g] += ga->off[g - 1];
    for (size_t i = 0; i < l->n; i++)
        if (l->e[i].op == VT_CATLOG_ALLOC && l->e[i].group < ng) ga->ix[ga->off[ga_cls(ga, l->e[i].group) + 1]++] = (uint32_t)i;
    return 0;
}

static void gallocs_free(gallocs *ga)
{
    free(ga->off);
    free(ga->ix);
}

/* When the next forward starts: just before the first allocation after `t` by the
 * group (its class) that opened this forward (UINT64_MAX - 1 when it does not come back). */
static uint64_t next_forward(const vt_catlog *l, const gallocs *ga, uint32_t group, uint64_t t)
{
    if (group == UINT32_MAX || group >= ga->ng) return UINT64_MAX - 1;
    group = ga_cls(ga, group);
    size_t from = after(l, t);
    size_t lo = ga->off[group], hi = ga->off[group + 1];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ga->ix[mid] < from) lo = mid + 1;
        else hi = mid;
    }
    return lo < ga->off[group + 1] ? l->e[ga->ix[lo]].time - 1 : UINT64_MAX - 1;
}

/* The iteration before it[0], when its forward shows only as a pattern: the groups
 * it[0] allocates up to its peak, found earlier in the same order (as a subsequence:
 * the first iteration also makes gradients and optimizer state on the way). */
static int find_earlier(const vt_catlog *l, const vt_cat_iter *first, vt_cat_iter *out, const gset *cs)
{
#define CL(g) gcls(cs, (g))
    enum { PAT = 8 };
    uint32_t pat[PAT];
    size_t np = 0, i0 = SIZE_MAX, i1 = 0;
    for (size_t i = after(l, first->fwd - 1); i < l->n && l->e[i].time <= first->peak; i++) {
        const vt_catlog_ent *e = &l->e[i];
        if (e->op != VT_CATLOG_ALLOC) continue;
        if (i0 == SIZE_MAX) i0 = i;
        if (np < PAT) pat[np++] = CL(e->group);
        i1 = i;
    }
    if (np < 2) return 0;
    /* Latest earlier place where the same groups open a forward in the same order. */
    for (size_t s = i0; s-- > 0;) {
        const vt_catlog_ent *e = &l->e[s];
        if (e->op != VT_CATLOG_ALLOC || CL(e->group) != pat[0]) continue;
        size_t m = 1;
        for (size_t j = s + 1; j < i0 && m < np; j++) {
            if (l->e[j].op != VT_CATLOG_ALLOC) continue;
            if (CL(l->e[j].group) != pat[m]) break;
            m++;
        }
        if (m < np) continue;
        /* Follow the later forward through the earlier one, skipping what only the
         * earlier one makes; where it ends is the earlier peak. */
        uint64_t peak = e->time;
        size_t q = s, want = i0;
        while (want <= i1 && q < i0) {
            if (l->e[want].op != VT_CATLOG_ALLOC) { want++; continue; }
            if (l->e[q].op == VT_CATLOG_ALLOC && CL(l->e[q].group) == CL(l->e[want].group)) {
                peak = l->e[q].time;
                want++;
            }
            q++;
        }
        out->fwd = e->time;
        out->peak = peak;
        out->fwd_end = peak;
        out->bwd_end = peak;
        out->from_pattern = 1;
        return 1;
    }
    return 0;
#undef CL
}

/* Jaccard index of the sets of groups that allocate in two forwards, in 1/1000. */
static unsigned jaccard(const vt_catlog *l, const vt_cat_iter *a, const vt_cat_iter *b, gset *s)
{
    uint32_t in_a = ++s->stamp, in_b = ++s->stamp;
    size_t na = 0, nb = 0, both = 0;
    for (size_t i = after(l, a->fwd - 1); i < l->n && l->e[i].time <= a->peak; i++) {
        const vt_catlog_ent *e = &l->e[i];
        if (e->op != VT_CATLOG_ALLOC || e->group >= s->n || s->mark[gcls(s, e->group)] == in_a) continue;
        s->mark[gcls(s, e->group)] = in_a;
        na++;
    }
    for (size_t i = after(l, b->fwd - 1); i < l->n && l->e[i].time <= b->peak; i++) {
        const vt_catlog_ent *e = &l->e[i];
        if (e->op != VT_CATLOG_ALLOC || e->group >= s->n || s->mark[gcls(s, e->group)] == in_b) continue;
        if (s->mark[gcls(s, e->group)] == in_a) both++;
        s->mark[gcls(s, e->group)] = in_b;
        nb++;
    }
    size_t uni = na + nb - both;
    return uni ? (unsigned)(1000 * both / uni) : 0;
}

/* Forward start and backward end of each swing. Frees up to the lowest point before the
 * next rise count first; then up to where the next forward starts, for the frees a
 * backward makes after the gradients it adds have lifted the total off that lowest
 * point. The last one has no next forward: only the groups of the one before count
 * (what else is freed then is teardown). */
static void swing_bounds(const vt_catlog *l, const gallocs *ga, const swing *sw, size_t k, vt_cat_iter *it,
                         gset *s)
{
    uint64_t lo = 0;
    uint32_t prev = 0;
    for (size_t i = 0; i < k; i++) {
        it[i].peak = l->e[sw[i].imax].time;
        it[i].from_pattern = 0;
        uint32_t cur = ++s->stamp;
        if (i + 1 < k) {
            uint64_t low = l->e[sw[i].imin].time;
            uint32_t g = bounds(l, &it[i], lo, low);
            uint64_t nf = next_forward(l, ga, g, low);
            if (nf > l->e[sw[i + 1].imax].time) nf = l->e[sw[i + 1].imax].time;
            bounds_of(l, &it[i], lo, nf > low ? nf : low, NULL, 0, s, cur);
        } else {
            bounds_of(l, &it[i], lo, UINT64_MAX - 1, s, prev, NULL, 0);
        }
        prev = cur;
        lo = it[i].bwd_end;
    }
}

/* Iterations at hysteresis h: the swings, less those whose forward looks like neither
 * neighbour's (an optimizer step's scratch can make a swing of its own), with their
 * forwards and backwards. */
static vt_cat_iter *at_hysteresis(const vt_catlog *l, const gallocs *ga, const int64_t *c, int64_t h, size_t k,
                                  gset *s, size_t *out_n)
{
    swing *sw = calloc(k, sizeof *sw);
    vt_cat_iter *it = calloc(k + 1, sizeof *it);   /* + 1: room for one found by pattern */
    unsigned *sim = calloc(k + 1, sizeof *sim);
    if (!sw || !it || !sim) {
        free(sw);
        free(it);
        free(sim);
        return NULL;
    }
    swings(c, l->n, h, sw, k);
    /* A window cut short may cut the last iteration: leave it out. */
    if (l->full && k > 1) k--;
    for (int pass = 0; pass < 2 && k > 2; pass++) {
        swing_bounds(l, ga, sw, k, it, s);
        for (size_t i = 0; i + 1 < k; i++) sim[i] = jaccard(l, &it[i], &it[i + 1], s);
        size_t w = 0;
        for (size_t i = 0; i < k; i++) {
            /* inner ones first; an end one once the inner ones are settled */
            int left = i > 0 && sim[i - 1] >= 500, right = i + 1 < k && sim[i] >= 500;
            int odd = pass == 0 ? (i > 0 && i + 1 < k && !left && !right) : (!left && !right);
            if (odd) {
                /* the lowest point after it now follows the previous swing */
                if (w && c[sw[i].imin] < c[sw[w - 1].imin]) sw[w - 1].imin = sw[i].imin;
                continue;
            }
            sw[w++] = sw[i];
        }
        k = w;
    }
    swing_bounds(l, ga, sw, k, it, s);
    free(sw);
    free(sim);
    *out_n = k;
    return it;
}

/* Iterations repeat: most consecutive forwards allocate from mostly the same groups
 * (Jaccard index of the group sets >= 1/2). What is not training (a load buffer freed
 * after start-up, then one hill of work) fails this. */
static int repeats(const vt_catlog *l, const vt_cat_iter *it, size_t ni, gset *s)
{
    if (ni < 2) return 0;
    size_t good = 0;
    for (size_t k = 0; k + 1 < ni; k++)
        if (jaccard(l, &it[k], &it[k + 1], s) >= 500) good++;
    return good * 2 >= ni - 1;
}

/* cls: classes of groups alike across steps (py_classes), or NULL. At each hysteresis
 * the groups are tried first, then the classes; *used says which map found the
 * iterations (NULL: the groups). */
static int find_iterations(const vt_catlog *l, size_t ngroups, const uint8_t *skip, const uint32_t *cls,
                           vt_cat_trace *ct, const uint32_t **used)
{
    size_t n = l->n;
    *used = NULL;
    if (n < 4) return 0;
    int64_t *c = malloc(n * sizeof *c);
    gset s;
    gallocs ga[2] = { { 0 }, { 0 } };
    int nway = cls ? 2 : 1;
    if (!c || gset_init(&s, ngroups)) {
        free(c);
        return -1;
    }
    if (gallocs_init(&ga[0], l, ngroups, NULL) || (cls && gallocs_init(&ga[1], l, ngroups, cls))) {
        gallocs_free(&ga[0]);
        free(c);
        free(s.mark);
        return -1;
    }
    /* Sizes come from the trace: a forged one may be near 2^64. The running total is
     * held within +-2^61 so that it, and the differences swings() takes, never
     * overflow; no real total comes near (2 EiB). */
    const int64_t lim = INT64_C(1) << 61;
    int64_t v = 0, peak = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t usz = skip && l->e[i].group < ngroups && skip[l->e[i].group] ? 0 : vt_catlog_size(l, &l->e[i]);
        int64_t sz = usz > (uint64_t)lim ? lim : (int64_t)usz;
        v += l->e[i].op == VT_CATLOG_ALLOC ? sz : -sz;
        if (v > lim) v = lim;
        if (v < -lim) v = -lim;
        c[i] = v;
        if (v > peak) peak = v;
    }
    int64_t *tp = malloc((n + 1) * sizeof *tp);
    size_t ntp = tp ? turning_points(c, n, tp) : 0;
    /* The coarsest swings that repeat: h = peak/2, peak/4, ... */
    enum { NJ = 40 };
    vt_cat_iter *it = NULL;
    size_t ni = 0;
    int64_t h = 0;
    int dbg = getenv("VRAMTRACE_CAT_DEBUG") != NULL, rc = 0;
    for (int j = 1; j < NJ && (peak >> j) >= 4096 && !it; j++) {
        size_t k = tp ? swings(tp, ntp, peak >> j, NULL, 0) : swings(c, n, peak >> j, NULL, 0);
        if (dbg) fprintf(stderr, "vramtrace: cat: hysteresis peak/2^%d: %zu swings\n", j, k);
        if (k < 2) continue;
        /* Past one swing per allocation there is no structure left to find. */
        if (k * 4 > n) break;
        for (int w = 0; w < nway && !it; w++) {
            s.cls = w ? cls : NULL;
            size_t m;
            vt_cat_iter *x = at_hysteresis(l, &ga[w], c, peak >> j, k, &s, &m);
            if (!x) {
                rc = -1;
                break;
            }
            if (repeats(l, x, m, &s)) {
                it = x;
                ni = m;
                h = peak >> j;
                *used = s.cls;
                if (dbg && w) fprintf(stderr, "vramtrace: cat: steps alike by their innermost Python frames\n");
            } else {
                free(x);
            }
        }
        if (rc) break;
    }
    free(c);
    free(tp);
    gallocs_free(&ga[0]);
    if (cls) gallocs_free(&ga[1]);
    if (rc || !it) {
        free(s.mark);
        free(it);
        return rc;
    }
    /* An iteration before the first tooth, known by its pattern only. */
    vt_cat_iter early;
    s.cls = *used;
    if (ni && find_earlier(l, &it[0], &early, &s) && early.peak < it[0].fwd) {
        bounds(l, &early, 0, it[0].fwd - 1);
        if (early.bwd_end < it[0].fwd && early.fwd <= early.peak) {
            memmove(it + 1, it, ni * sizeof *it);
            it[0] = early;
            ni++;
            /* the next one's forward now starts after this backward */
            uint64_t until = ni > 2 ? it[2].fwd - 1 : UINT64_MAX - 1;
            bounds(l, &it[1], it[0].bwd_end, until);
        }
    }
    free(s.mark);
    if (ni < 2) {
        free(it);
        return 0;
    }
    ct->iters = it;
    ct->niters = ni;
    ct->hysteresis = (uint64_t)h;
    return 0;
}

/* Classes of groups alike across steps: the device groups whose stacks share their
 * innermost Python frame (file, function, line), kind and device. Under
 * torch.compile(mode="reduce-overhead") each step runs the same generated code under
 * other frames (compiling, warming up in CUDAWarmupNode, recording in
 * CUDAGraphNode._record), so no stack repeats from one forward to the next while the
 * generated line that allocates does. *out: group -> the first group of its class, or
 * NULL when no two groups share one (nothing to gain over the groups). Returns -1 when
 * out of memory. */
static int py_classes(const vt_replay_result *res, uint32_t **out)
{
    *out = NULL;
    size_t ng = res->ngroups;
    uint32_t *cls = malloc((ng ? ng : 1) * sizeof *cls);
    vt_idmap first = { 0 };
    if (!cls) return -1;
    int merged = 0;
    enum { MAXD = 4096 };   /* a corrupt trace may hold a cycle */
    for (size_t gi = 0; gi < ng; gi++) {
        const vt_group *g = &res->groups[gi];
        cls[gi] = (uint32_t)gi;
        if (g->cls != VT_CLASS_DEVICE || !g->nallocs) continue;
        const vt_pyframe *pf = NULL;
        uint32_t id = g->stack_id;
        for (int d = 0; id && d < MAXD && !pf; d++) {
            const uint32_t *ix = vt_idarr_get(res->node_ix, id);
            if (!ix) break;
            const vt_stack_node *nd = &res->nodes[*ix];
            if (nd->kind == VT_FRAME_PYTHON) {
                const uint32_t *px = vt_idarr_get(res->pyframe_ix, nd->value);
                if (px) pf = &res->pyframes[*px];
            }
            id = nd->parent;
        }
        if (!pf) continue;
        uint64_t key = vt_hash64(((uint64_t)pf->file << 32 | pf->function) ^
                                 vt_hash64((uint64_t)pf->line << 16 | (uint64_t)g->kind << 8 | (uint8_t)g->device));
        uint32_t *f = vt_idmap_get(&first, key);
        if (f) {
            cls[gi] = *f;
            merged = 1;
        } else if (vt_idmap_put(&first, key, (uint32_t)gi)) {
            vt_idmap_free(&first);
            free(cls);
            return -1;
        }
    }
    vt_idmap_free(&first);
    if (!merged) {
        free(cls);
        return 0;
    }
    *out = cls;
    return 0;
}

/* The iteration whose forward began last at or before t (ni when none). */
static size_t iter_at(const vt_cat_iter *it, size_t ni, uint64_t t)
{
    size_t lo = 0, hi = ni;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (it[mid].fwd <= t) lo = mid + 1;
        else hi = mid;
    }
    return lo ? lo - 1 : ni;
}

/* ------------------------------------------------------------------------ *
 *  Groups
 * ------------------------------------------------------------------------ */
/* Each allocation of the window votes, with its bytes, for its label in its group:
 * the frees the window saw, and what is still live at the end. */
static void vote(const vt_replay *rp, vt_cat_trace *ct, uint64_t (*votes)[VT_CAT_N])
{
    const vt_replay_result *res = vt_replay_result_of(rp);
    const vt_catlog *l = res->catlog;
    size_t ng = res->ngroups;
    for (size_t i = 0; i < l->n; i++) {
        const vt_catlog_ent *e = &l->e[i];
        if (e->op != VT_CATLOG_FREE || e->group >= ng) continue;
        uint64_t sz = vt_catlog_size(l, e);
        votes[e->group][label(ct->iters, ct->niters, vt_catlog_alloc_time(l, e), e->time)] += sz ? sz : 1;
        ct->evidence[e->group] = 1;
    }
    for (size_t i = 0; i < l->nlive_end; i++) {
        const vt_catlog_live *e = &l->live_end[i];
        if (e->group >= ng) continue;
        votes[e->group][label(ct->iters, ct->niters, e->time, FREE_NEVER)] += e->size ? e->size : 1;
        ct->evidence[e->group] = 1;
    }
}

static int is_top(const uint64_t v[VT_CAT_N], int c)
{
    for (int k = 0; k < VT_CAT_N; k++)
        if (v[k] > v[c]) return 0;
    return v[c] != 0;
}

int vt_cat_infer(const vt_replay *rp, vt_cat_trace *ct)
{
    const vt_replay_result *res = vt_replay_result_of(rp);
    memset(ct, 0, sizeof *ct);
    size_t ng = res->ngroups;
    ct->inferred = calloc(ng ? ng : 1, 1);
    ct->evidence = calloc(ng ? ng : 1, 1);
    uint64_t (*votes)[VT_CAT_N] = calloc(ng ? ng : 1, sizeof *votes);
    if (!ct->inferred || !ct->evidence || !votes) {
        free(votes);
        return -1;
    }
    const vt_catlog *l = res->catlog;
    const uint32_t *used = NULL;
    uint32_t *cls = NULL;   /* the classes that found the iterations, if they did */
    if (l) {
        ct->window_events = l->n;
        ct->window_full = l->full;
        ct->window_end = l->full ? l->full_time : UINT64_MAX;
        /* With PyTorch's blocks, the segments they lie in are in the log too: the total
         * would count their bytes twice, and the segments' growth, not the tensors', would
         * set the scale of the swings. The blocks alone make the saw. */
        uint8_t *skip = NULL;
        for (size_t gi = 0; gi < ng && !skip; gi++)
            if (res->groups[gi].kind == VT_KIND_TORCH_BLOCK) skip = calloc(ng, 1);
        for (size_t gi = 0; skip && gi < ng; gi++)
            skip[gi] = res->groups[gi].kind != VT_KIND_TORCH_BLOCK;
        uint32_t *pycls = NULL;
        int rc = py_classes(res, &pycls);
        if (!rc) rc = find_iterations(l, ng, skip, pycls, ct, &used);
        free(skip);
        if (used) cls = pycls;
        else free(pycls);
        if (rc) {
            free(cls);
            free(votes);
            return -1;
        }
    }
    vt_cat_iter *it = ct->iters;
    size_t ni = ct->niters;
    if (ni) {
        /* Two rounds. The first splits forward from backward at the peak; but the peak
         * may come a little into the backward (its first scratch buffers), so the second
         * splits at the last allocation of a group the first round called activations. */
        vote(rp, ct, votes);
        for (size_t k = 0; k < ni; k++) it[k].fwd_end = it[k].fwd;
        for (size_t i = 0; i < l->n; i++) {
            const vt_catlog_ent *e = &l->e[i];
            if (e->op != VT_CATLOG_FREE || e->group >= ng) continue;
            if (!is_top(votes[e->group], VT_CAT_ACTIVATIONS)) continue;
            uint64_t at = vt_catlog_alloc_time(l, e);
            size_t k = iter_at(it, ni, at);
            if (k == ni) continue;
            vt_cat_iter *x = &it[k];
            if (at > x->peak || e->time <= x->peak || e->time > x->bwd_end) continue;
            if (at > x->fwd_end) x->fwd_end = at;
        }
        /* The backward's end again, from the forward's end: what the backward made
         * before the peak (the first gradients, PyTorch's included) is no activation. */
        gset s;
        int have = gset_init(&s, ng) == 0;
        s.cls = cls;
        uint32_t prev = 0;
        for (size_t k = 0; k < ni; k++) {
            if (it[k].fwd_end == it[k].fwd) it[k].fwd_end = it[k].peak;
            if (!have) continue;
            vt_cat_iter x = it[k];
            x.peak = x.fwd_end;
            uint64_t lo = k ? it[k - 1].bwd_end : 0;
            uint32_t cur = ++s.stamp;
            if (k + 1 < ni) bounds_of(l, &x, lo, it[k + 1].fwd - 1, NULL, 0, &s, cur);
            else bounds_of(l, &x, lo, UINT64_MAX - 1, &s, prev, NULL, 0);
            prev = cur;
            if (x.bwd_end > x.fwd_end) it[k].bwd_end = x.bwd_end;
        }
        if (have) free(s.mark);
        memset(votes, 0, (ng ? ng : 1) * sizeof *votes);
        vote(rp, ct, votes);
    }
    /* The median iteration length scales "soon" for groups the window missed. */
    uint64_t period = 0;
    if (ni >= 2) {
        uint64_t *d = malloc((ni - 1) * sizeof *d);
        if (d) {
            for (size_t k = 0; k + 1 < ni; k++) d[k] = it[k + 1].fwd - it[k].fwd;
            qsort(d, ni - 1, sizeof *d, cmp_u64);
            period = d[(ni - 1) / 2];
            free(d);
        }
    }
    uint64_t span = res->last_time ? res->last_time : 1;
    const char *dbgs = getenv("VRAMTRACE_CAT_DEBUG");
    int dbg = dbgs ? atoi(dbgs) : 0;
    for (size_t gi = 0; gi < ng; gi++) {
        const vt_group *g = &res->groups[gi];
        vt_cat best = VT_CAT_OTHER;
        if (ct->evidence[gi]) {
            uint64_t bv = 0;
            for (int c = 0; c < VT_CAT_N; c++)
                if (votes[gi][c] > bv) { bv = votes[gi][c]; best = (vt_cat)c; }
        } else if (g->nallocs) {
            /* Outside the window (or no iterations): lifetimes alone. */
            const vt_life *L = &g->life;
            uint64_t soon = period ? period / 8 : span / 100;
            if (L->nfrees && L->nfrees >= g->nallocs && L->life_sum / L->nfrees <= soon)
                best = VT_CAT_TEMPORARY;
            else if (ni && !L->nfrees && L->first_alloc < it[0].fwd)
                best = VT_CAT_WEIGHTS;
        }
        ct->inferred[gi] = (uint8_t)best;
        if (dbg > 1 && ct->evidence[gi]) {
            fprintf(stderr, "vramtrace: cat: group %zu votes:", gi);
            for (int c = 0; c < VT_CAT_N; c++)
                if (votes[gi][c]) fprintf(stderr, " %s=%llu", vt_cat_name((vt_cat)c), (unsigned long long)votes[gi][c]);
            fprintf(stderr, " first_alloc=%llu\n", (unsigned long long)g->life.first_alloc);
        }
    }
    free(cls);
    free(votes);
    return 0;
}
