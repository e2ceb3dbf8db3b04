// SPDX-License-Identifier: MIT
/* vt_export_counters.h - the counter points both Perfetto exports write (docs/pictures.md):
 * for each bucket of a time series, the moments of its lowest and of its highest total,
 * each with every series' bytes at that moment, in time order; a track's point only
 * when its value changed. So the peak and every valley deeper than a bucket survive. */
#ifndef VT_EXPORT_COUNTERS_H
#define VT_EXPORT_COUNTERS_H

#include <stddef.h>
#include <stdint.h>

#include "vt_series.h"

/* Track track of series s: 0..nseries-1 a series, nseries the total of the selected
 * memory, nseries + 1 the NVML figure (one point per bucket that sampled it). */
typedef void (*vt_counter_fn)(void *ctx, size_t track, uint64_t time, uint64_t bytes);

/* Calls fn for every point, in time order. 0, or -1 when out of memory. */
int vt_export_counters(const vt_series *s, vt_counter_fn fn, void *ctx);

#endif /* VT_EXPORT_COUNTERS_H */
