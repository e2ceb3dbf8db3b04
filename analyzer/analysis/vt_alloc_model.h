/* SPDX-License-Identifier: MIT */
/* vt_alloc_model.h - allocator models: what an allocator would reserve for a sequence of
 * allocations and frees (`vramtrace fit`, `forecast`; docs/fit.md).
 *
 * One interface, four models, each in a file of its own:
 *   exact      the bytes asked, nothing rounded (vt_alloc_exact.c)
 *   caching    PyTorch's native CUDA caching allocator (vt_alloc_caching.c)
 *   expandable the same with expandable_segments:True (vt_alloc_caching.c, its mode)
 *   async      the driver's stream-ordered pool behind cudaMallocAsync (vt_alloc_async.c)
 * A model sees requests (size, stream) and releases of what it returned; it keeps what
 * is reserved from the device (segments, mapped pages) and what is allocated (block
 * sizes as the allocator counts them), their peaks, and fails a request the way the
 * allocator would when the device has `limit` bytes for it. */
#ifndef VT_ALLOC_MODEL_H
#define VT_ALLOC_MODEL_H

#include <stddef.h>
#include <stdint.h>

typedef enum { VT_AM_EXACT = 0, VT_AM_CACHING, VT_AM_EXPANDABLE, VT_AM_ASYNC, VT_AM_N } vt_am_kind;

/* "exact", "caching", "expandable", "async" */
const char *vt_am_name(vt_am_kind k);
/* Parses a name as above; -1 when unknown. */
int vt_am_parse(const char *name);

#define VT_AM_RP2_INTERVALS 16  /* roundup_power2_divisions: 1 MiB, 2 MiB, ... 32 GiB and up */

/* PYTORCH_CUDA_ALLOC_CONF knobs the models read. */
typedef struct {
    uint64_t max_split_size;            /* bytes; UINT64_MAX: none (the default) */
    uint32_t rp2_div[VT_AM_RP2_INTERVALS]; /* divisions per size interval; 0 or 1: none */
    double   gc_threshold;              /* garbage_collection_threshold; 0: off */
    int      expandable;                /* expandable_segments:True was given */
    int      backend_async;             /* backend:cudaMallocAsync was given */
} vt_am_conf;

/* The defaults (no knob set). */
void vt_am_conf_init(vt_am_conf *c);

/* Parses a PYTORCH_CUDA_ALLOC_CONF string ("max_split_size_mb:128,roundup_power2_divisions:4",
 * "roundup_power2_divisions:[256:1,512:2,>:4]", "garbage_collection_threshold:0.6",
 * "expandable_segments:True", "backend:native|cudaMallocAsync") into c. Knobs that do
 * not change the layout (pinned_*, release_lock_on_cudamalloc, ...) are accepted and
 * ignored. Returns 0, or -1 with a one-line message in err. */
int vt_am_conf_parse(vt_am_conf *c, const char *s, char *err, size_t errlen);

/* What a model has seen so far. */
typedef struct {
    uint64_t reserved, allocated;           /* now */
    uint64_t peak_reserved, peak_allocated;
    uint64_t allocated_at_peak;             /* the most allocated while reserved was at its peak */
    uint64_t segments, peak_segments;       /* cudaMalloc'd segments or mapped pages now */
    uint64_t device_allocs, device_frees;   /* cudaMalloc/map, cudaFree/unmap calls */
    uint64_t retries;                       /* requests that freed the cache and retried */
    uint64_t requests;
} vt_am_stats;

typedef struct vt_am vt_am;

#define VT_AM_NO_LIMIT UINT64_MAX

/* A model of kind k with the knobs of conf (NULL: defaults), for a device with `limit`
 * bytes for the allocator (VT_AM_NO_LIMIT: never fails). With a limit, the
 * garbage_collection_threshold knob applies to it as it does to
 * set_per_process_memory_fraction's. NULL when out of memory. */
vt_am *vt_am_new(vt_am_kind k, const vt_am_conf *conf, uint64_t limit);
void vt_am_free(vt_am *m);
/* Changes the limit from the next request on (memory others took or gave back). */
void vt_am_set_limit(vt_am *m, uint64_t limit);

/* Results of vt_am_alloc */
enum { VT_AM_OK = 0, VT_AM_OOM = 1, VT_AM_NOMEM = 2 };

/* Asks for size bytes on stream (a small index, 0..65535). On VT_AM_OK *handle names
 * the block for vt_am_release. VT_AM_OOM: the allocator would raise out of memory here
 * (after freeing its cache and retrying, as it does); the model is unchanged but for
 * what that cache release did. */
int vt_am_alloc(vt_am *m, uint64_t size, uint32_t stream, uint32_t *handle);
void vt_am_release(vt_am *m, uint32_t handle);

const vt_am_stats *vt_am_stats_of(const vt_am *m);

/* The block sizes the caching allocator would use: the rounding of round_size (512-byte
 * steps, or a power-of-two division), and the segment a new request of that size gets
 * (get_allocation_size). Exposed for the tests and docs/fit.md's examples. */
uint64_t vt_am_round_size(const vt_am_conf *c, uint64_t size);
uint64_t vt_am_segment_size(uint64_t rounded);

#endif /* VT_ALLOC_MODEL_H */
