// SPDX-License-Identifier: MIT
/* leak.cu - vt-leak: device allocations that are never freed.
 *
 * Ten cudaMalloc calls from three call sites; the six from keep_and_free() are freed, the
 * four from leak_site_a() and leak_site_b() are not: the process exits holding them (no
 * cudaDeviceReset), so a leak report should name exactly those two sites and these bytes. */
#include "wl_common.h"

#include <string.h>

static WL_NOINLINE void *keep_and_free(size_t n)
{
    void *p = NULL;
    WL_CHECK(cudaMalloc(&p, n));
    WL_KEEP_FRAME();
    return p;
}

static WL_NOINLINE void *leak_site_a(size_t n)
{
    void *p = NULL;
    WL_CHECK(cudaMalloc(&p, n));
    WL_KEEP_FRAME();
    return p;
}

static WL_NOINLINE void *leak_site_b(size_t n)
{
    void *p = NULL;
    WL_CHECK(cudaMalloc(&p, n));
    WL_KEEP_FRAME();
    return p;
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        fprintf(stderr, "usage: vt-leak   (allocates 10 buffers, frees 6, exits holding 4)\n");
        return strcmp(argv[1], "--help") ? 2 : 0;
    }
    wl_start("vt-leak", NULL, NULL);
    static const size_t freed_sizes[6] = {1u << 20, 2u << 20, 4u << 20, 8u << 20, 12345, 3u << 20};
    static const size_t leak_a[2] = {3u << 20, (5u << 20) + 1234};
    static const size_t leak_b[2] = {1u << 20, (7u << 20) + 1};
    void *freed[6], *la[2], *lb[2];
    size_t total = 0, freed_bytes = 0, leaked = 0;
    for (int i = 0; i < 6; i++) { freed[i] = keep_and_free(freed_sizes[i]); total += freed_sizes[i]; }
    for (int i = 0; i < 2; i++) { la[i] = leak_site_a(leak_a[i]); total += leak_a[i]; leaked += leak_a[i]; }
    for (int i = 0; i < 2; i++) { lb[i] = leak_site_b(leak_b[i]); total += leak_b[i]; leaked += leak_b[i]; }
    WL_CHECK(cudaMemset(la[0], 0, leak_a[0])); /* touch one so the memory is really used */
    for (int i = 0; i < 6; i++) { WL_CHECK(cudaFree(freed[i])); freed_bytes += freed_sizes[i]; }
    WL_CHECK(cudaDeviceSynchronize());

    printf("{\"workload\":\"vt-leak\",\"units\":\"requested_bytes\",\"allocs\":10,\"frees\":6,"
           "\"allocated_bytes\":%zu,\"freed_bytes\":%zu,\"peak_bytes\":%zu,\"end_bytes\":%zu,"
           "\"leaked_count\":4,\"leaked_bytes\":%zu,\"leaked\":[",
           total, freed_bytes, total, leaked, leaked);
    for (int i = 0; i < 2; i++) printf("%s{\"site\":\"leak_site_a\",\"bytes\":%zu,\"ptr\":\"%p\"}", i ? "," : "", leak_a[i], la[i]);
    for (int i = 0; i < 2; i++) printf(",{\"site\":\"leak_site_b\",\"bytes\":%zu,\"ptr\":\"%p\"}", leak_b[i], lb[i]);
    printf("],\"freed_site\":\"keep_and_free\"}\n");
    fflush(stdout);
    return 0; /* deliberately without freeing la[] and lb[] */
}
