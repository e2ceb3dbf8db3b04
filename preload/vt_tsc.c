// SPDX-License-Identifier: MIT
/* vt_tsc.c - event times from the time-stamp counter.
 *
 * Every event is stamped on the allocating thread. clock_gettime through the vDSO reads
 * the counter too, but fenced (rdtscp or lfence), then a sequence word and the scale of
 * the vDSO's data page: about 0.15 ms of a 48 ms step on the H200 at ~3,000 events a
 * step (docs/benchmarks.md, section 7). A bare rdtsc is a few cycles and touches no
 * memory, so events are stamped with it when the kernel itself trusts the counter (its
 * clock source is "tsc": the counter is constant-rate and in step across CPUs), and the
 * writer turns ticks into the trace's nanoseconds: at each drain it reads the pair
 * (ticks, CLOCK_MONOTONIC), and the events of that drain go on the line from the previous
 * pair to this one, so each pair's time is exact and the error between two is the
 * kernel's own clock slew over a few milliseconds. The trace's format does not change.
 * Elsewhere (another clock source, a VM whose TSC the kernel distrusts, aarch64) events
 * keep clock_gettime. */
#include "vt_tsc.h"

#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define VT_TSC_MIN_SPAN_NS 2000000ull  /* a line shorter than this keeps the last slope */

int vt_tsc_usable(void)
{
#if defined(__x86_64__)
    char buf[32] = { 0 };
    int fd = open("/sys/devices/system/clocksource/clocksource0/current_clocksource", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    return n == 4 && memcmp(buf, "tsc\n", 4) == 0;
#else
    return 0;
#endif
}

#if defined(__x86_64__)
/* One (ticks, ns since the constructor) pair: the counter read between two clock reads
 * close together (a pair the thread was preempted in is taken again). */
static void pair(uint64_t *tsc, uint64_t *ns)
{
    uint64_t a = 0, b = 0, t = 0;
    for (int i = 0; i < 8; i++) {
        a = vt_now_abs();
        t = __builtin_ia32_rdtsc();
        b = vt_now_abs();
        if (b - a < 2000) break;
    }
    *tsc = t;
    *ns = a + (b - a) / 2 - vt_g.start_mono_ns;
}
#else
static void pair(uint64_t *tsc, uint64_t *ns)
{
    *tsc = *ns = vt_now();
}
#endif

/* The first line: two pairs a millisecond apart (the writer's start; events wait in the
 * ring meanwhile). */
void vt_tsc_start(vt_tsc_line *l)
{
    memset(l, 0, sizeof *l);
    pair(&l->tsc, &l->ns);
    struct timespec ts = { 0, 1000000L };
    nanosleep(&ts, NULL);
    uint64_t t, n;
    pair(&t, &n);
    l->ns_per_tick = t > l->tsc ? (double)(n - l->ns) / (double)(t - l->tsc) : 1.0;
    l->tsc = t;
    l->ns = n;
}

void vt_tsc_advance(vt_tsc_line *l)
{
    uint64_t t, n;
    pair(&t, &n);
    if (n < l->ns + VT_TSC_MIN_SPAN_NS || t <= l->tsc) return;
    l->ns_per_tick = (double)(n - l->ns) / (double)(t - l->tsc);
    l->next_tsc = t;
    l->next_ns = n;
    l->next = 1;
}

void vt_tsc_commit(vt_tsc_line *l)
{
    if (!l->next) return;
    l->tsc = l->next_tsc;
    l->ns = l->next_ns;
    l->next = 0;
}

uint64_t vt_tsc_ns(const vt_tsc_line *l, uint64_t tsc)
{
    /* an event stamped before the line's start (it waited in the ring) is before it */
    int64_t ns = (int64_t)l->ns + (int64_t)((double)(int64_t)(tsc - l->tsc) * l->ns_per_tick);
    return ns > 0 ? (uint64_t)ns : 0;
}
