/* SPDX-License-Identifier: MIT */
/* vt_fit.h - replays one device's allocations through several allocator models at once
 * (`vramtrace fit`, `forecast`; docs/fit.md).
 *
 * The models take every ALLOC and FREE of device memory with its stream, in file
 * (time) order: during vt_analyze's pass where they can (vt_fit_early.h), else in a
 * second pass over the trace (vt_fit_read). Each allocation goes to every model; a model
 * whose request fails keeps the first failure and takes no more events (the program
 * would have stopped there). Memory is O(live allocations x models), never O(events). */
#ifndef VT_FIT_H
#define VT_FIT_H

#include <stdint.h>

#include "vt_alloc_model.h"
#include "vt_cat.h"
#include "vt_reader.h"

#define VT_FIT_MAX_MODELS 16

/* One allocation as the models see it. */
typedef struct {
    uint64_t time;      /* ns since the trace's start */
    uint64_t size;      /* bytes asked */
    uint64_t stream;    /* CUstream */
    uint32_t stack_id;
    uint8_t  kind;
    uint8_t  cat;       /* vt_cat of its group */
    uint8_t  outside;   /* not the framework allocator's: held as asked, by no model */
} vt_fit_req;

typedef struct {
    vt_am *m;
    uint64_t limit;         /* the device's bytes for the allocator and what is outside it
                             * (VT_AM_NO_LIMIT: none); the model gets what outside
                             * allocations leave of it, request by request */
    int failed;             /* a request failed: fail holds the first */
    vt_fit_req fail;
    uint64_t live_at_fail;  /* bytes asked that were live then */
    uint64_t outside_at_fail; /* of which outside the allocator */
    uint64_t cat_at_peak[VT_CAT_N]; /* bytes asked, by category, when reserved peaked */
    uint64_t need;          /* the most, over the requests that grew its reservation, of
                             * reserved then + the bytes live outside the allocator: a
                             * model capped at a limit of need or more makes the same
                             * moves as this one (vt_fit_early.c) */
} vt_fit_slot;

typedef struct vt_fit_sim vt_fit_sim;

/* A simulation over n models (at most VT_FIT_MAX_MODELS) with their limits (NULL: none);
 * the models are its own from now on. NULL when out of memory (the models are freed then). */
vt_fit_sim *vt_fit_sim_new(vt_am **models, const uint64_t *limits, int n);
void vt_fit_sim_free(vt_fit_sim *s);

/* An allocation at key (its address) and its free. Return 0, or -1 when out of
 * memory. A free of an unknown key is ignored; an allocation over a live key ends it. */
int vt_fit_sim_alloc(vt_fit_sim *s, uint64_t key, const vt_fit_req *r);
void vt_fit_sim_free_key(vt_fit_sim *s, uint64_t key);
/* An allocation or free at key comes soon: starts loading its place in the table of
 * live allocations, a cache miss otherwise (the table is tens of MiB for 100k live). */
void vt_fit_sim_prefetch(const vt_fit_sim *s, uint64_t key);
/* The same key, some events after vt_fit_sim_prefetch (its entry loaded by then): starts
 * loading what a free of it will touch next (vt_fit_sim_by_stack's sum of its stack). */
void vt_fit_sim_prefetch_late(const vt_fit_sim *s, uint64_t key);

/* Slot i: a model's, or a twin's (vt_fit_sim_add_twin): the slot it copies. */
const vt_fit_slot *vt_fit_sim_slot(const vt_fit_sim *s, int i);
/* Adds a slot that reads as slot `of` (a model capped where it never came near the cap
 * is its uncapped model's twin). Returns its index, or -1 when full. */
int vt_fit_sim_add_twin(vt_fit_sim *s, int of);

/* Categories after the pass, for a pass that ran before they were known: the sim keeps
 * the bytes live by stack id, and slot's copy of them at its last reserved peak; set it
 * before the first event. vt_fit_sim_cat_at_peak then fills that slot's cat_at_peak
 * from cat_of_stack (as vt_fit_read maps them); -1 when the stacks could not be kept
 * (too many, or no memory). The other slots' cat_at_peak mean nothing then. */
void vt_fit_sim_by_stack(vt_fit_sim *s, int slot);
int vt_fit_sim_cat_at_peak(vt_fit_sim *s, const uint8_t *cat_of_stack, size_t ncat);
uint64_t vt_fit_sim_live(const vt_fit_sim *s);      /* bytes asked, live now */
uint64_t vt_fit_sim_peak(const vt_fit_sim *s);      /* their peak */
uint64_t vt_fit_sim_streams(const vt_fit_sim *s);   /* distinct streams seen */
/* Allocations outside the framework's allocator (vt_fit_req.outside): live, peak. */
uint64_t vt_fit_sim_outside_peak(const vt_fit_sim *s);

/* What one pass over a trace hands to its consumer. */
typedef struct {
    /* an allocation (key = address) or, with req NULL, a free */
    int (*event)(void *ctx, uint64_t key, const vt_fit_req *req);  /* 0 go on, 1 stop, -1 no memory */
    void *ctx;
    /* optional: an event at key comes a few events from now (vt_fit_sim_prefetch) */
    void (*ahead)(void *ctx, uint64_t key);
} vt_fit_sink;

/* The ALLOC (is_alloc) and FREE kinds the models take: device pointers (cuMemAlloc,
 * Pitch, Async, FromPoolAsync and their frees). */
static inline int vt_fit_kind(int is_alloc, unsigned k)
{
    return is_alloc ? k == VT_KIND_MEM_ALLOC || k == VT_KIND_MEM_ALLOC_PITCH || k == VT_KIND_MEM_ALLOC_ASYNC ||
                          k == VT_KIND_MEM_ALLOC_POOL
                    : k == VT_KIND_MEM_FREE || k == VT_KIND_MEM_FREE_ASYNC;
}

/* cat_of_stack: this bit set marks a stack's allocations as outside the allocator. */
#define VT_FIT_OUTSIDE 0x80u

/* The trace's second pass: opens path and feeds the sink every ALLOC and FREE of device
 * pointers (cuMemAlloc, Pitch, Async, FromPoolAsync) on `device`, in file order, with
 * the category of the stack (cat_of_stack[stack_id] when stack_id < ncat, else
 * "other"; VT_FIT_OUTSIDE marks it outside). Returns 0; 1 when the trace is cut short or damaged (msg says where; what
 * was read was fed); -1 with a message in msg when it cannot be read or memory runs
 * out. A sink's return of 1 stops the pass (0 then). */
/* With split_async, the trace's cuMemAllocAsync requests are the framework allocator's
 * (`vramtrace run --per-tensor` selects backend:cudaMallocAsync) and the others
 * (cuBLAS workspaces, libraries calling cuMemAlloc) are marked outside. */
int vt_fit_read(const char *path, int device, const uint8_t *cat_of_stack, size_t ncat, int split_async,
                vt_fit_sink *sink, char *msg, size_t msglen);

/* The context and whatever else the process holds that no allocation explains, from
 * NVML (vt_replay's vt_nvml.proc_over_min): the least, over the samples of the NVML
 * index that is CUDA ordinal `device`, of the process's figure minus the traced device
 * bytes then. Returns 1 and sets *bytes, or 0 when no sample knew the process's figure. */
struct vt_replay;
int vt_fit_context(const struct vt_replay *rp, int device, uint64_t *bytes);

#endif /* VT_FIT_H */
