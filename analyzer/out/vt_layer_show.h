// SPDX-License-Identifier: MIT
/* vt_layer_show.h - the "by layer" sections of report and diff (text and JSON,
 * docs/json-schema.md). Shown only when some trace of the analysis has layers (scope
 * frames, or Python frames of the program's own code). */
#ifndef VT_LAYER_SHOW_H
#define VT_LAYER_SHOW_H

#include <stdint.h>

#include "vt_analyze.h"
#include "vt_json.h"

/* "by layer at the peak:" for tracker tk (whole = its peak): bytes, share, the most the
 * layer held at any time; top rows at most. */
void vt_layer_show_text(const vt_analysis *a, const vt_tracker *tk, uint64_t whole, uint64_t top);
void vt_layer_show_json(vt_json *j, const char *key, const vt_analysis *a, const vt_tracker *tk, uint64_t top);

/* Layers at the peak of two runs (trackers tb, tn), sorted by growth. */
void vt_layer_diff_text(const vt_analysis *a, const vt_tracker *tb, const vt_tracker *tn, uint64_t top);
void vt_layer_diff_json(vt_json *j, const char *key, const vt_analysis *a, const vt_tracker *tb,
                        const vt_tracker *tn, uint64_t top);

#endif /* VT_LAYER_SHOW_H */
