// SPDX-License-Identifier: MIT
/* vt_series.h - memory over time: one extra streaming pass over a trace that
 * vt_analyze has already read, keeping the live bytes of a few series (categories,
 * top sites or kinds) and reducing them to a fixed number of time buckets.
 *
 * What a bucket holds (docs/pictures.md says how it is drawn):
 *   - min, max: the lowest and the highest total of the selected device memory at
 *     any moment inside the bucket's time range (the state carried in from the
 *     previous bucket counts as a moment at the bucket's start);
 *   - at_max[s]: the live bytes of each series at the first moment the bucket
 *     reached max, so the series of a bucket sum to max exactly;
 *   - at_min[s] (only with keep_min): the same at the first moment of min.
 * The highest max over all buckets is therefore the exact peak: downsampling never
 * loses it, however many events fall in one bucket.
 *
 * Memory: O(buckets x series) plus the replay's live set; never O(events). */
#ifndef VT_SERIES_H
#define VT_SERIES_H

#include <stddef.h>
#include <stdint.h>

#include "vt_cat_list.h"
#include "vt_eset.h"
#include "vt_rows.h"

#define VT_SERIES_MAX  64
/* The keys of the series of PyTorch's idle segment bytes, by category (vt_series_def.key):
 * in its segments, and in its private pools' (CUDA graphs'). */
#define VT_SERIES_IDLE VT_CAT_N
#define VT_SERIES_POOL (VT_CAT_N + 1)

typedef enum { VT_SERIES_BY_CATEGORY, VT_SERIES_BY_SITE, VT_SERIES_BY_KIND, VT_SERIES_BY_LAYER } vt_series_by;

typedef struct {
    vt_series_by by;
    int      device;      /* CUDA ordinal, or VT_ALL_DEVICES */
    unsigned top;         /* --by site|layer: this many, then "other" */
    size_t   nbuckets;
    uint64_t from, to;    /* time range in ns since the trace start; to = UINT64_MAX: its end */
    int      keep_min;    /* also keep the series at each bucket's min */
} vt_series_opts;

typedef struct {
    char    *name;        /* legend text */
    char    *detail;      /* longer text: a site's frames, a category's meaning */
    uint64_t at_peak;     /* bytes at the peak of the selected memory */
    uint64_t total_bytes; /* bytes allocated over the whole trace */
    int      key;         /* vt_cat, kind, site index or layer name id; -1 for "other" */
} vt_series_def;

typedef struct {
    uint64_t min, max;
    uint64_t tmin, tmax;  /* first moments of min and max */
    uint64_t omin, omax;  /* the same moments as the count of records the replay had
                           * applied then (vt_moments.h replays to them) */
    uint64_t nvml;        /* highest NVML figure sampled in the bucket, + 1; 0 = no sample */
    uint64_t events;      /* memory events inside the bucket */
    uint64_t blocks_max;  /* PyTorch's blocks at the moment of max: of the moments at the
                           * highest total, the one the blocks are highest (the segments
                           * keep the total flat while blocks come and go), as report's
                           * peak is */
} vt_bucket;

typedef struct {
    vt_series_by by;
    int device;
    size_t nseries;
    vt_series_def *series;
    size_t nbuckets;
    vt_bucket *b;
    uint64_t *at_max;     /* nbuckets x nseries, bucket-major */
    uint64_t *at_min;     /* the same, or NULL */
    uint64_t t0, t1;      /* the buckets cover [t0, t1]: bucket i starts at t0 + i*(t1-t0+1)/n */
    uint64_t span_end;    /* the trace's last event time */
    uint64_t peak, peak_time;   /* of the selected memory, from the analysis */
    uint64_t end_live;          /* live at the end */
    int nvml_proc;        /* the NVML line is this process's figure (else the device's) */
    int has_nvml;
    uint64_t mismatch;    /* series that did not add up to the total (should be 0) */
} vt_series;

/* Runs the pass over trace 0 of a. Returns 0, or prints one line and returns 2. */
int vt_series_build(vt_series *s, const vt_analysis *a, const vt_series_opts *o);
void vt_series_free(vt_series *s);

/* Start time of bucket i (i = nbuckets gives the end of the range). */
uint64_t vt_series_bucket_start(const vt_series *s, size_t i);

/* The key that matches a group of another replay of the trace to the first pass's:
 * its stack, kind and device. */
uint64_t vt_series_group_key(uint32_t stack_id, unsigned kind, int device);

/* The category of group g of trace ti. */
vt_cat vt_series_group_cat(const vt_analysis *a, int ti, const vt_group *g);

/* Its name ("weights", ...). */
const char *vt_series_cat_name(vt_cat c);

/* The colour of series i ("#rrggbb"): categories have fixed colours, sites and kinds
 * take a palette in order, "other" is grey. */
const char *vt_html_series_color(const vt_series *s, size_t i);

#endif /* VT_SERIES_H */
