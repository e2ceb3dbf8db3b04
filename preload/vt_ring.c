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
 * When the ring is full the producer waits for the writer (yielding) for at most
 * VT_RING_WAIT_NS, then drops the event and counts it; the writer reports the count as
 * a LOST record. A producer never blocks for longer, and never waits while holding
 * anything. */
#include "vt_ring.h"
#include "vt_global.h"

#include <linux/futex.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define VT_RING_WAIT_NS 10000000ull  /* 10 ms */

typedef struct {
    _Atomic uint64_t seq;
    vt_ring_ev ev;
} vt_slot;

_Static_assert(sizeof(vt_slot) == 64, "one slot per cache line");

/* The ring is a process singleton like the trace it feeds; head, tail and the lost
 * counter sit on separate cache lines so producers and the writer do not share one. */
static struct {
    vt_slot *slots;
    uint64_t mask;
    _Alignas(64) _Atomic uint64_t head;
    _Alignas(64) uint64_t tail;             /* writer only */
    _Alignas(64) _Atomic uint64_t lost;
    _Alignas(64) _Atomic uint32_t bell;    /* futex word: bumped to wake the writer */
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
    vt_r.tail = 0;
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

int vt_ring_push(const vt_ring_ev *e)
{
    if (VT_LIKELY(try_push(e) == 0)) return 0;
    uint64_t t0 = vt_now_abs();
    vt_ring_wake();
    for (;;) {
        sched_yield();
        if (try_push(e) == 0) return 0;
        if (vt_now_abs() - t0 > VT_RING_WAIT_NS) break;
        vt_ring_wake();
    }
    atomic_fetch_add_explicit(&vt_r.lost, 1, memory_order_relaxed);
    return -1;
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
    if (!vt_r.slots || vt_r.tail >= limit) return 0;
    vt_slot *s = &vt_r.slots[vt_r.tail & vt_r.mask];
    uint64_t seq = atomic_load_explicit(&s->seq, memory_order_acquire);
    if (seq != vt_r.tail + 1) return -1; /* claimed, not yet written */
    *e = s->ev;
    atomic_store_explicit(&s->seq, vt_r.tail + vt_r.mask + 1, memory_order_release);
    vt_r.tail++;
    return 1;
}
