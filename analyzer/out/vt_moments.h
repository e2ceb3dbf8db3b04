// SPDX-License-Identifier: MIT
/* vt_moments.h - the top sites live at the sampled moments of a timeline: each
 * bucket's highest and lowest moment (vt_series.h), so that clicking the chart shows
 * what `vramtrace top --at TIME` would list there (docs/pictures.md).
 *
 * One more streaming pass replays the trace to each moment by its record count
 * (vt_bucket.omax, omin) and, there, sums the live bytes of the selected memory by
 * site as the text views print it (sites that read alike are one row, as in `top`).
 * Moments that fall on the same record count (empty buckets carry the state in) are one
 * state; a row (site, category, bytes, allocations) that several states share is kept
 * once. Size: at most 2 x buckets states of `top` rows each, whatever the number of
 * events; memory: the replay's live set plus that. */
#ifndef VT_MOMENTS_H
#define VT_MOMENTS_H

#include <stddef.h>
#include <stdint.h>

#include "vt_analyze.h"
#include "vt_series.h"

typedef struct {
    uint32_t site;          /* index into vt_moments.sites */
    uint8_t  cat;           /* vt_cat holding most of its bytes then */
    uint64_t bytes, count;  /* live then, and the allocations they are */
} vt_moment_row;

typedef struct {
    char *label;            /* one line: the op, the innermost user frame, the Python chain */
    char *detail;           /* several lines, as `top` prints the site */
    char *layer;            /* its layer (vt_row_name of VT_BY_LAYER) */
} vt_moment_site;

typedef struct {
    unsigned top;           /* rows kept per state */
    size_t nstates;
    uint64_t *total;        /* per state: the selected memory live then */
    uint64_t *rest_bytes;   /* per state: bytes of the sites past the top ones */
    uint32_t *rest_sites;   /*            and how many sites those are */
    uint32_t *first;        /* per state + 1: its rows are rowix[first[i] .. first[i+1]) */
    uint32_t *rowix;        /* into rows, largest first */
    size_t nrowix;
    vt_moment_row *rows;    /* distinct rows */
    size_t nrows;
    vt_moment_site *sites;  /* sites named by some row */
    size_t nsites;
    uint32_t *bmax, *bmin;  /* per bucket of the series: the state at its highest and lowest moment */
    size_t nbuckets;
} vt_moments;

/* Builds the moments of series s, made from trace ti of a (a page with a lane per
 * trace keeps one each), keeping `top` rows per state. Returns 0, or prints one line
 * and returns 2. */
int vt_moments_build(vt_moments *m, const vt_analysis *a, int ti, const vt_series *s, unsigned top);
void vt_moments_free(vt_moments *m);

#endif /* VT_MOMENTS_H */
