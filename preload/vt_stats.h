// SPDX-License-Identifier: MIT
/* vt_stats.h - self-measurement of the recorder, only with VRAMTRACE_STATS=1 (vt_stats.c). */
#ifndef VT_STATS_H
#define VT_STATS_H

#include <stdint.h>

enum {
    VT_STAT_EVENTS, VT_STAT_NS_PUSH,        /* events recorded; ns building and pushing them */
    VT_STAT_N_DEVICE, VT_STAT_NS_DEVICE,    /* device lookups (cuCtxGetDevice); their ns */
    VT_STAT_N_STACK, VT_STAT_NS_STACK,      /* stack captures; their ns */
    VT_STAT_MEMO_HIT, VT_STAT_WALKED, VT_STAT_FALLBACK, VT_STAT_EXTRA,  /* how stacks were had */
    VT_STAT_N_NVML, VT_STAT_NS_NVML,        /* NVML samples (writer thread); their ns */
    VT_STAT_N_FLUSH, VT_STAT_NS_FLUSH,      /* chunks compressed and written; their ns */
    VT_STAT_NVTX,                           /* NVTX ranges opened (push or start) */
    VT_STAT_MEMO_RESET,                     /* times a thread's memo filled and started over */
    VT_STAT_NS_HIT, VT_STAT_NS_WALK,        /* ns in vt_unwind, memo hits and the others */
    VT_STAT_FRAMES_WALKED,                  /* frames of the walks (not memo hits) */
    VT_STAT_N_EXTRA, VT_STAT_NS_EXTRA,      /* Python frames and scopes collected; their ns */
    VT_STAT_PY_FRAMES, VT_STAT_PY_LOOKUP,   /* Python frames; those the thread had not looked up before */
    VT_STAT_NS_SPLICE,                      /* ns placing them and finding the combined stack's id */
    VT_STAT_SPLICE_WALK, VT_STAT_SPLICE_LOCAL, VT_STAT_SPLICE_NEW, /* combined stacks: on the walk's own
                                                                      list; in the thread's copy; never seen */
    VT_STAT_COUNT
};
void vt_stats_add(int which, uint64_t v);
/* One line on stderr (at exit) when cfg.stats is set. */
void vt_stats_print(void);

#endif /* VT_STATS_H */
