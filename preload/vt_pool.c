/* SPDX-License-Identifier: MIT */
/* vt_pool.c - which driver memory pools the program allocated from, and their figures. */
#include "vt_pool.h"

#include "vt_helpers.h"
#include "vt_global.h"

#include <stdatomic.h>

/* Pools noted: (device, pool) pairs, 0 pool = the device's current pool. A fixed table,
 * filled once per pair with a compare-and-swap: the wrappers note from any thread, the
 * writer reads. Process-wide by nature (one driver per process). */
#define VT_POOLS 16
static struct {
    _Atomic uint64_t key[VT_POOLS];     /* (pool | device) + 1 packed: 0 = empty */
    uint64_t last_res[VT_POOLS], last_used[VT_POOLS];
    uint8_t  have[VT_POOLS];            /* writer only */
    uint64_t handle[VT_POOLS];          /* writer only: the pool's handle once resolved */
} vt_p;

/* Pool handles are pointers (aligned), ordinals are below 128: the low 8 bits of a
 * pool handle are free for the ordinal only if aligned to 256, which drivers do not
 * promise, so the key keeps the device in the top byte (user-space addresses use 47
 * bits at most). */
static uint64_t key_of(int device, uint64_t pool)
{
    return ((uint64_t)(uint8_t)device << 56 | (pool & 0x00ffffffffffffffull)) + 1;
}

void vt_pool_note(int device, uint64_t pool)
{
    if (device < 0) return;
    uint64_t k = key_of(device, pool);
    for (int i = 0; i < VT_POOLS; i++) {
        uint64_t cur = atomic_load_explicit(&vt_p.key[i], memory_order_relaxed);
        if (cur == k) return;
        if (cur) continue;
        uint64_t empty = 0;
        if (atomic_compare_exchange_strong(&vt_p.key[i], &empty, k)) return;
        if (empty == k) return;
    }
}

void vt_pool_sample(void (*emit)(const vt_rec *r))
{
    const vt_helpers *h = vt_wrap_helpers();
    if (!h || !h->pool_get_attribute) return;
    for (int i = 0; i < VT_POOLS; i++) {
        uint64_t k = atomic_load_explicit(&vt_p.key[i], memory_order_acquire);
        if (!k) break;
        k--;
        int device = (int)(k >> 56);
        uint64_t pool = k & 0x00ffffffffffffffull;
        if (!pool) {
            if (!vt_p.handle[i]) {
                CUdevice d;
                CUmemoryPool mp;
                if (!h->device_get || !h->device_get_mem_pool || h->device_get(&d, device) != CUDA_SUCCESS ||
                    h->device_get_mem_pool(&mp, d) != CUDA_SUCCESS)
                    continue;
                vt_p.handle[i] = (uint64_t)(uintptr_t)mp;
            }
            pool = vt_p.handle[i];
        }
        cuuint64_t res = 0, used = 0;
        CUmemoryPool mp = (CUmemoryPool)(uintptr_t)pool;
        if (h->pool_get_attribute(mp, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &res) != CUDA_SUCCESS ||
            h->pool_get_attribute(mp, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &used) != CUDA_SUCCESS)
            continue;
        if (vt_p.have[i] && vt_p.last_res[i] == res && vt_p.last_used[i] == used) continue;
        vt_p.have[i] = 1;
        vt_p.last_res[i] = res;
        vt_p.last_used[i] = used;
        vt_rec r = { .type = VT_REC_POOL, .device = (int8_t)device, .time_ns = vt_now(), .addr = pool,
                     .aux0 = res, .aux1 = used };
        emit(&r);
    }
}
