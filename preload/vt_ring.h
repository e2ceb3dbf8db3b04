// SPDX-License-Identifier: MIT
/* vt_ring.h - the event ring (vt_ring.c): fixed-size events, many producers, the writer consumes. */
#ifndef VT_RING_H
#define VT_RING_H

#include <stdint.h>

typedef struct {
    uint8_t  type, kind;
    int8_t   device;
    uint8_t  flags;
    uint32_t tid;
    uint32_t stack_id;
    uint32_t pad_;
    uint64_t time;
    uint64_t a, b, c, d;  /* per type: see vt_writer.c ev_to_rec() */
} vt_ring_ev;

int      vt_ring_init(uint32_t slots);
int      vt_ring_push(const vt_ring_ev *e);         /* 0, or -1 when dropped */
uint64_t vt_ring_head(void);                   /* producers' position (snapshot) */
int      vt_ring_pop(vt_ring_ev *e, uint64_t limit);/* consumer: 1 popped, 0 none/not ready */
uint64_t vt_ring_lost(void);
/* The consumer's doorbell: any thread rings it; the consumer reads it (vt_ring_bell)
 * before it looks at the ring, then sleeps at most ms unless it was rung since. */
void     vt_ring_wake(void);
uint32_t vt_ring_bell(void);
void     vt_ring_wait(uint32_t seen, int ms);
/* The writer says whether it runs and writes: a producer facing a full ring waits for
 * it only while it does (vt_ring.c). */
void     vt_ring_consumer(int alive);
/* The writer freed slots: producers waiting on a full ring may go on. */
void     vt_ring_notify(void);

#endif /* VT_RING_H */
