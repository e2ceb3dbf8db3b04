// SPDX-License-Identifier: MIT
/* async.cu - vt-async: stream-ordered allocation (cudaMallocAsync / cudaFreeAsync).
 *
 * 1. six cudaMallocAsync from the device's default pool; three freed at once;
 * 2. an explicit pool (cudaMemPoolCreate, release threshold = max so nothing is given back
 *    on its own): six cudaMallocFromPoolAsync, all freed; the pool keeps its memory
 *    reserved until cudaMemPoolTrimTo(pool, 0);
 * 3. the rest of the default-pool buffers freed, that pool trimmed, the explicit pool
 *    destroyed. Bytes are the requested sizes; the pools' reserved figures come from
 *    cudaMemPoolGetAttribute and are the driver's, rounded up. */
#include "wl_common.h"

#include <string.h>

#define NDEF 6
#define NPOOL 6

static WL_NOINLINE void *async_default(size_t n, cudaStream_t s)
{
    void *p = NULL;
    WL_CHECK(cudaMallocAsync(&p, n, s));
    WL_KEEP_FRAME();
    return p;
}

static WL_NOINLINE void *async_from_pool(size_t n, cudaMemPool_t pool, cudaStream_t s)
{
    void *p = NULL;
    WL_CHECK(cudaMallocFromPoolAsync(&p, n, pool, s));
    WL_KEEP_FRAME();
    return p;
}

static size_t pool_attr(cudaMemPool_t pool, cudaMemPoolAttr a)
{
    uint64_t v = 0;
    WL_CHECK(cudaMemPoolGetAttribute(pool, a, &v));
    return (size_t)v;
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        fprintf(stderr, "usage: vt-async   (cudaMallocAsync, an explicit pool, cudaMemPoolTrimTo)\n");
        return strcmp(argv[1], "--help") ? 2 : 0;
    }
    wl_start("vt-async", NULL, NULL);
    int supported = 0;
    WL_CHECK(cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, 0));
    if (!supported) wl_die("device 0 does not support memory pools");
    cudaStream_t s;
    WL_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    size_t dsz[NDEF], psz[NPOOL], live = 0, peak = 0, allocated = 0;
    void *dp[NDEF], *pp[NPOOL];

    for (int i = 0; i < NDEF; i++) {
        dsz[i] = ((size_t)(i + 1) << 21) + (size_t)i * 512; /* 2 MiB, 4 MiB, ... plus a bit */
        dp[i] = async_default(dsz[i], s);
        WL_CHECK(cudaMemsetAsync(dp[i], 0, dsz[i], s));
        live += dsz[i];
        allocated += dsz[i];
        if (live > peak) peak = live;
    }
    for (int i = 0; i < NDEF; i += 2) { WL_CHECK(cudaFreeAsync(dp[i], s)); live -= dsz[i]; }

    cudaMemPool_t pool;
    cudaMemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = 0;
    WL_CHECK(cudaMemPoolCreate(&pool, &props));
    uint64_t keep_all = UINT64_MAX;
    WL_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep_all));
    for (int i = 0; i < NPOOL; i++) {
        psz[i] = ((size_t)3 << 20) * (size_t)(i + 1) + 77; /* 3 MiB, 6 MiB, ... plus 77 */
        pp[i] = async_from_pool(psz[i], pool, s);
        WL_CHECK(cudaMemsetAsync(pp[i], 0, psz[i], s));
        live += psz[i];
        allocated += psz[i];
        if (live > peak) peak = live;
    }
    for (int i = 0; i < NPOOL; i++) { WL_CHECK(cudaFreeAsync(pp[i], s)); live -= psz[i]; }
    WL_CHECK(cudaStreamSynchronize(s));
    size_t reserved_before = pool_attr(pool, cudaMemPoolAttrReservedMemCurrent);
    size_t used_before = pool_attr(pool, cudaMemPoolAttrUsedMemCurrent);
    WL_CHECK(cudaMemPoolTrimTo(pool, 0));
    size_t reserved_after = pool_attr(pool, cudaMemPoolAttrReservedMemCurrent);

    for (int i = 1; i < NDEF; i += 2) { WL_CHECK(cudaFreeAsync(dp[i], s)); live -= dsz[i]; }
    WL_CHECK(cudaStreamSynchronize(s));
    cudaMemPool_t dpool;
    WL_CHECK(cudaDeviceGetDefaultMemPool(&dpool, 0));
    WL_CHECK(cudaMemPoolTrimTo(dpool, 0));
    WL_CHECK(cudaMemPoolDestroy(pool));
    WL_CHECK(cudaStreamDestroy(s));

    printf("{\"workload\":\"vt-async\",\"units\":\"requested_bytes\",\"allocs\":%d,\"frees\":%d,"
           "\"allocs_default_pool\":%d,\"allocs_explicit_pool\":%d,\"allocated_bytes\":%zu,"
           "\"peak_bytes\":%zu,\"end_bytes\":%zu,\"trims\":2,\"explicit_pool\":{\"reserved_before_trim\":%zu,"
           "\"used_before_trim\":%zu,\"reserved_after_trim\":%zu},",
           NDEF + NPOOL, NDEF + NPOOL, NDEF, NPOOL, allocated, peak, live, reserved_before,
           used_before, reserved_after);
    wl_print_sizes("default_pool_sizes", dsz, NDEF);
    printf(",");
    wl_print_sizes("explicit_pool_sizes", psz, NPOOL);
    printf("}\n");
    return live == 0 ? 0 : 1;
}
