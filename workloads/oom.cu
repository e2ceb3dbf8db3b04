// SPDX-License-Identifier: MIT
/* oom.cu - vt-oom: asks for more memory than the card has, and survives.
 *
 * Holds 256 MiB, then asks for 1.5x the card's total memory and for (free + 1 GiB); both must
 * fail with cudaErrorMemoryAllocation (the driver's CUDA_ERROR_OUT_OF_MEMORY), which is
 * caught and cleared. Then frees what it holds and exits 0. Exits 1 if an over-sized
 * request unexpectedly succeeds or fails with another error. */
#include "wl_common.h"

#include <string.h>

static WL_NOINLINE cudaError_t oom_request(void **p, size_t n)
{
    cudaError_t e = cudaMalloc(p, n);
    WL_KEEP_FRAME();
    return e;
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        fprintf(stderr, "usage: vt-oom   (two requests larger than the card; exits 0 when both fail cleanly)\n");
        return strcmp(argv[1], "--help") ? 2 : 0;
    }
    size_t free0 = 0, total = 0;
    wl_start("vt-oom", &free0, &total);
    const size_t held_bytes = (size_t)256 << 20;
    void *held = NULL;
    WL_CHECK(cudaMalloc(&held, held_bytes));
    size_t free1 = 0, t1 = 0;
    WL_CHECK(cudaMemGetInfo(&free1, &t1));

    size_t ask[2] = {total + total / 2, free1 + ((size_t)1 << 30)};
    cudaError_t got[2];
    int ok = 1;
    for (int i = 0; i < 2; i++) {
        void *p = NULL;
        got[i] = oom_request(&p, ask[i]);
        if (got[i] == cudaSuccess) {
            fprintf(stderr, "vt-oom: a request of %zu bytes unexpectedly succeeded\n", ask[i]);
            WL_CHECK(cudaFree(p));
            ok = 0;
        } else if (got[i] != cudaErrorMemoryAllocation) {
            fprintf(stderr, "vt-oom: a request of %zu bytes failed with %s, not cudaErrorMemoryAllocation\n",
                    ask[i], cudaGetErrorName(got[i]));
            ok = 0;
        }
        cudaGetLastError(); /* reset the runtime's last-error slot: the failure is handled */
    }
    /* The context must still work after the failures. */
    WL_CHECK(cudaMemset(held, 0, held_bytes));
    WL_CHECK(cudaDeviceSynchronize());
    WL_CHECK(cudaFree(held));

    printf("{\"workload\":\"vt-oom\",\"units\":\"requested_bytes\",\"allocs\":1,\"frees\":1,"
           "\"allocated_bytes\":%zu,\"peak_bytes\":%zu,\"end_bytes\":0,\"total\":%zu,"
           "\"free_at_start\":%zu,\"free_before_oom\":%zu,\"oom_count\":2,\"oom\":[",
           held_bytes, held_bytes, total, free0, free1);
    for (int i = 0; i < 2; i++)
        printf("%s{\"bytes\":%zu,\"error\":\"%s\"}", i ? "," : "", ask[i], cudaGetErrorName(got[i]));
    printf("],\"ok\":%s}\n", ok ? "true" : "false");
    return ok ? 0 : 1;
}
