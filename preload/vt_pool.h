/* SPDX-License-Identifier: MIT */
/* vt_pool.h - the driver memory pools the program allocated from, and their samples
 * (VT_REC_POOL): reserved and used bytes, taken by the writer thread with the NVML
 * samples, so the analyzer can name the pools' slack (freed memory a pool keeps). */
#ifndef VT_POOL_H
#define VT_POOL_H

#include <stdint.h>

#include "vt_format.h"

/* A stream-ordered allocation on CUDA ordinal `device` came from `pool` (0: the
 * device's current pool, cuMemAllocAsync). Any thread; cheap once the pool is known. */
void vt_pool_note(int device, uint64_t pool);

/* Writer thread: one VT_REC_POOL record per pool whose figures changed since its last
 * sample (the first always). */
void vt_pool_sample(void (*emit)(const vt_rec *r));

#endif /* VT_POOL_H */
