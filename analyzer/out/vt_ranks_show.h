// SPDX-License-Identifier: MIT
/* vt_ranks_show.h - report's first section over several traces: one row per rank, the
 * skew between the highest and the lowest peak and what makes it, and the sum per
 * physical GPU (text, and the "ranks" object of vramtrace-report/1). */
#ifndef VT_RANKS_SHOW_H
#define VT_RANKS_SHOW_H

#include <stddef.h>
#include <stdint.h>

#include "vt_analyze.h"
#include "vt_json.h"
#include "vt_show.h"

/* "== ranks: ..." and its table, sites as fr says, at most `top` ranks' top lines;
 * nothing for fewer than two traces. */
void vt_ranks_show_text(const vt_analysis *a, const vt_frames *fr, uint64_t top);

/* One line for `run`'s summary over several traces: "3 ranks: rank 1 peaks highest,
 * 23.0 MiB, 1.53x rank 0; differs most: activations +8.00 MiB". Returns buf; empty for
 * fewer than two traces. */
char *vt_ranks_show_headline(char *buf, size_t n, const vt_analysis *a);

/* `"ranks": {...}` (docs/json-schema.md), or `"ranks": null` for fewer than two traces. */
void vt_ranks_show_json(vt_json *j, const vt_analysis *a);

#endif /* VT_RANKS_SHOW_H */
