// SPDX-License-Identifier: MIT
/* vt_stats.c - the recorder measuring itself (VRAMTRACE_STATS=1).
 *
 * Why: on a launch-bound PyTorch model the recorder added ~6 ms a step for ~2,150
 * events (docs/benchmarks.md, section 4), far more than its microbenchmark cost per
 * event. Telling the candidates apart (the driver call that finds the device, the
 * stack walk, the libunwind fallback, the ring) takes numbers from inside the traced
 * process, on the GPU machine, where there is no perf. With the variable set, the hot
 * path reads the clock around each part and counts how each stack was captured; at
 * exit one line goes to stderr. Without it, each part costs one predictable branch. */
#include "vt_stats.h"
#include "vt_global.h"

/* ------------------------------------------------------------------------ *
 *  Tallies
 * ------------------------------------------------------------------------ */
/* Process-wide on purpose: events come from every thread and the line is printed once
 * at exit. Relaxed adds: only the totals matter, and they are touched only when
 * VRAMTRACE_STATS=1. */
static _Atomic uint64_t vt_stat[VT_STAT_COUNT];

void vt_stats_add(int which, uint64_t v)
{
    atomic_fetch_add_explicit(&vt_stat[which], v, memory_order_relaxed);
}

/* ------------------------------------------------------------------------ *
 *  Report
 * ------------------------------------------------------------------------ */
static uint64_t get(int which) { return atomic_load_explicit(&vt_stat[which], memory_order_relaxed); }

static unsigned long long per(int ns, int n)
{
    uint64_t d = get(n);
    return (unsigned long long)(d ? get(ns) / d : 0);
}

void vt_stats_print(void)
{
    if (!vt_g.cfg.stats) return;
    vt_warn("stats: %llu events; ns per call: device %llu, stack %llu, ring %llu; "
            "stacks: %llu memo hits of %llu ns, %llu walked of %llu ns and %llu frames "
            "(memo reset %llu times), %llu by libunwind, "
            "%llu with Python frames or scopes (%llu of them from their walk's list, %llu from the thread's copy, "
            "%llu new; "
            "%llu ns to splice); Python frames and scopes: %llu ns and %llu frames "
            "(%llu looked up) per stack; "
            "%llu NVTX ranges; writer thread: %llu NVML samples of %llu us, %llu chunks of %llu us",
            (unsigned long long)get(VT_STAT_EVENTS),
            per(VT_STAT_NS_DEVICE, VT_STAT_N_DEVICE), per(VT_STAT_NS_STACK, VT_STAT_N_STACK),
            per(VT_STAT_NS_PUSH, VT_STAT_EVENTS),
            (unsigned long long)get(VT_STAT_MEMO_HIT), per(VT_STAT_NS_HIT, VT_STAT_MEMO_HIT),
            (unsigned long long)get(VT_STAT_WALKED), per(VT_STAT_NS_WALK, VT_STAT_WALKED),
            per(VT_STAT_FRAMES_WALKED, VT_STAT_WALKED),
            (unsigned long long)get(VT_STAT_MEMO_RESET),
            (unsigned long long)get(VT_STAT_FALLBACK), (unsigned long long)get(VT_STAT_EXTRA),
            (unsigned long long)get(VT_STAT_SPLICE_WALK), (unsigned long long)get(VT_STAT_SPLICE_LOCAL),
            (unsigned long long)get(VT_STAT_SPLICE_NEW),
            per(VT_STAT_NS_SPLICE, VT_STAT_EXTRA),
            per(VT_STAT_NS_EXTRA, VT_STAT_N_EXTRA), per(VT_STAT_PY_FRAMES, VT_STAT_N_EXTRA),
            per(VT_STAT_PY_LOOKUP, VT_STAT_N_EXTRA),
            (unsigned long long)get(VT_STAT_NVTX), (unsigned long long)get(VT_STAT_N_NVML), per(VT_STAT_NS_NVML, VT_STAT_N_NVML) / 1000,
            (unsigned long long)get(VT_STAT_N_FLUSH), per(VT_STAT_NS_FLUSH, VT_STAT_N_FLUSH) / 1000);
}
