// SPDX-License-Identifier: MIT
/* vt_ranks.h - the ranks of one job side by side: each trace's peak (on its busiest
 * device), its categories, top layer and site there; the skew between the highest and the
 * lowest peak and what makes it; and each physical GPU with the processes on it
 * (docs/cli.md, "Several ranks"). */
#ifndef VT_RANKS_H
#define VT_RANKS_H

#include <stddef.h>
#include <stdint.h>

#include "vt_analysis.h"
#include "vt_cat.h"

/* One trace (a rank, or a process without one). */
typedef struct {
    int      trace;         /* index in vt_analysis.t */
    int      rank;          /* from the header; -1: none was set */
    int      local_rank;    /* -1: none, or a trace written before the header had it */
    uint32_t pid;
    int      device;        /* the CUDA ordinal of its largest peak; -1 with tk NULL */
    const vt_tracker *tk;   /* that device's tracker (NULL: no device memory) */
    uint64_t peak;          /* tk's peak */
    uint64_t peak_time;     /* ns since its own trace's start */
    uint64_t peak_rt;       /* the same moment on the realtime clock */
    uint64_t cat[VT_CAT_N]; /* by category at that peak */
    uint32_t layer;         /* its largest layer at the peak (vt_sites.names id); UINT32_MAX: none */
    uint64_t layer_bytes;
    size_t   gpu;           /* index in vt_analysis.mdev of that device; SIZE_MAX: not merged */
} vt_rank;

typedef struct {
    vt_rank *r;             /* by rank (those without one last), then pid */
    size_t   n;
    int      any_rank;      /* some trace has a rank */
    uint64_t t0;            /* the earliest start (realtime ns): time 0 of the common clock */
    size_t   hi, lo;        /* the highest and the lowest peak (indices in r) */
    int      cat;           /* the category whose bytes differ most between hi and lo; -1: none */
    int64_t  cat_delta;     /* hi's minus lo's */
    uint32_t site;          /* the site whose bytes at the peaks differ most; UINT32_MAX: none */
    int64_t  site_delta;
} vt_ranks;

/* Fills rk for an analysis of several traces. Returns 0, or -1 when out of memory. */
int vt_ranks_of(const vt_analysis *a, vt_ranks *rk);
void vt_ranks_free(vt_ranks *rk);

/* The trace's local rank (the header's, when the writer set it), or -1. */
int vt_trace_local_rank(const vt_trace *t);

/* hi's peak over lo's; 0 when lo holds nothing. */
double vt_ranks_skew(const vt_ranks *rk);

/* Whether trace ti used merged device (GPU) m. */
int vt_ranks_on_gpu(const vt_analysis *a, int ti, size_t m);

#endif /* VT_RANKS_H */
