// SPDX-License-Identifier: MIT
/* bench_chase.c - how far the caches reach on this machine: the time of one load that
 * depends on the one before, over working sets of 256 KiB to 128 MiB.
 *
 *   bench_chase [-h]     (-h: 2 MiB pages, where the kernel grants them)
 *
 * The replay (analyzer/model/vt_replay.c) hits its live set and groups at random, so what it
 * costs per event follows the size at which these times jump from the last-level
 * cache's to memory's; a VM may be lent much less of that cache than lscpu names. Each
 * size is one random cyclic permutation of its cache lines (a chain that no prefetcher
 * can guess), walked once to warm up, then timed over 4M loads. Prints a line per size. */
#define _GNU_SOURCE /* MADV_HUGEPAGE: without it -h silently asked for nothing */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    int huge = argc > 1 && strcmp(argv[1], "-h") == 0;
    if (argc > 1 && !huge) {
        fprintf(stderr, "usage: bench_chase [-h]\n");
        return 2;
    }
    srandom(1);  /* the same chains in every run; 2^21 lines at most, well within random()'s 31 bits */
    for (size_t kib = 256; kib <= 128 * 1024; kib *= 2) {
        size_t lines = kib * 1024 / 64, bytes = lines * 64;
        uint64_t *a = NULL;
        uint32_t *perm = malloc(lines * sizeof *perm);
        if (posix_memalign((void **)&a, 2u << 20, bytes) || !perm) {
            fprintf(stderr, "bench_chase: out of memory\n");
            return 1;
        }
#ifdef MADV_HUGEPAGE
        if (huge) madvise(a, bytes, MADV_HUGEPAGE);
#endif
        memset(a, 0, bytes);
        for (size_t i = 0; i < lines; i++) perm[i] = (uint32_t)i;
        for (size_t i = lines - 1; i > 0; i--) {
            size_t j = (size_t)random() % (i + 1);
            uint32_t t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
        for (size_t i = 0; i < lines; i++) a[(size_t)perm[i] * 8] = (uint64_t)perm[(i + 1) % lines] * 8;
        size_t p = 0;
        for (size_t i = 0; i < lines; i++) p = a[p];
        const size_t loads = 4u << 20;
        double t0 = now_s();
        for (size_t i = 0; i < loads; i++) p = a[p];
        double t = now_s() - t0;
        printf("%s %7zu KiB: %6.1f ns per dependent load%s\n", huge ? "2M pages" : "4K pages", kib,
               t / (double)loads * 1e9, p == (size_t)-1 ? "!" : "");
        free(a);
        free(perm);
    }
    return 0;
}
