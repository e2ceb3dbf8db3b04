// SPDX-License-Identifier: MIT
/* pinned.cu - vt-pinned: page-locked host memory through the runtime API.
 *
 * cudaHostAlloc with three flag sets and cudaMallocHost, each touched, then cudaFreeHost.
 * No device memory is allocated. The JSON line lists each allocation (API, flags, bytes,
 * pointer) so that a trace's host-pinned records can be matched one by one. */
#include "wl_common.h"

#include <string.h>

typedef struct {
    const char *api, *flags;
    unsigned code;
    size_t bytes;
    void *p;
} pin;

static WL_NOINLINE void *pinned_host_alloc(size_t n, unsigned flags)
{
    void *p = NULL;
    WL_CHECK(cudaHostAlloc(&p, n, flags));
    WL_KEEP_FRAME();
    return p;
}

static WL_NOINLINE void *pinned_malloc_host(size_t n)
{
    void *p = NULL;
    WL_CHECK(cudaMallocHost(&p, n));
    WL_KEEP_FRAME();
    return p;
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        fprintf(stderr, "usage: vt-pinned   (4 pinned host allocations, then freed)\n");
        return strcmp(argv[1], "--help") ? 2 : 0;
    }
    wl_start("vt-pinned", NULL, NULL);
    pin v[4] = {
        {"cudaHostAlloc", "default", cudaHostAllocDefault, (size_t)3 << 20, NULL},
        {"cudaHostAlloc", "mapped|portable", cudaHostAllocMapped | cudaHostAllocPortable, ((size_t)5 << 20) + 123, NULL},
        {"cudaHostAlloc", "writecombined", cudaHostAllocWriteCombined, (size_t)1 << 20, NULL},
        {"cudaMallocHost", "", 0, (size_t)7 << 20, NULL},
    };
    size_t total = 0;
    for (int i = 0; i < 4; i++) {
        v[i].p = i < 3 ? pinned_host_alloc(v[i].bytes, v[i].code) : pinned_malloc_host(v[i].bytes);
        memset(v[i].p, 0x5a, v[i].bytes);
        total += v[i].bytes;
    }
    for (int i = 0; i < 4; i++) WL_CHECK(cudaFreeHost(v[i].p));

    printf("{\"workload\":\"vt-pinned\",\"units\":\"requested_bytes\",\"allocs\":4,\"frees\":4,"
           "\"allocated_bytes\":%zu,\"peak_bytes\":%zu,\"end_bytes\":0,\"device_bytes\":0,\"host_allocs\":[",
           total, total);
    for (int i = 0; i < 4; i++)
        printf("%s{\"api\":\"%s\",\"flags\":\"%s\",\"bytes\":%zu,\"ptr\":\"%p\"}", i ? "," : "", v[i].api,
               v[i].flags, v[i].bytes, v[i].p);
    printf("]}\n");
    return 0;
}
