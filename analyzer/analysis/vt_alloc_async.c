/* SPDX-License-Identifier: MIT */
/* vt_alloc_async.c - a model of the driver's stream-ordered pool behind cudaMallocAsync
 * (PyTorch's backend:cudaMallocAsync). The driver's pool is not documented in the detail
 * the caching allocator's source gives, so this model rests on assumptions, written down
 * in docs/fit.md:
 * - one pool per device, shared by all streams (the driver reuses a freed block on
 *   another stream once the free is ordered before it; PyTorch's use keeps it so);
 * - sizes round up to 512 bytes; a request takes the smallest free block that fits
 *   and the rest is split off; freed blocks merge with free neighbours;
 * - the pool grows by mapping 2 MiB pages at the lowest free address, and keeps them
 *   (PyTorch sets the release threshold to the maximum), giving them back only when a
 *   request would fail (the driver trims the pool before it reports out of memory).
 * It is the caching engine (vt_alloc_caching.c) with those options. */
#include "vt_alloc_model_int.h"

vt_am *vt_am_async_new(const vt_am_conf *c, uint64_t limit)
{
    vt_am_heap_opts o = {
        .expandable = 1, .one_pool = 1, .one_stream = 1,
        .small_page = 2ull << 20, .large_page = 2ull << 20, .round_512_only = 1,
    };
    return vt_am_heap_new(VT_AM_ASYNC, &o, c, limit);
}
