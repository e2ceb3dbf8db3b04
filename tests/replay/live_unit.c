// SPDX-License-Identifier: MIT
/* live_unit.c - the live set (analyzer/model/vt_live.h) against a plain array of what must be
 * in it.
 *
 * Random inserts (through upsert and insert), overwrites and deletes over a few
 * thousand keys in two spaces, so that the table grows, probe runs wrap around its end
 * and backward-shift deletion moves entries; sizes and groups on both sides of what a
 * packed entry holds, and kept entries, so that ext records are made, given back and
 * reused. After every step the key's entry must hold what the reference says; every
 * few thousand steps all keys are checked. Exits 1 on the first difference. */
#include "vt_live.h"
#include "vt_cat_life.h"

#include <stdio.h>
#include <stdlib.h>

enum { NKEYS = 6000, STEPS = 400000 };

typedef struct {
    int live;
    uint64_t size, aux;
    uint32_t group, logix;
    int ext;  /* must have an ext record: kept, or too large to pack */
} ref_ent;

static unsigned long long rnd_state = 11;
static uint64_t rnd(uint64_t n)
{
    rnd_state = rnd_state * 6364136223846793005ull + 1442695040888963407ull;
    return (rnd_state >> 17) % n;
}

static unsigned space_of(unsigned k) { return k % 5 == 0 ? 3 : 1; }  /* host pinned, device */
/* Keys that collide in the hash's low bits: aligned and clustered, like allocations. */
static uint64_t addr_of(unsigned k) { return 0x7f0000000000ull + (uint64_t)(k / 5) * 0x200000 + (k % 5) * 512; }

static int check(vt_liveset *s, const ref_ent *ref, unsigned k)
{
    vt_live *e = vt_live_find(s, space_of(k), addr_of(k));
    const ref_ent *r = &ref[k];
    if (!r->live) {
        if (e) { printf("FAIL: key %u found after its delete\n", k); return 1; }
        return 0;
    }
    if (!e) { printf("FAIL: key %u lost\n", k); return 1; }
    if (vt_live_space(e) != space_of(k) || e->addr != addr_of(k) || vt_live_size(s, e) != r->size ||
        vt_live_group(s, e) != r->group) {
        printf("FAIL: key %u holds size %llu group %u, not %llu %u\n", k, (unsigned long long)vt_live_size(s, e),
               vt_live_group(s, e), (unsigned long long)r->size, r->group);
        return 1;
    }
    if (r->ext && !vt_live_is_ext(e)) { printf("FAIL: key %u should have an ext record\n", k); return 1; }
    if (vt_live_is_ext(e) && (vt_live_ext_of(s, e)->aux != r->aux || vt_live_ext_of(s, e)->logix != r->logix)) {
        printf("FAIL: key %u: its ext record holds another aux or logix\n", k);
        return 1;
    }
    return 0;
}

int main(void)
{
    static ref_ent ref[NKEYS];
    vt_liveset s = { 0 };
    size_t nlive = 0, max_ext = 0, grew = 0;
    for (unsigned step = 0; step < STEPS; step++) {
        unsigned k = (unsigned)rnd(NKEYS);
        ref_ent *r = &ref[k];
        /* more inserts early (the table grows), more deletes late (it empties) */
        int ins = !r->live ? rnd(100) < (step < STEPS / 2 ? 90 : 40) : rnd(100) < 10;
        if (ins) {
            uint64_t size = rnd(8) == 0 ? VT_LIVE_SIZE_MAX - 2 + rnd(4) : 1 + rnd(1u << 30);
            uint32_t group = rnd(8) == 0 ? VT_LIVE_GROUP_MAX - 2 + (uint32_t)rnd(4) : (uint32_t)rnd(50000);
            int keep = rnd(6) == 0;
            size_t cap = s.mask + 1;
            int fresh = 0;
            vt_live *e = rnd(2) || r->live ? vt_live_upsert(&s, space_of(k), addr_of(k), &fresh)
                                           : (fresh = 1, vt_live_insert(&s, space_of(k), addr_of(k)));
            if (!e) { printf("FAIL: out of memory\n"); return 1; }
            if (fresh == r->live) { printf("FAIL: key %u: upsert says fresh=%d\n", k, fresh); return 1; }
            grew += s.mask + 1 != cap;
            uint64_t aux = rnd(1ull << 40);
            uint32_t logix = keep ? (uint32_t)rnd(VT_CATLOG_NONE) : VT_CATLOG_NONE;
            if (vt_live_set(&s, e, space_of(k), addr_of(k), size, group, aux, logix, keep)) {
                printf("FAIL: vt_live_set\n");
                return 1;
            }
            nlive += !r->live;
            *r = (ref_ent){ 1, size, aux, group, logix, keep || size >= VT_LIVE_SIZE_MAX || group >= VT_LIVE_GROUP_MAX };
        } else if (r->live) {
            vt_live *e = vt_live_find(&s, space_of(k), addr_of(k));
            if (!e) { printf("FAIL: key %u lost before its delete\n", k); return 1; }
            vt_live_delete(&s, e);
            r->live = 0;
            nlive--;
        }
        if (check(&s, ref, k)) return 1;
        if (s.n != nlive) { printf("FAIL: %zu entries counted, %zu live\n", s.n, nlive); return 1; }
        if (s.next > max_ext) max_ext = s.next;
        if (step % 4096 == 0)
            for (unsigned j = 0; j < NKEYS; j++)
                if (check(&s, ref, j)) return 1;
    }
    for (unsigned j = 0; j < NKEYS; j++)
        if (check(&s, ref, j)) return 1;
    /* ext records are reused: far fewer made than ever asked for */
    if (!grew || max_ext == 0 || max_ext > NKEYS) {
        printf("FAIL: the run did not cover its cases (grew %zu times, %zu ext records)\n", grew, max_ext);
        return 1;
    }
    printf("%d steps over %d keys: table of %zu slots, grew %zu times, %zu ext records made, %zu live at the end\n",
           STEPS, NKEYS, s.mask + 1, grew, max_ext, nlive);
    vt_live_free(&s);
    return 0;
}
