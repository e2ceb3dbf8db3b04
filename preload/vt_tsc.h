// SPDX-License-Identifier: MIT
/* vt_tsc.h - event times as the CPU's time-stamp counter, turned into the trace's
 * nanoseconds by the writer (vt_tsc.c). */
#ifndef VT_TSC_H
#define VT_TSC_H

#include <stdint.h>

#include "vt_global.h"

/* At the trace's start: 1 when events may be stamped with the TSC (x86-64, and the kernel
 * keeps CLOCK_MONOTONIC with it), else 0. */
int vt_tsc_usable(void);

/* An event's time: TSC ticks when vt_g.tsc, else nanoseconds since the constructor. */
static inline uint64_t vt_stamp(void)
{
#if defined(__x86_64__)
    if (VT_LIKELY(vt_g.tsc)) return __builtin_ia32_rdtsc();
#endif
    return vt_now();
}

/* The writer's conversion: a line through two (ticks, ns) points, the later taken at each
 * drain of the ring (vt_tsc_advance) and made the start of the next line after it
 * (vt_tsc_commit). */
typedef struct {
    uint64_t tsc, ns;          /* the line's start */
    uint64_t next_tsc, next_ns;
    double   ns_per_tick;
    int      next;             /* next_* hold a point to commit */
} vt_tsc_line;

void     vt_tsc_start(vt_tsc_line *l);
void     vt_tsc_advance(vt_tsc_line *l);
void     vt_tsc_commit(vt_tsc_line *l);
uint64_t vt_tsc_ns(const vt_tsc_line *l, uint64_t tsc);

#endif /* VT_TSC_H */
