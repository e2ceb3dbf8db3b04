// SPDX-License-Identifier: MIT
/* vt_rows.h - an analysis' groups summed into rows by site, function, module, kind,
 * category or layer: what the views and the pictures rank, apart from the reading
 * that makes the analysis (vt_analyze.h). */
#ifndef VT_ROWS_H
#define VT_ROWS_H

#include <stddef.h>
#include <stdint.h>

#include "vt_analysis.h"

typedef struct {
    uint32_t key;         /* site index, vt_sites.names id (UINT32_MAX: no layer), kind, or vt_cat */
    uint64_t bytes;       /* at the peak or at the end */
    uint64_t count;       /* allocations those bytes are made of */
    uint64_t nallocs;     /* allocations made, over the whole trace */
    uint64_t total_bytes; /* bytes allocated, over the whole trace */
    uint64_t max_bytes;   /* VT_BY_LAYER: the most the layer held on one device at any time */
    uint64_t max_time;    /* VT_BY_LAYER: when (ns since its trace's start) */
} vt_row;

/* Sums the groups of all traces that feed tracker tk, keyed by `by`, with their value
 * at tk's peak or at the end. Rows with no bytes and no allocations are left out.
 * Sorted by bytes, then bytes allocated, then key text. Returns the row count (*out
 * is malloc'ed), or (size_t)-1 when out of memory. */
size_t vt_rows(const vt_analysis *a, const vt_tracker *tk, vt_at at, vt_by by, vt_row **out);

/* The same for the groups live at one OOM event of trace ti. */
size_t vt_rows_oom(const vt_analysis *a, int ti, const vt_oom *o, vt_by by, vt_row **out);

/* Text of a row key. */
const char *vt_row_name(const vt_analysis *a, vt_by by, uint32_t key);
/* The key of the idle bytes in PyTorch's segments (VT_GROUP_IDLE) in rows by site and by
 * layer: they were allocated by no stack and belong to no layer. */
#define VT_ROW_IDLE (UINT32_MAX - 1)
#define VT_ROW_IDLE_NAME "(idle cache)"
#define VT_ROW_IDLE_WHAT "PyTorch's segments, holding no tensor"
/* The same for the idle bytes of private pools' segments (VT_GROUP_POOL): keys from
 * VT_ROW_POOL up are no site's and no layer's. */
#define VT_ROW_POOL (UINT32_MAX - 2)
#define VT_ROW_POOL_NAME "(CUDA graph pool)"
#define VT_ROW_POOL_WHAT "a private pool's segments (a CUDA graph's), holding no tensor: the graph's kernels use them at each replay"

/* Sorts rows by bytes (or by `alt` when set: for diffs) as vt_rows does. */
void vt_rows_sort(const vt_analysis *a, vt_by by, vt_row *rows, size_t n);

/* Some trace of a has a layer (rows by layer have something to show). */
int vt_layer_any(const vt_analysis *a);

#endif /* VT_ROWS_H */
