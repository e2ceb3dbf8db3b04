// SPDX-License-Identifier: MIT
/* vt_show_rows.h - rows of sites as the commands print them: those that read alike
 * under --frames summed into one, and a row as JSON. */
#ifndef VT_SHOW_ROWS_H
#define VT_SHOW_ROWS_H

#include <stddef.h>

#include "vt_json.h"
#include "vt_rows.h"
#include "vt_show.h"

/* Rows of sites (vt_rows by VT_BY_SITE) that read alike under fr summed into one (the
 * first, largest, stands for them), then sorted again. Returns the new count. */
size_t vt_show_group_rows(const vt_analysis *a, const vt_frames *fr, vt_row *rows, size_t n);
/* The rows of sites holding bytes at `at` for tracker tk, grouped as fv shows them
 * (vt_show_group_rows), largest first; (size_t)-1 when out of memory (as vt_rows). */
size_t vt_show_site_rows(const vt_analysis *a, const vt_tracker *tk, vt_at at, const vt_frames *fv, vt_row **out);
/* The site of a row of sites (vt_show_site), or what the row of PyTorch's idle segment
 * bytes (VT_ROW_IDLE) holds: they are no site's. */
void vt_show_row_site(FILE *f, const vt_analysis *a, uint32_t key, const vt_frames *fv, int indent);
/* A row of sites as a JSON object: bytes, live_count, count, total_bytes, frames. */
void vt_show_row_json(vt_json *j, const vt_analysis *a, vt_by by, const vt_row *r);

#endif /* VT_SHOW_ROWS_H */
