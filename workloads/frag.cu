// SPDX-License-Identifier: MIT
/* frag.cu - vt-frag: a fragmentation pattern.
 *
 * 1. 256 allocations of many different sizes (64 KiB .. ~2 MiB, odd byte counts too);
 * 2. every other one (the odd indices) is freed, leaving 128 holes between live buffers;
 * 3. 16 larger buffers (4 MiB + i) are asked for: none fits in a hole;
 * 4. everything is freed.
 * The JSON line gives the live bytes after each phase and the peak, in requested bytes. */
#include "wl_common.h"

#include <string.h>

#define NSMALL 256
#define NBIG 16

static WL_NOINLINE void *frag_small(size_t n)
{
    void *p = NULL;
    WL_CHECK(cudaMalloc(&p, n));
    WL_KEEP_FRAME();
    return p;
}

static WL_NOINLINE void *frag_big(size_t n)
{
    void *p = NULL;
    WL_CHECK(cudaMalloc(&p, n));
    WL_KEEP_FRAME();
    return p;
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        fprintf(stderr, "usage: vt-frag   (256 allocations, frees every other, then 16 big ones)\n");
        return strcmp(argv[1], "--help") ? 2 : 0;
    }
    wl_start("vt-frag", NULL, NULL);
    static size_t sz[NSMALL], bsz[NBIG];
    static void *p[NSMALL], *big[NBIG];
    size_t live = 0, peak = 0, allocated = 0, freed = 0;
    for (int i = 0; i < NSMALL; i++) {
        sz[i] = ((size_t)64 << 10) * (size_t)(1 + (i * 37) % 31) + (size_t)(i % 5) * 4096 + (size_t)i;
        p[i] = frag_small(sz[i]);
        live += sz[i];
        allocated += sz[i];
        if (live > peak) peak = live;
    }
    size_t live_all_small = live;
    for (int i = 1; i < NSMALL; i += 2) {
        WL_CHECK(cudaFree(p[i]));
        live -= sz[i];
        freed += sz[i];
    }
    size_t live_after_holes = live, holes_bytes = live_all_small - live;
    for (int i = 0; i < NBIG; i++) {
        bsz[i] = ((size_t)4 << 20) + (size_t)i;
        big[i] = frag_big(bsz[i]);
        live += bsz[i];
        allocated += bsz[i];
        if (live > peak) peak = live;
    }
    size_t live_with_big = live;
    for (int i = 0; i < NSMALL; i += 2) { WL_CHECK(cudaFree(p[i])); live -= sz[i]; freed += sz[i]; }
    for (int i = 0; i < NBIG; i++) { WL_CHECK(cudaFree(big[i])); live -= bsz[i]; freed += bsz[i]; }
    WL_CHECK(cudaDeviceSynchronize());

    printf("{\"workload\":\"vt-frag\",\"units\":\"requested_bytes\",\"allocs\":%d,\"frees\":%d,"
           "\"allocated_bytes\":%zu,\"freed_bytes\":%zu,\"peak_bytes\":%zu,\"end_bytes\":%zu,"
           "\"live_all_small\":%zu,\"live_after_free_every_other\":%zu,\"hole_count\":%d,"
           "\"hole_bytes\":%zu,\"live_with_big\":%zu,",
           NSMALL + NBIG, NSMALL + NBIG, allocated, freed, peak, live, live_all_small,
           live_after_holes, NSMALL / 2, holes_bytes, live_with_big);
    wl_print_sizes("small_sizes", sz, NSMALL);
    printf(",");
    wl_print_sizes("big_sizes", bsz, NBIG);
    printf("}\n");
    return live == 0 ? 0 : 1;
}
