// SPDX-License-Identifier: MIT
/* vt_ring.c - the bounded multi-producer, single-consumer queue between allocating
 * threads and the writer.
 *
 * Vyukov's bounded queue: each 64-byte slot carries a sequence number, a producer
 * claims a position with one compare-and-swap on the head and publishes the slot by
 * storing its sequence; the writer (the only consumer) needs no atomic read-modify-
 * write at all. Why this one: no lock, no allocation, one cache line per event, and a
 * producer never waits for another producer's slow path.
 *
 * When the ring is full the producer waits for the writer: it sleeps on a futex word the
 * writer bumps as it frees slots, and tries again. Nothing is dropped while the writer
 * makes progress, so a trace is complete under any load (issue 17: dropped frees showed
 * as false leaks). Two cases drop the event and count it (the writer writes the count as
 * a LOST record, the exit says how many):
 *   - VRAMTRACE_DROP_MS=N was set (latency-critical runs): wait at most N ms;
 *   - the writer is gone (a write error, the exit drain is over) or has not freed a slot
 *     for VT_RING_STALL_NS: it may be waiting on a lock the waiting thread holds (the
 *     loader's, during a library constructor that allocates), and a hang is worse than a
 *     lost event. Once stalled, other producers drop at once until a slot frees.
 * A producer never waits while holding a lock of the recorder. */
#include "vt_ring.h"
#include "vt_config.h"
#include "vt_global.h"

#include <linux/futex.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define VT_RING_STALL_NS 2000000000ull  /* the writer freed nothing for 2 s: stuck */
#define VT_RING_NAP_NS   1000000L       /* a waiting producer re-checks every 1 ms */

typedef struct {
    _Atomic uint64_t seq;
    vt_ring_ev ev;
} vt_slot;

_Static_assert(sizeof(vt_slot) == 64, "one slot per cache line");

/* The ring is a process singleton like the trace it feeds; head, tail and the lost
 * counter sit on separate cache lines so producers and the writer do not share one.
 * First in the hot section (CMakeLists.txt links this file first and vt_global.c last)
 * and page-aligned, so that the section's hot words, ~1 KiB before vt_g's long paths,
 * lie on one page (checked by the preload_hot_page test). */
static VT_HOT_DATA _Alignas(4096) struct {
    vt_slot *slots;
    uint64_t mask;
    _Alignas(64) _Atomic uint64_t head;
    _Alignas(64) _Atomic uint64_t tail;     /* written by the writer only */
    _Atomic uint32_t space;                 /* futex word: bumped when waiters may go on */
    _Atomic uint32_t waiters;               /* producers waiting for a slot */
    _Alignas(64) _Atomic uint64_t lost;
    _Atomic uint64_t stalled_at;
    _Atomic int      consumer;              /* the writer runs and writes (vt_ring_consumer) */
    _Alignas(64) _Atomic uint32_t bell;    /* futex word: bumped to wake the writer */            /* tail + 1 when the writer was found stuck */
} vt_r;

/* ------------------------------------------------------------------------ *
 *  The doorbell: producers (and the exit path) wake the consumer
 * ------------------------------------------------------------------------ */
void vt_ring_wake(void)
{
    atomic_fetch_add_explicit(&vt_r.bell, 1, memory_order_release);
    syscall(SYS_futex, &vt_r.bell, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

uint32_t vt_ring_bell(void)
{
    return atomic_load_explicit(&vt_r.bell, memory_order_acquire);
}

void vt_ring_wait(uint32_t seen, int ms)
{
    if (ms <= 0) return;
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    syscall(SYS_futex, &vt_r.bell, FUTEX_WAIT_PRIVATE, seen, &ts, NULL, 0);
}

void vt_ring_consumer(int alive)
{
    atomic_store_explicit(&vt_r.consumer, alive, memory_order_release);
}

int vt_ring_init(uint32_t n)
{
    size_t bytes = (size_t)n * sizeof(vt_slot);
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return -1;
    vt_slot *s = p;
    for (uint32_t i = 0; i < n; i++) atomic_store_explicit(&s[i].seq, i, memory_order_relaxed);
    vt_r.slots = s;
    vt_r.mask = n - 1;
    atomic_store_explicit(&vt_r.head, 0, memory_order_relaxed);
    atomic_store_explicit(&vt_r.tail, 0, memory_order_relaxed);
    /* Never unmapped: a producer that loaded the pointer may still be writing at exit. */
    return 0;
}

static int try_push(const vt_ring_ev *e)
{
    uint64_t pos = atomic_load_explicit(&vt_r.head, memory_order_relaxed);
    for (;;) {
        vt_slot *s = &vt_r.slots[pos & vt_r.mask];
        uint64_t seq = atomic_load_explicit(&s->seq, memory_order_acquire);
        int64_t dif = (int64_t)(seq - pos);
        if (dif == 0) {
            /* seq_cst so that what this thread queued in the side buffer before (stack
             * nodes, its THREAD record) is visible to a writer that sees this position. */
            if (atomic_compare_exchange_weak_explicit(&vt_r.head, &pos, pos + 1,
                                                      memory_order_seq_cst, memory_order_relaxed)) {
                s->ev = *e;
                atomic_store_explicit(&s->seq, pos + 1, memory_order_release);
                /* The next slot's line was last written by the writer a whole ring ago
                 * and is out of cache by now: fetch it for writing while the program
                 * runs, rather than at the next event (a cache miss per event). */
                __builtin_prefetch(&vt_r.slots[(pos + 1) & vt_r.mask], 1, 3);
                /* A nudge each quarter ring keeps the writer ahead of bursts. */
                if (VT_UNLIKELY(((pos + 1) & (vt_r.mask >> 2)) == 0)) vt_ring_wake();
                return 0;
            }
        } else if (dif < 0) {
            return -1; /* full */
        } else {
            pos = atomic_load_explicit(&vt_r.head, memory_order_relaxed);
        }
    }
}

/* The ring is full: wait for the writer to free a slot (see the top of the file). */
static __attribute__((noinline)) int push_wait(const vt_ring_ev *e)
{
    uint64_t drop_ns = (uint64_t)vt_g.cfg.drop_ms * 1000000ull;
    uint64_t t0 = vt_now_abs(), progress_at = t0;
    uint64_t seen = atomic_load_explicit(&vt_r.tail, memory_order_acquire);
    int rc = -1;
    atomic_fetch_add(&vt_r.waiters, 1);
    for (;;) {
        uint32_t gen = atomic_load_explicit(&vt_r.space, memory_order_acquire);
        if (try_push(e) == 0) { rc = 0; break; }
        if (!atomic_load_explicit(&vt_r.consumer, memory_order_acquire)) break;
        uint64_t now = vt_now_abs(), tail = atomic_load_explicit(&vt_r.tail, memory_order_acquire);
        if (tail != seen) { seen = tail; progress_at = now; }
        if (atomic_load_explicit(&vt_r.stalled_at, memory_order_relaxed) == tail + 1) break;
        if (now - progress_at > VT_RING_STALL_NS) {
            atomic_store_explicit(&vt_r.stalled_at, tail + 1, memory_order_relaxed);
            break;
        }
        if (drop_ns && now - t0 > drop_ns) break;
        vt_ring_wake();
        struct timespec ts = { 0, VT_RING_NAP_NS };
        syscall(SYS_futex, &vt_r.space, FUTEX_WAIT_PRIVATE, gen, &ts, NULL, 0);
    }
    atomic_fetch_sub(&vt_r.waiters, 1);
    if (rc) atomic_fetch_add_explicit(&vt_r.lost, 1, memory_order_relaxed);
    return rc;
}

int vt_ring_push(const vt_ring_ev *e)
{
    if (VT_LIKELY(try_push(e) == 0)) return 0;
    return push_wait(e);
}

void vt_ring_notify(void)
{
    if (!atomic_load_explicit(&vt_r.waiters, memory_order_acquire)) return;
    atomic_fetch_add_explicit(&vt_r.space, 1, memory_order_release);
    syscall(SYS_futex, &vt_r.space, FUTEX_WAKE_PRIVATE, 0x7fffffff, NULL, NULL, 0);
}

uint64_t vt_ring_head(void)
{
    return atomic_load_explicit(&vt_r.head, memory_order_seq_cst);
}

uint64_t vt_ring_lost(void)
{
    return atomic_load_explicit(&vt_r.lost, memory_order_relaxed);
}

int vt_ring_pop(vt_ring_ev *e, uint64_t limit)
{
    uint64_t tail = atomic_load_explicit(&vt_r.tail, memory_order_relaxed);
    if (!vt_r.slots || tail >= limit) return 0;
    vt_slot *s = &vt_r.slots[tail & vt_r.mask];
    uint64_t seq = atomic_load_explicit(&s->seq, memory_order_acquire);
    if (seq != tail + 1) return -1; /* claimed, not yet written */
    *e = s->ev;
    atomic_store_explicit(&s->seq, tail + vt_r.mask + 1, memory_order_release);
    atomic_store_explicit(&vt_r.tail, tail + 1, memory_order_release);
    /* Waiting producers go on every 256 slots, not only at the end of a cycle. */
    if (VT_UNLIKELY(((tail + 1) & 255) == 0)) vt_ring_notify();
    return 1;
}
