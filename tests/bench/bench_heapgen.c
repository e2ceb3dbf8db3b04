// SPDX-License-Identifier: MIT
/* bench_heapgen.c - a malloc workload shaped like gen_trace's synthetic GPU trace, to be
 * run under heaptrack so that heaptrack_print gets a trace of about the same size as the
 * one the vramtrace analyzer reads (bench_analyzer.sh).
 *
 *   bench_heapgen [-n PAIRS] [-k STACKS] [-l LIVE] [-s SEED] [-b BATCH]
 *
 * PAIRS malloc+free pairs from STACKS distinct call stacks, with about LIVE blocks live
 * at once (a ring: each malloc frees the block it replaces). A stack is a fixed 20-frame
 * recursion, then 7 levels that each call one of 4 distinct noinline functions (chosen
 * by the seed), so 4^7 = 16384 paths are available; STACKS of them are used, each
 * visit doing BATCH mallocs at its leaf. About 30 frames in all, like gen_trace's 20-40. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LEVELS 7
#define BASE_DEPTH 20

typedef struct {
    void **ring;
    uint64_t ring_n, pos;
    uint64_t done, pairs;
    unsigned batch;
    uint64_t rng;
} state;

static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static __attribute__((noinline)) void leaf(state *st, uint32_t path)
{
    for (unsigned i = 0; i < st->batch && st->done < st->pairs; i++) {
        /* One size per call site. heaptrack_interpret 1.4 keeps a hash set of distinct
         * (size, stack) pairs whose hash clusters badly: with ~80k pairs (8 sizes per
         * stack, or random sizes) it grows until std::bad_alloc (19 GB here). */
        size_t sz = 16 * (1 + path % 64);
        void **slot = &st->ring[st->pos];
        free(*slot);
        *slot = malloc(sz);
        if (*slot) memset(*slot, 0, 8);
        st->pos = st->pos + 1 == st->ring_n ? 0 : st->pos + 1;
        st->done++;
    }
}

/* Each level dispatches on one base-4 digit of the path to one of four functions; the
 * functions differ only in their return address, which is what makes the stacks distinct. */
static void level(state *st, uint32_t path, int lv);

#define LEVEL_FN(N)                                                         \
    static __attribute__((noinline)) void level_##N(state *st, uint32_t path, int lv) \
    {                                                                       \
        level(st, path, lv + 1);                                            \
        __asm__ volatile("" ::: "memory");                                  \
    }
LEVEL_FN(0)
LEVEL_FN(1)
LEVEL_FN(2)
LEVEL_FN(3)

static void (*const volatile fns[4])(state *, uint32_t, int) = { level_0, level_1, level_2, level_3 };

static __attribute__((noinline)) void level(state *st, uint32_t path, int lv)
{
    if (lv == LEVELS) { leaf(st, path); return; }
    fns[(path >> (2 * lv)) & 3](st, path, lv);
    __asm__ volatile("" ::: "memory");
}

static int (*volatile base_p)(state *, uint32_t *, uint32_t, int);

static __attribute__((noinline)) int base(state *st, uint32_t *paths, uint32_t npaths, int left)
{
    if (left > 0) {
        int r = base_p(st, paths, npaths, left - 1);
        __asm__ volatile("" ::: "memory");
        return r + 1;
    }
    /* Every stack is used at least once, then the skewed draw takes over. */
    for (uint32_t i = 0; i < npaths && st->done < st->pairs; i++) level(st, paths[i], 0);
    while (st->done < st->pairs) {
        /* Skewed like gen_trace: a few call sites allocate most. */
        double u = (double)(rng_next(&st->rng) >> 11) * (1.0 / 9007199254740992.0);
        level(st, paths[(uint32_t)(u * u * npaths) % npaths], 0);
    }
    return 0;
}

int main(int argc, char **argv)
{
    uint64_t pairs = 25000000, live = 100000, seed = 1;
    uint32_t stacks = 10000;
    unsigned batch = 8;
    int c;
    while ((c = getopt(argc, argv, "n:k:l:s:b:h")) != -1) {
        switch (c) {
        case 'n': pairs = strtoull(optarg, NULL, 0); break;
        case 'k': stacks = (uint32_t)strtoul(optarg, NULL, 0); break;
        case 'l': live = strtoull(optarg, NULL, 0); break;
        case 's': seed = strtoull(optarg, NULL, 0); break;
        case 'b': batch = (unsigned)atoi(optarg); break;
        default:
            fprintf(stderr, "usage: bench_heapgen [-n PAIRS] [-k STACKS] [-l LIVE] [-s SEED] [-b BATCH]\n");
            return 2;
        }
    }
    if (!stacks || stacks > (1u << (2 * LEVELS)) || !live || !batch) { fprintf(stderr, "bench_heapgen: bad option\n"); return 2; }
    state st = { calloc(live, sizeof(void *)), live, 0, 0, pairs, batch, seed };
    /* The first `stacks` paths of a seeded shuffle of all 4^7. */
    uint32_t all = 1u << (2 * LEVELS);
    uint32_t *paths = malloc(all * sizeof *paths);
    if (!st.ring || !paths) return 1;
    for (uint32_t i = 0; i < all; i++) paths[i] = i;
    uint64_t s = seed ^ 0xabcdef;
    for (uint32_t i = all - 1; i > 0; i--) {
        uint32_t j = (uint32_t)(rng_next(&s) % (i + 1));
        uint32_t t = paths[i]; paths[i] = paths[j]; paths[j] = t;
    }
    base_p = base;
    base_p(&st, paths, stacks, BASE_DEPTH);
    for (uint64_t i = 0; i < live; i++) free(st.ring[i]);
    free(st.ring);
    free(paths);
    printf("pairs=%llu stacks=%u live=%llu\n", (unsigned long long)st.done, stacks, (unsigned long long)live);
    return 0;
}
