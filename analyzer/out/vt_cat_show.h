// SPDX-License-Identifier: MIT
/* vt_cat_show.h - how the commands print categories, in text and JSON
 * (docs/categories.md, docs/json-schema.md). */
#ifndef VT_CAT_SHOW_H
#define VT_CAT_SHOW_H

#include <stdint.h>
#include <stdio.h>

#include "vt_cat.h"
#include "vt_json.h"

/* Extra rows of a category block. */
typedef struct {
    int has_unexplained;    /* NVML knew the process's figure */
    uint64_t unexplained;   /* NVML process figure minus traced bytes, at its maximum */
    uint64_t nvml_time;     /* when that maximum was sampled */
    int has_pool;           /* the driver pools were sampled (vt_gap.h) */
    uint64_t pool_slack;    /* what they held freed then; taken out of `unexplained` */
} vt_cat_extra;

/* "  by category at the peak:" and its rows, for the groups feeding tk. `whole` is the
 * 100% of the percentages. Prints nothing when there are no bytes. */
void vt_cat_show_text(const vt_analysis *a, const vt_tracker *tk, vt_at at, uint64_t whole,
                      const vt_cat_extra *extra);

/* `"key": [ {category, bytes, live_count, count, total_bytes, how, rule_bytes,
 * inferred_bytes}, ... ]`: in vt_cat order, each category that holds bytes then or made
 * allocations at all; host_pinned left out (it has its own object). */
void vt_cat_show_json_rows(vt_json *j, const char *key, const vt_analysis *a, const vt_tracker *tk, vt_at at);

/* `"categories": {mode, approximate, cache_bytes, idle_cache_bytes_at_end,
 * unexplained_bytes, by_rule: [...]}` for tracker tk. */
void vt_cat_show_json_info(vt_json *j, const vt_analysis *a, const vt_tracker *tk, const vt_cat_extra *extra);

/* `"iterations": {count, hysteresis_bytes, window_events, window_full, list: [...]}` of trace ti. */
void vt_cat_show_json_iterations(vt_json *j, const vt_analysis *a, int ti);

/* `top --by category`: rows with bytes, largest first, at most `top` of them; text
 * columns as top's other rows, then the category and how it was decided. */
void vt_cat_show_top_text(const vt_analysis *a, const vt_tracker *tk, vt_at at, uint64_t whole, uint64_t top);
void vt_cat_show_top_json(vt_json *j, const char *key, const vt_analysis *a, const vt_tracker *tk, vt_at at,
                          uint64_t top);

#endif /* VT_CAT_SHOW_H */
