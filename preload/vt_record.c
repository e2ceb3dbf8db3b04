// SPDX-License-Identifier: MIT
/* vt_record.c - turns one driver call into one event: thread id, time, device, stack,
 * then a push into the ring. Runs on the allocating thread, after the real call has
 * returned, with the thread's in_hook flag set (vt_enter).
 *
 * The common path makes no system call but clock_gettime (vDSO), takes no lock and
 * allocates nothing. The rare paths (a thread's first event, a stack never seen, the
 * process's first event) do, and are marked so. */
#include "vt_record.h"
#include "vt_format.h"
#include "vt_global.h"
#include "vt_helpers.h"
#include "vt_init.h"
#include "vt_ring.h"
#include "vt_side.h"
#include "vt_stack.h"
#include "vt_stats.h"
#include "vt_tsc.h"

#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static inline uint32_t tid(void)
{
    if (VT_UNLIKELY(!vt_tls.tid)) vt_tls.tid = (uint32_t)syscall(SYS_gettid);
    return vt_tls.tid;
}

/* Rare: the thread's first event queues its name. */
static void announce_slow(void)
{
    vt_tls.announced = 1;
    char name[17] = { 0 };
    if (prctl(PR_GET_NAME, name, 0, 0, 0) != 0) name[0] = 0;
    vt_rec r = { .type = VT_REC_THREAD, .device = -1, .tid = tid(),
                 .str = name, .str_len = (uint32_t)strlen(name) };
    vt_side_push(&r);
}

/* Is the trace running? Starts it at the process's first event. */
static inline int ready(void)
{
    int st = atomic_load_explicit(&vt_g.state, memory_order_acquire);
    if (VT_UNLIKELY(atomic_load_explicit(&vt_g.paused, memory_order_relaxed))) return 0;
    if (VT_LIKELY(st == VT_ST_ACTIVE)) {
        if (VT_UNLIKELY(!vt_tls.announced)) announce_slow();
        return 1;
    }
    if (st < VT_ST_IDLE || !vt_start()) return 0;
    if (!vt_tls.announced) announce_slow();
    return 1;
}

static int device_of_ctx(void)
{
    const vt_helpers *h = vt_wrap_helpers();
    CUdevice d;
    if (!h || !h->ctx_get_device || h->ctx_get_device(&d) != CUDA_SUCCESS) return -1;
    return d >= 0 && d < 128 ? (int)d : -1;
}

/* With VRAMTRACE_STATS=1: out = call, timed into the ns and n tallies (vt_stats.c). */
#define TIMED(out, call, ns, n) do { \
        if (VT_LIKELY(!vt_g.cfg.stats)) { out = call; break; } \
        uint64_t t0_ = vt_now_abs(); \
        out = call; \
        vt_stats_add(ns, vt_now_abs() - t0_); \
        vt_stats_add(n, 1); } while (0)

int vt_rec_device(void)
{
    if (VT_UNLIKELY(atomic_load_explicit(&vt_g.paused, memory_order_relaxed))) return -1;
    int d;
    TIMED(d, device_of_ctx(), VT_STAT_NS_DEVICE, VT_STAT_N_DEVICE);
    return d;
}

/* The stack of this event. */
static inline uint32_t stack_here(void)
{
    uint32_t id;
    TIMED(id, vt_stack_capture(), VT_STAT_NS_STACK, VT_STAT_N_STACK);
    return id;
}

static inline int push_ev(uint8_t type, unsigned kind, int device, unsigned flags, uint32_t stack,
                        uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    vt_ring_ev e;
    e.type = type;
    e.kind = (uint8_t)kind;
    e.device = (int8_t)device;
    e.flags = (uint8_t)flags;
    e.tid = tid();
    e.stack_id = stack;
    e.pad_ = 0;
    e.time = vt_stamp();
    e.a = a; e.b = b; e.c = c; e.d = d;
    return vt_ring_push(&e);
}

static inline void push(uint8_t type, unsigned kind, int device, unsigned flags, uint32_t stack,
                        uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    int r;
    TIMED(r, push_ev(type, kind, device, flags, stack, a, b, c, d), VT_STAT_NS_PUSH, VT_STAT_EVENTS);
    (void)r;
}

/* ------------------------------------------------------------------------ *
 *  Events
 * ------------------------------------------------------------------------ */
void vt_rec_alloc(unsigned kind, uint64_t addr, uint64_t size, uint64_t stream, unsigned flags, int device)
{
    if (!ready()) return;
    uint32_t stack = stack_here();
    push(VT_REC_ALLOC, kind, device, flags, stack, addr, size, stream, 0);
}

void vt_rec_free(unsigned kind, uint64_t addr, uint64_t stream, unsigned flags, int device)
{
    if (!ready()) return;
    uint32_t stack = vt_g.cfg.free_stacks ? stack_here() : 0;
    push(VT_REC_FREE, kind, device, flags, stack, addr, 0, stream, 0);
}

void vt_rec_oom(unsigned kind, uint64_t size, uint64_t stream, unsigned flags, int device)
{
    if (!ready()) return;
    size_t fr = 0, tot = 0;
    const vt_helpers *h = vt_wrap_helpers();
    if (!h || !h->mem_get_info || h->mem_get_info(&fr, &tot) != CUDA_SUCCESS) fr = tot = 0;
    uint32_t stack = stack_here();
    /* a = free, b = size asked, c = stream, d = total */
    push(VT_REC_OOM, kind, device, flags, stack, fr, size, stream, tot);
}

void vt_rec_vmm(unsigned op, uint64_t addr, uint64_t size, uint64_t aux0, uint64_t aux1, int stack)
{
    if (!ready()) return;
    uint32_t s = (stack || vt_g.cfg.free_stacks) ? stack_here() : 0;
    push(VT_REC_VMM, op, -1, 0, s, addr, size, aux0, aux1);
}

/* Through the ring, like the allocations: an annotation must come after the allocation
 * it names in the trace (the analyzer joins them in the order read). */
void vt_rec_annotate(unsigned role, uint64_t addr, uint64_t size, uint64_t layer, uint64_t batch, int device)
{
    if (!ready()) return;
    push(VT_REC_ANNOTATE, role, device, 0, 0, addr, size, layer, batch);
}

/* PyTorch's segments: no stack (the driver's record of the same memory has one). */
void vt_rec_segment(unsigned op, uint64_t addr, uint64_t size, int device, int private_pool)
{
    if (!ready()) return;
    push(VT_REC_VMM, op, device, 0, 0, addr, size, private_pool ? VT_SEG_PRIVATE_POOL : 0, 0);
}

void vt_rec_pool_trim(uint64_t pool, uint64_t keep, int device)
{
    if (!ready()) return;
    push(VT_REC_POOL_TRIM, 0, device, 0, 0, pool, keep, 0, 0);
}

/* Rare: lookups are recorded before the trace starts too (the side buffer keeps them
 * until the first event opens the file). */
void vt_rec_lookup(const char *name, int how, uint64_t ptr, uint64_t info, int unwrapped)
{
    if (atomic_load_explicit(&vt_g.state, memory_order_acquire) < VT_ST_IDLE) return;
    vt_rec r = { .type = VT_REC_LOOKUP, .device = -1, .tid = tid(), .time_ns = vt_now(),
                 .aux0 = (uint64_t)how, .flags = unwrapped ? VT_RF_UNWRAPPED : 0,
                 .addr = ptr, .aux1 = info, .str = name, .str_len = (uint32_t)strlen(name) };
    vt_side_push(&r);
}

/* ------------------------------------------------------------------------ *
 *  Driver and devices, once (after cuInit, or at the first event)
 * ------------------------------------------------------------------------ */
/* Once per process: the devices do not change. */
static _Atomic int vt_devices_done;

void vt_rec_devices(void)
{
    const vt_helpers *h = vt_wrap_helpers();
    if (!h || !h->device_get_count || !h->device_get) return;
    if (atomic_exchange(&vt_devices_done, 1)) return;
    int n = 0;
    if (h->device_get_count(&n) != CUDA_SUCCESS) {  /* before cuInit: try again later */
        atomic_store(&vt_devices_done, 0);
        return;
    }
    int ver = 0;
    if (h->driver_get_version && h->driver_get_version(&ver) == CUDA_SUCCESS) {
        vt_rec r = { .type = VT_REC_DRIVER, .device = -1, .time_ns = vt_now(), .aux0 = (uint64_t)ver };
        vt_side_push(&r);
    }
    for (int i = 0; i < n && i < 128; i++) {
        CUdevice dev;
        if (h->device_get(&dev, i) != CUDA_SUCCESS) continue;
        char name[256] = { 0 };
        size_t total = 0;
        CUuuid uuid;
        int major = 0, minor = 0, sms = 0, threads = 0;
        memset(&uuid, 0, sizeof uuid);
        if (!h->device_get_name || h->device_get_name(name, (int)sizeof name - 1, dev) != CUDA_SUCCESS) name[0] = 0;
        if (!h->device_total_mem || h->device_total_mem(&total, dev) != CUDA_SUCCESS) total = 0;
        if (!h->device_get_uuid || h->device_get_uuid(&uuid, dev) != CUDA_SUCCESS) memset(&uuid, 0, sizeof uuid);
        if (h->device_get_attribute) {
            if (h->device_get_attribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev) != CUDA_SUCCESS) major = 0;
            if (h->device_get_attribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev) != CUDA_SUCCESS) minor = 0;
            if (h->device_get_attribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev) != CUDA_SUCCESS) sms = 0;
            if (h->device_get_attribute(&threads, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, dev) != CUDA_SUCCESS)
                threads = 0;
        }
        vt_rec r = { .type = VT_REC_DEVICE, .device = (int8_t)i, .size = total,
                     .aux0 = (uint64_t)major, .aux1 = (uint64_t)minor,
                     .id = (uint32_t)(sms > 0 ? sms : 0), .line = (uint32_t)(threads > 0 ? threads : 0),
                     .bytes = (const uint8_t *)uuid.bytes, .bytes_len = 16,
                     .str = name, .str_len = (uint32_t)strlen(name) };
        vt_side_push(&r);
    }
}
