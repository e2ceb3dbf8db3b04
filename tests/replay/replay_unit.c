// SPDX-License-Identifier: MIT
/* replay_unit.c - the replay's inline paths against its general one.
 *
 * vt_replay_events applies the common allocation and free inline and hands every other
 * event to on_alloc/on_free; vt_replay_rec always takes the general path. Both must end
 * in the same state. Random events over a few stacks that each allocate many (kind,
 * device) pairs (more than stack_group's ways), pinned host and managed memory, lost
 * frees (an allocation over a live address), frees of nothing live, sizes too large for a
 * packed live entry, new peaks late in the run, and more events than the category log
 * holds (so that the inline paths take the allocations after its window, and the frees
 * of those inside it after it is full) are replayed both ways; groups, trackers, statistics, the category log and
 * what is live at the end are compared field by field. Prints one line per difference
 * and exits 1 when there is any. */
#include "vt_replay_int.h" /* the model's own test: it compares two replays' state */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define SAME(a, b, ...)                                       \
    do {                                                      \
        if ((a) != (b)) {                                     \
            failures++;                                       \
            if (failures < 20) {                              \
                printf("FAIL: ");                             \
                printf(__VA_ARGS__);                          \
                printf(": %llu vs %llu\n", (unsigned long long)(a), (unsigned long long)(b)); \
            }                                                 \
        }                                                     \
    } while (0)

static unsigned long long rnd_state = 7;
static unsigned rnd(unsigned n)
{
    rnd_state = rnd_state * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)(rnd_state >> 33) % n;
}

enum { NSTACKS = 12, NEVENTS = 3 * VT_CATLOG_MAX, NADDR = 5000 };

static vt_replay *fresh(vt_tracker *global)
{
    vt_replay *rp = vt_replay_new(0, 0);
    memset(global, 0, sizeof *global);
    global->trace = -1;
    rp->global = global;
    rp->catlog = calloc(1, sizeof *rp->catlog);
    /* a stack tree: node 1 the root, leaves 2 .. NSTACKS + 1 under it */
    for (uint32_t id = 1; id <= NSTACKS + 1; id++) {
        vt_rec r = { .type = VT_REC_STACK, .id = id, .parent = id == 1 ? 0 : 1, .kind = VT_FRAME_NATIVE,
                     .addr = 0x1000 + id };
        vt_replay_rec(rp, &r);
    }
    return rp;
}

static void compare_trackers(const vt_tracker *a, const vt_tracker *b, const char *what)
{
    SAME(a->live, b->live, "%s live", what);
    SAME(a->count, b->count, "%s count", what);
    SAME(a->peak, b->peak, "%s peak", what);
    SAME(a->peak_count, b->peak_count, "%s peak_count", what);
    SAME(a->peak_time, b->peak_time, "%s peak_time", what);
    SAME(a->epoch, b->epoch, "%s epoch", what);
}

int main(void)
{
    static const uint8_t alloc_kinds[] = { VT_KIND_MEM_ALLOC, VT_KIND_MEM_ALLOC_ASYNC, VT_KIND_MEM_ALLOC_PITCH,
                                           VT_KIND_MEM_ALLOC_POOL, VT_KIND_MEM_ALLOC_MANAGED, VT_KIND_HOST_ALLOC };
    vt_ev *ev = calloc(NEVENTS, sizeof *ev);
    uint8_t live_kind[NADDR] = { 0 };   /* 0: free; else the kind of the allocation there */
    if (!ev) return 2;
    uint64_t t = 1000;
    for (size_t i = 0; i < NEVENTS; i++) {
        unsigned a = rnd(NADDR);
        /* the live count climbs in the second half, so that peaks come late too */
        int alloc = !live_kind[a] || rnd(100) < (i > NEVENTS / 2 ? 3 : 1);
        if (!alloc && rnd(200) == 0) a = NADDR + rnd(100);     /* a free of nothing live */
        vt_ev *e = &ev[i];
        t += 1 + rnd(50);
        e->time_ns = t;
        e->addr = 0x7f0000000000ull + (uint64_t)a * 0x10000;
        if (alloc) {
            uint8_t k = alloc_kinds[rnd(sizeof alloc_kinds)];
            e->type = VT_REC_ALLOC;
            e->kind = k;
            e->device = (int8_t)rnd(3);                        /* 3 devices x 6 kinds per stack */
            e->stack_id = 2 + rnd(NSTACKS);
            e->size = rnd(1000) ? 512 + rnd(1u << 20) : VT_LIVE_SIZE_MAX + rnd(1u << 20);
            if (a < NADDR) live_kind[a] = k;
        } else {
            uint8_t k = a < NADDR ? live_kind[a] : VT_KIND_MEM_ALLOC;
            e->type = VT_REC_FREE;
            e->kind = k == VT_KIND_HOST_ALLOC ? VT_KIND_HOST_FREE
                      : k == VT_KIND_MEM_ALLOC_ASYNC ? VT_KIND_MEM_FREE_ASYNC : VT_KIND_MEM_FREE;
            e->device = -1;
            if (a < NADDR) live_kind[a] = 0;
        }
    }

    vt_tracker ga, gb;
    vt_replay *a = fresh(&ga), *b = fresh(&gb);
    for (size_t i = 0; i < NEVENTS; i += 4096) vt_replay_events(a, ev + i, NEVENTS - i < 4096 ? NEVENTS - i : 4096);
    for (size_t i = 0; i < NEVENTS; i++) {
        const vt_ev *e = &ev[i];
        vt_rec r = { .type = e->type, .kind = e->kind, .device = e->device, .stack_id = e->stack_id,
                     .time_ns = e->time_ns, .addr = e->addr, .size = e->size };
        vt_replay_rec(b, &r);
    }
    /* both kinds of live entry in the end (vt_live.h) */
    size_t packed = 0, ext = 0;
    for (size_t i = 0; a->live.tab && i <= a->live.mask; i++) {
        packed += a->live.tab[i].v && !vt_live_is_ext(&a->live.tab[i]);
        ext += vt_live_is_ext(&a->live.tab[i]);
    }
    SAME(packed > 0 && ext > 0 && a->catlog->full, 1, "packed and ext live entries, a full category log");
    SAME(a->catlog->n, b->catlog->n, "category log entries");
    for (size_t i = 0; i < a->catlog->n && i < b->catlog->n; i++) {
        const vt_catlog_ent *x = &a->catlog->e[i], *y = &b->catlog->e[i];
        if (x->time != y->time || x->group != y->group || x->op != y->op || x->aux != y->aux) {
            SAME(i, (size_t)-1, "category log entry differs");
            break;
        }
    }
    vt_replay_finish(a);
    vt_replay_finish(b);
    vt_replay_drop_live(a);
    vt_replay_drop_live(b);

    SAME(a->st.records, b->st.records, "records");
    SAME(a->st.allocs, b->st.allocs, "allocs");
    SAME(a->st.frees, b->st.frees, "frees");
    SAME(a->st.frees_unmatched, b->st.frees_unmatched, "unmatched frees");
    SAME(a->st.allocs_replaced, b->st.allocs_replaced, "replaced allocations");
    SAME(a->st.by_type[VT_REC_ALLOC], b->st.by_type[VT_REC_ALLOC], "ALLOC records");
    SAME(a->last_time, b->last_time, "last time");
    SAME(a->ngroups, b->ngroups, "groups");
    for (size_t i = 0; i < a->ngroups && i < b->ngroups; i++) {
        const vt_group *x = &a->groups[i], *y = &b->groups[i];
        SAME(x->stack_id, y->stack_id, "group %zu stack", i);
        SAME(x->kind, y->kind, "group %zu kind", i);
        SAME(x->device, y->device, "group %zu device", i);
        SAME(x->live, y->live, "group %zu live", i);
        SAME(x->live_count, y->live_count, "group %zu live_count", i);
        SAME(x->nallocs, y->nallocs, "group %zu nallocs", i);
        SAME(x->total_bytes, y->total_bytes, "group %zu total_bytes", i);
        SAME(x->life.first_alloc, y->life.first_alloc, "group %zu first_alloc", i);
        SAME(x->life.nfrees, y->life.nfrees, "group %zu nfrees", i);
        SAME(x->life.life_sum, y->life.life_sum, "group %zu life_sum", i);
        SAME(x->ntk, y->ntk, "group %zu trackers", i);
        for (unsigned k = 0; k < x->ntk && k < y->ntk; k++) {
            SAME(x->at_peak[k], y->at_peak[k], "group %zu at_peak[%u]", i, k);
            SAME(x->at_peak_count[k], y->at_peak_count[k], "group %zu at_peak_count[%u]", i, k);
        }
    }
    compare_trackers(&ga, &gb, "all devices");
    compare_trackers(&a->host, &b->host, "pinned host");
    char what[32];
    for (int d = 0; d < 3; d++) {
        const vt_device *x = vt_replay_device(a, d), *y = vt_replay_device(b, d);
        SAME(x != NULL, y != NULL, "device %d seen", d);
        if (!x || !y) continue;
        snprintf(what, sizeof what, "device %d", d);
        compare_trackers(&x->dev, &y->dev, what);
        snprintf(what, sizeof what, "device %d managed", d);
        compare_trackers(&x->managed, &y->managed, what);
    }
    SAME(a->catlog->nlive_end, b->catlog->nlive_end, "window allocations live at the end");
    /* the inline paths must have been taken, and the general one too */
    SAME(ga.peak > 0 && a->st.allocs_replaced > 0 && a->st.frees_unmatched > 0, 1, "the run covers its cases");
    SAME(a->ngroups > (size_t)4 * NSTACKS, 1, "more (kind, device) pairs per stack than stack_group's ways");

    printf("%zu events, %zu groups, %llu replaced, %llu unmatched frees: %d differences\n", (size_t)NEVENTS,
           a->ngroups, (unsigned long long)a->st.allocs_replaced, (unsigned long long)a->st.frees_unmatched, failures);
    vt_replay_free(a);
    vt_replay_free(b);
    free(ev);
    return failures ? 1 : 0;
}
