// SPDX-License-Identifier: MIT
/* vt_eset.h - the selected memory (one device's, or all devices'): the groups that feed
 * it and their weights at the peak, over the trace or at the end. The pictures, the
 * series and the interchange formats weigh the same groups. */
#ifndef VT_ESET_H
#define VT_ESET_H

#include <stddef.h>
#include <stdint.h>

#include "vt_analysis.h"

/* ------------------------------------------------------------------------ *
 *  Selection
 * ------------------------------------------------------------------------ */
#define VT_ALL_DEVICES (-1000)  /* every device's memory together */

/* The tracker of the selected memory (a->global or one device's), or NULL. */
const vt_tracker *vt_series_tracker(const vt_analysis *a, int device);

/* Whether group g of a trace counts towards the selected memory, and its index among
 * g's trackers (for g->at_peak[k]); -1 when it does not count. */
int vt_series_group_tk(const vt_analysis *a, const vt_group *g, int device);

/* ------------------------------------------------------------------------ *
 *  Weights
 * ------------------------------------------------------------------------ */
typedef enum {
    VT_WHAT_PEAK = 0,     /* bytes live at the peak of the selected memory */
    VT_WHAT_ALLOCATED,    /* bytes allocated over the whole trace */
    VT_WHAT_LEAKED        /* bytes still live at the end */
} vt_what;

const char *vt_what_name(vt_what w);          /* "peak", "allocated", "leaked" */
int vt_what_parse(const char *s);             /* -1 when unknown */

typedef struct {
    const vt_group *g;
    int ti;                 /* trace index */
    int k;                  /* index of the selected tracker among g's */
} vt_egroup;

/* The groups of trace 0 that feed the selected memory (device memory of one device
 * or of all devices), and their sums. */
typedef struct {
    const vt_analysis *a;
    int device;
    const vt_tracker *tk;
    vt_egroup *g;
    size_t n;
    uint64_t sum[3];        /* per vt_what: sum[VT_WHAT_PEAK] == tk->peak */
} vt_eset;

/* Returns 0, or prints one line and returns 2. */
int vt_eset_init(vt_eset *e, const vt_analysis *a, int device);
void vt_eset_free(vt_eset *e);
uint64_t vt_egroup_bytes(const vt_eset *e, const vt_egroup *g, vt_what w);
uint64_t vt_egroup_count(const vt_eset *e, const vt_egroup *g, vt_what w);
/* ------------------------------------------------------------------------ *
 *  Over the run, each byte once (Perfetto's end heap profile)
 * ------------------------------------------------------------------------ */
/* What a group allocated and freed over the run such that allocated - freed is what it
 * holds at the end (g->live), with PyTorch's blocks traced (docs/pictures.md, "blocks
 * mode"): a block is allocated and freed by its stack; the driver allocation that was a
 * segment is its blocks' and the idle cache's, so its stack counts none of its segment
 * bytes (its other allocations as usual); the idle group is allocated the idle bytes
 * at the end, by no call. Without blocks: total_bytes, total_bytes - live, as the
 * other weights. */
typedef struct {
    uint64_t allocated, freed;
    uint64_t allocs, frees;
} vt_egroup_end;

/* Fills out[i] for e->g[i]. Returns 0, or -1 when out of memory. */
int vt_eset_end(const vt_eset *e, vt_egroup_end *out);

/* "device 0 (NVIDIA H200)" or "all devices" */
const char *vt_eset_label(const vt_eset *e, char *buf, size_t n);

#endif /* VT_ESET_H */
