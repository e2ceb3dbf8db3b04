// SPDX-License-Identifier: MIT
/* vt_analyze.h - one analysis: open traces, replay them (merged on a common clock when
 * there are several), symbolize and fold their stacks into sites; vt_rows.h sums their
 * groups into rows by site, function, module or kind. Every command but dump starts here. */
#ifndef VT_ANALYZE_H
#define VT_ANALYZE_H

#include <stdint.h>

#include "vt_analysis.h"
#include "vt_replay.h"
#include "vt_rows.h"

/* Reads and analyses the traces. On a file that cannot be analysed at all (missing,
 * not a trace, another major version) prints one line and returns 2; a trace that is
 * cut short or damaged is read as far as it goes, with a warning, and returns 0. */
int vt_analyze(vt_analysis *a, int n, char **paths, const vt_analyze_opts *o);
/* vt_analyze, and with one trace, tap sees its ALLOC and FREE records with their
 * streams as they are replayed (vt_replay_read.h; NULL: none). */
struct vt_replay_tap;
int vt_analyze_tap(vt_analysis *a, int n, char **paths, const vt_analyze_opts *o, const struct vt_replay_tap *tap);
void vt_analysis_free(vt_analysis *a);

/* The physical GPU behind a device of a trace, as the merged devices name it (vt_mdev's
 * label): "GPU-<uuid>", or "<host>:<ordinal>" when the trace has no UUID. */
void vt_device_label(const vt_trace *t, int device, char *buf, size_t n);

/* The trace's devices that hold something to report, in ordinal order. */
size_t vt_trace_devices(const vt_trace *t, int *ordinals, size_t max);

#endif /* VT_ANALYZE_H */
