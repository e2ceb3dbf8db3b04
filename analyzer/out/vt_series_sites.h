// SPDX-License-Identifier: MIT
/* vt_series_sites.h - the sites of `timeline --by site`, named and grouped as report and
 * top show them (vt_show.h's user view: the op, the innermost user frame, the Python
 * chain), so a legend entry reads like the report's row it is. */
#ifndef VT_SERIES_SITES_H
#define VT_SERIES_SITES_H

#include <stddef.h>
#include <stdint.h>

#include "vt_analyze.h"
#include "vt_table.h"

typedef struct {
    char *label;          /* one line: up to three lines of the view joined by " <- " */
    uint32_t site;        /* the largest site of those that read alike (its detail) */
    uint64_t at_peak;     /* bytes at the peak of tk, of all of them */
} vt_site_series;

typedef struct {
    vt_site_series *top;  /* largest at the peak first */
    size_t ntop;
    size_t nrest;         /* rows of sites left for "other" */
    vt_idmap of;          /* row key (site index, VT_ROW_IDLE) -> index in top */
} vt_site_set;

/* The `top` largest groups of sites at the peak of tk. 0, or -1 when out of memory. */
int vt_series_sites(vt_site_set *out, const vt_analysis *a, const vt_tracker *tk, size_t top);
void vt_series_sites_free(vt_site_set *s);

#endif /* VT_SERIES_SITES_H */
