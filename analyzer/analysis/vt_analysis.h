// SPDX-License-Identifier: MIT
/* vt_analysis.h - what one analysis holds (its traces, their replays, sites and merged
 * devices), apart from the functions that make it (vt_analyze.h), so that the analyses
 * over it (categories, vt_cat.h) need not include those that call them. */
#ifndef VT_ANALYSIS_H
#define VT_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>

#include "vt_reader.h"
#include "vt_replay.h"
#include "vt_sites.h"
#include "vt_sym.h"

struct vt_cat_opts;
struct vt_cat_trace;
struct vt_rules;

typedef struct {
    uint64_t stop_time;   /* replay records up to this time only; UINT64_MAX: all */
    int      no_merge;    /* several traces, analysed each on its own (diff) */
    struct vt_cat_opts *cat; /* category rules (vt_cat_list.h); NULL: the built-in ones */
    const char *stop_mark;   /* replay up to the first mark of this name (--at mark:NAME); NULL: none */
} vt_analyze_opts;

/* One device as seen by all traces together (a GPU shared by several processes). */
typedef struct {
    char     label[96];   /* "GPU-<uuid>" or "<host>:<ordinal>" */
    char     name[128];
    int      ordinal;     /* in the first trace that used it */
    vt_tracker tk;
} vt_mdev;

typedef struct {
    const char *path;
    vt_reader rd;
    vt_replay *rp;
    vt_sym *sym;
    struct vt_cat_trace *cat; /* iterations found, lifetimes' verdicts (vt_cat.h) */
} vt_trace;

typedef struct {
    int n;
    vt_trace *t;
    vt_sites sites;
    vt_tracker global;    /* device memory of all devices (of all traces) together */
    vt_mdev **mdev;       /* merged devices, when n > 1 and merging */
    size_t nmdev;
    int merged;
    struct vt_rules *rules;  /* the category rules used (vt_cat.h), or NULL */
} vt_analysis;

typedef enum { VT_BY_SITE, VT_BY_FUNCTION, VT_BY_MODULE, VT_BY_KIND, VT_BY_CATEGORY, VT_BY_LAYER } vt_by;
typedef enum { VT_AT_PEAK, VT_AT_END } vt_at;

#endif /* VT_ANALYSIS_H */
