// SPDX-License-Identifier: MIT
/* bench_alloc.c - the cost of one alloc+free pair at a fixed call-stack depth, for
 * comparing the recorder (LD_PRELOAD libvramtrace.so) with heaptrack (bench_alloc.sh).
 *
 *   bench_alloc [-m cuda|malloc] [-d DEPTH] [-t THREADS] [-n PAIRS] [-w WARMUP] [-s SIZE] [-p PATHS]
 *               [-b LEVELS]
 *
 * Each thread recurses DEPTH frames through a noinline function, then times PAIRS
 * iterations of cuMemAlloc_v2 + cuMemFree_v2 (mode cuda, through whatever libcuda.so.1
 * it was linked with: the fake driver in tests/fakecuda) or malloc + free (mode malloc,
 * what heaptrack traces) with clock_gettime. WARMUP untimed pairs come first so that
 * one-time costs (the recorder opening its file, first-seen stack nodes) stay out.
 * Prints one key=value line: ns_per_pair is the mean over threads of each thread's
 * elapsed time divided by PAIRS; cpu_ns_per_pair the same with each thread's own CPU
 * time, which other processes on a busy machine disturb less. With -p PATHS (2..64,
 * mode cuda), the pairs come in turn from PATHS different functions at the same depth,
 * as the operators of a training step do: the case a recorder's per-call-path caches
 * find hardest. With -b LEVELS (1..4, mode cuda), from 8^LEVELS paths in a tree (below). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cuda.h>

typedef struct {
    int cuda;
    int depth;
    int paths;
    uint64_t pairs, warmup;
    size_t size;
    pthread_barrier_t *start;
    CUcontext ctx;
    double ns;      /* out: elapsed ns of the timed loop */
    double cpu_ns;  /* out: this thread's CPU time in it (robust to other load) */
    int err;        /* out: first CUresult that was not CUDA_SUCCESS */
} job;

/* Keeps malloc/free pairs from being optimized away (gcc may delete an unused pair). */
static void *volatile sink;

static double clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static double now_ns(void) { return clock_ns(CLOCK_MONOTONIC); }

static __attribute__((noinline)) int pairs_cuda(uint64_t n, size_t size)
{
    for (uint64_t i = 0; i < n; i++) {
        CUdeviceptr p = 0;
        CUresult rc = cuMemAlloc_v2(&p, size);
        if (rc != CUDA_SUCCESS) return (int)rc;
        rc = cuMemFree_v2(p);
        if (rc != CUDA_SUCCESS) return (int)rc;
    }
    return 0;
}

/* PATHS distinct call sites of one alloc+free pair. */
#define PAIR_FN(i) \
    static __attribute__((noinline)) int pair_##i(size_t size) { \
        CUdeviceptr p = 0; \
        CUresult rc = cuMemAlloc_v2(&p, size + i); \
        if (rc == CUDA_SUCCESS) rc = cuMemFree_v2(p); \
        __asm__ volatile("" ::: "memory"); \
        return (int)rc; }
#define PAIR_FN8(a) PAIR_FN(a##0) PAIR_FN(a##1) PAIR_FN(a##2) PAIR_FN(a##3) PAIR_FN(a##4) PAIR_FN(a##5) PAIR_FN(a##6) PAIR_FN(a##7)
PAIR_FN8(1) PAIR_FN8(2) PAIR_FN8(3) PAIR_FN8(4) PAIR_FN8(5) PAIR_FN8(6) PAIR_FN8(7) PAIR_FN8(8)
#define PAIR_REF8(a) pair_##a##0, pair_##a##1, pair_##a##2, pair_##a##3, pair_##a##4, pair_##a##5, pair_##a##6, pair_##a##7
static int (*const pair_fn[64])(size_t) = {
    PAIR_REF8(1), PAIR_REF8(2), PAIR_REF8(3), PAIR_REF8(4), PAIR_REF8(5), PAIR_REF8(6), PAIR_REF8(7), PAIR_REF8(8),
};
static int g_paths = 1;   /* set once in main, before the threads start */

static __attribute__((noinline)) int pairs_paths(uint64_t n, size_t size)
{
    for (uint64_t i = 0; i < n; i++) {
        int rc = pair_fn[i % (uint64_t)g_paths](size);
        if (rc) return rc;
    }
    return 0;
}

/* -b LEVELS: 8^LEVELS call paths in a tree, LEVELS branch points of 8 call sites each
 * with VT_TREE_PAD frames between them, taken in turn: paths next to each other part
 * at the innermost branch, further ones further out, like the operators of the layers
 * of a model. The outermost branch takes the highest digit of the path's number. */
#define VT_TREE_PAD 4
static int g_levels = 0;   /* set once in main, before the threads start */
static int tree(uint32_t code, int level, int pad, size_t size);
static int (*volatile tree_p)(uint32_t, int, int, size_t) = tree;

static __attribute__((noinline)) int tree(uint32_t code, int level, int pad, size_t size)
{
    int r;
    if (pad > 0) {
        r = tree_p(code, level, pad - 1, size);
    } else if (level == 0) {
        CUdeviceptr p = 0;
        r = (int)cuMemAlloc_v2(&p, size);
        if (!r) r = (int)cuMemFree_v2(p);
    } else {
        /* a call site per digit (the asm keeps the compiler from merging the cases) */
        switch ((code >> (3 * (level - 1))) & 7) {
        case 0: r = tree_p(code, level - 1, VT_TREE_PAD, size); __asm__ volatile("# site 0"); break;
        case 1: r = tree_p(code, level - 1, VT_TREE_PAD, size); __asm__ volatile("# site 1"); break;
        case 2: r = tree_p(code, level - 1, VT_TREE_PAD, size); __asm__ volatile("# site 2"); break;
        case 3: r = tree_p(code, level - 1, VT_TREE_PAD, size); __asm__ volatile("# site 3"); break;
        case 4: r = tree_p(code, level - 1, VT_TREE_PAD, size); __asm__ volatile("# site 4"); break;
        case 5: r = tree_p(code, level - 1, VT_TREE_PAD, size); __asm__ volatile("# site 5"); break;
        case 6: r = tree_p(code, level - 1, VT_TREE_PAD, size); __asm__ volatile("# site 6"); break;
        default: r = tree_p(code, level - 1, VT_TREE_PAD, size); __asm__ volatile("# site 7"); break;
        }
    }
    __asm__ volatile("" ::: "memory");
    return r;
}

static __attribute__((noinline)) int pairs_tree(uint64_t n, size_t size)
{
    uint32_t npaths = 1u << (3 * g_levels);
    for (uint64_t i = 0; i < n; i++) {
        int rc = tree_p((uint32_t)(i & (npaths - 1)), g_levels, 0, size);
        if (rc) return rc;
    }
    return 0;
}

static __attribute__((noinline)) int pairs_malloc(uint64_t n, size_t size)
{
    for (uint64_t i = 0; i < n; i++) {
        void *p = malloc(size);
        if (!p) return 2;
        sink = p;
        free(p);
    }
    return 0;
}

static __attribute__((noinline)) void leaf(job *j)
{
    int (*loop)(uint64_t, size_t) = !j->cuda ? pairs_malloc : g_levels ? pairs_tree
                                  : j->paths > 1 ? pairs_paths : pairs_cuda;
    int rc = loop(j->warmup, j->size);
    pthread_barrier_wait(j->start);
    double t0 = now_ns(), c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    if (!rc) rc = loop(j->pairs, j->size);
    j->cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
    j->ns = now_ns() - t0;
    j->err = rc;
}

/* The recursion goes through a volatile pointer and does work after the call, so that
 * neither inlining nor tail calls can fold the frames away (the build also passes
 * -fno-optimize-sibling-calls). */
static int descend(job *j, int left);
static int (*volatile descend_p)(job *, int) = descend;

static __attribute__((noinline)) int descend(job *j, int left)
{
    int r;
    if (left <= 1) { leaf(j); r = 0; }
    else r = descend_p(j, left - 1);
    __asm__ volatile("" ::: "memory");
    return r + 1;
}

static void *thread_main(void *arg)
{
    job *j = arg;
    if (j->cuda && j->ctx) cuCtxSetCurrent(j->ctx);
    descend_p(j, j->depth);
    return NULL;
}

static void usage(void)
{
    fprintf(stderr, "usage: bench_alloc [-m cuda|malloc] [-d DEPTH] [-t THREADS] [-n PAIRS] [-w WARMUP] [-s SIZE] [-p PATHS] [-b LEVELS]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    int cuda = 1, depth = 32, threads = 1, paths = 1;
    uint64_t pairs = 1000000, warmup = 10000;
    size_t size = 0;
    int c;
    while ((c = getopt(argc, argv, "m:d:t:n:w:s:p:b:h")) != -1) {
        switch (c) {
        case 'm':
            if (!strcmp(optarg, "cuda")) cuda = 1;
            else if (!strcmp(optarg, "malloc")) cuda = 0;
            else usage();
            break;
        case 'd': depth = atoi(optarg); break;
        case 't': threads = atoi(optarg); break;
        case 'n': pairs = strtoull(optarg, NULL, 0); break;
        case 'w': warmup = strtoull(optarg, NULL, 0); break;
        case 's': size = strtoull(optarg, NULL, 0); break;
        case 'p': paths = atoi(optarg); break;
        case 'b': g_levels = atoi(optarg); break;
        default: usage();
        }
    }
    if (depth < 1 || depth > 1000 || threads < 1 || threads > 64 || !pairs || paths < 1 || paths > 64
        || g_levels < 0 || g_levels > 4 || (g_levels && !cuda)) usage();
    g_paths = paths;
    if (!size) size = cuda ? (1u << 20) : 64;

    CUcontext ctx = NULL;
    if (cuda) {
        CUdevice dev;
        CUresult rc = cuInit(0);
        if (rc == CUDA_SUCCESS) rc = cuDeviceGet(&dev, 0);
        if (rc == CUDA_SUCCESS) rc = cuDevicePrimaryCtxRetain(&ctx, dev);
        if (rc == CUDA_SUCCESS) rc = cuCtxSetCurrent(ctx);
        if (rc != CUDA_SUCCESS) { fprintf(stderr, "bench_alloc: CUDA init failed: %d\n", (int)rc); return 1; }
    }

    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, (unsigned)threads);
    job *jobs = calloc((size_t)threads, sizeof *jobs);
    pthread_t *tids = calloc((size_t)threads, sizeof *tids);
    if (!jobs || !tids) return 1;
    double w0 = now_ns();
    for (int i = 0; i < threads; i++) {
        jobs[i] = (job){ .cuda = cuda, .depth = depth, .paths = paths, .pairs = pairs, .warmup = warmup, .size = size, .start = &start, .ctx = ctx };
        if (pthread_create(&tids[i], NULL, thread_main, &jobs[i]) != 0) { perror("pthread_create"); return 1; }
    }
    double sum = 0, cpu = 0;
    int err = 0;
    for (int i = 0; i < threads; i++) {
        pthread_join(tids[i], NULL);
        sum += jobs[i].ns;
        cpu += jobs[i].cpu_ns;
        if (jobs[i].err && !err) err = jobs[i].err;
    }
    double wall = now_ns() - w0;
    if (err) { fprintf(stderr, "bench_alloc: %s failed: %d\n", cuda ? "cuMemAlloc/cuMemFree" : "malloc", err); return 1; }
    if (g_levels) paths = 1 << (3 * g_levels);
    printf("mode=%s depth=%d threads=%d paths=%d pairs=%llu size=%zu ns_per_pair=%.1f cpu_ns_per_pair=%.1f wall_s=%.3f\n",
           cuda ? "cuda" : "malloc", depth, threads, paths, (unsigned long long)pairs, size,
           sum / threads / (double)pairs, cpu / threads / (double)pairs, wall * 1e-9);
    if (cuda && ctx) {
        CUdevice dev;
        if (cuDeviceGet(&dev, 0) == CUDA_SUCCESS) cuDevicePrimaryCtxRelease(dev);
    }
    free(jobs);
    free(tids);
    return 0;
}
