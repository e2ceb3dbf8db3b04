// SPDX-License-Identifier: MIT
/* vt_analyze.h - one analysis: open traces, replay them (merged on a common clock when
 * there are several), symbolize and fold their stacks into sites, and sum groups into
 * rows by site, function, module or kind. Every command but dump starts here. */
#ifndef VT_ANALYZE_H
#define VT_ANALYZE_H

#include <stdint.h>

#include "vt_analysis.h"
#include "vt_replay.h"

/* Reads and analyses the traces. On a file that cannot be analysed at all (missing,
 * not a trace, another major version) prints one line and returns 2; a trace that is
 * cut short or damaged is read as far as it goes, with a warning, and returns 0. */
int vt_analyze(vt_analysis *a, int n, char **paths, const vt_analyze_opts *o);
void vt_analysis_free(vt_analysis *a);

/* The physical GPU behind a device of a trace, as the merged devices name it (vt_mdev's
 * label): "GPU-<uuid>", or "<host>:<ordinal>" when the trace has no UUID. */
void vt_device_label(const vt_trace *t, int device, char *buf, size_t n);

/* ------------------------------------------------------------------------ *
 *  Rows: groups summed by a key
 * ------------------------------------------------------------------------ */
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

/* Sorts rows by bytes (or by `alt` when set: for diffs) as vt_rows does. */
void vt_rows_sort(const vt_analysis *a, vt_by by, vt_row *rows, size_t n);

/* The trace's devices that hold something to report, in ordinal order. */
size_t vt_trace_devices(const vt_trace *t, int *ordinals, size_t max);

#endif /* VT_ANALYZE_H */
