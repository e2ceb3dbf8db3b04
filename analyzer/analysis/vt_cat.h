// SPDX-License-Identifier: MIT
/* vt_cat.h - categories: what each allocation is for (weights, activations, ...).
 *
 * A category is decided per group (stack, kind, device) after the replay: first by the
 * ordered rules (the user's --rules file, then the built-in defaults) matched against the
 * group's symbolized frames, then, where no rule decides, by the group's lifetimes
 * relative to the training iterations found in the trace. docs/categories.md.
 *
 * The decision is stored in the group (vt_group.cat, .cat_how, .cat_flags, .cat_rule),
 * so category rows are sums of the groups' values at a tracker's peak or at the end,
 * exactly like rows by site: the single-pass exact peak stays exact per category. */
#ifndef VT_CAT_H
#define VT_CAT_H

#include <stddef.h>
#include <stdint.h>

#include "vt_analysis.h"
#include "vt_cat_list.h"

/* ------------------------------------------------------------------------ *
 *  Rules (the options are in vt_cat_list.h)
 * ------------------------------------------------------------------------ */
/* Reads the --rules files of o, then the built-in rules (unless no_default_rules), into
 * one chain (*out; NULL when categories are not wanted). On a bad file prints
 * "vramtrace: FILE:LINE: ..." and returns -1. */
int vt_cat_rules_load(const vt_cat_opts *o, struct vt_rules **out);

/* ------------------------------------------------------------------------ *
 *  Training iterations found in one trace (vt_cat_infer.c)
 * ------------------------------------------------------------------------ */
typedef struct {
    uint64_t fwd;           /* first allocation of the forward */
    uint64_t peak;          /* the iteration's highest point */
    uint64_t fwd_end;       /* last allocation of an activation: the backward begins */
    uint64_t bwd_end;       /* last free of the forward's activations */
    int      from_pattern;  /* found by the repeating allocations, not as a tooth of memory */
} vt_cat_iter;

typedef struct vt_cat_trace {
    size_t niters;
    vt_cat_iter *iters;     /* in time order */
    uint64_t hysteresis;    /* bytes: the swing that told iterations from noise */
    size_t window_events;   /* device allocations and frees looked at */
    int window_full;        /* the trace went on past the window */
    uint64_t window_end;    /* time of the first event past it */
    uint8_t *inferred;      /* per group of the trace: what lifetimes say (vt_cat) */
    uint8_t *evidence;      /* per group: 1 when the window held its allocations */
    struct vt_cat_odd *odd; /* allocations of the window whose own label is not their
                             * group's (vt_cat_split.c), in log order */
    size_t nodd;
} vt_cat_trace;

/* One allocation that lived as something other than its group (vt_cat_split.c). */
typedef struct vt_cat_odd {
    uint64_t time, freed;   /* made, freed (VT_CAT_FREE_NEVER: live at the end) */
    uint64_t size;
    uint32_t group;
    uint32_t part;          /* the group it was moved to + 1 (vt_cat_split), 0: none */
    uint8_t  cat;           /* its own category */
} vt_cat_odd;

/* ------------------------------------------------------------------------ *
 *  Sums
 * ------------------------------------------------------------------------ */
typedef struct {
    uint64_t bytes, count;          /* at the moment asked */
    uint64_t rule_bytes, inferred_bytes, annotated_bytes;
    uint64_t recomputed_bytes;      /* of bytes: VT_CATF_RECOMPUTED */
    uint64_t nallocs, total_bytes;  /* over the whole trace */
} vt_cat_row;

typedef struct {
    vt_cat_row row[VT_CAT_N];
    uint64_t total;
    uint64_t cache_bytes;   /* of which: caching-allocator segments (VT_CATF_CACHE) */
    uint64_t idle_cache_bytes; /* segments whose first grower was transient (at the end), or
                                * with PyTorch's blocks known: the idle bytes in its segments */
    uint64_t block_bytes;   /* of the rows: PyTorch blocks (allocator trace tracker) */
    uint64_t graph_pool_bytes;       /* idle bytes of private pools' segments (CUDA graphs'),
                                      * apart from idle_cache_bytes: no category's either */
    uint64_t graph_pool_block_bytes; /* of the rows: blocks inside those pools' segments */
    int      blocks;        /* the trace knows PyTorch's blocks: idle_cache_bytes is exact */
} vt_cat_sum;

/* "rule", "inferred", "annotated" or "mixed" after the bytes a row holds; NULL for an empty row;
 * "none" when nothing decided (VRAMTRACE_NO_CATEGORIES). */
const char *vt_cat_how_text(const vt_cat_row *r);

/* The categories that hold bytes in s, largest first, into order; returns how many. */
int vt_cat_sum_order(const vt_cat_sum *s, int order[VT_CAT_N]);

/* ------------------------------------------------------------------------ *
 *  Over an analysis (vt_analyze.c calls these)
 * ------------------------------------------------------------------------ */

/* Infers what every group's lifetimes say (vt_cat_infer) for every trace, into
 * a->t[i].cat. Needs the replays' category logs and live sets, not the sites: vt_analyze
 * calls it before folding stacks and frees those then. Returns 0, or -1 after printing
 * a message (out of memory). */
int vt_cat_lifetimes(vt_analysis *a, const vt_cat_opts *o);

/* Decides the category of every group of every trace (after vt_cat_lifetimes and the
 * sites): rules (a->rules, read by vt_analyze with vt_cat_rules_load), lifetimes where
 * no rule decides, and host_pinned for pinned host memory whatever the rules say.
 * Returns 0, or -1 after printing a message (out of memory). */
int vt_cat_assign(vt_analysis *a, const vt_cat_opts *o);
void vt_cat_free(vt_analysis *a);

/* Lifetime inference for one trace: finds the iterations in rp->catlog and fills
 * ct->inferred for every group. Returns 0, or -1 when out of memory. */
int vt_cat_infer(const vt_replay *rp, vt_cat_trace *ct);
void vt_cat_trace_free(vt_cat_trace *ct);

/* What lifetimes say of one allocation of the trace of ct (the table of
 * docs/categories.md, "Lifetime inference"): made at alloc_time, freed at free_time or
 * VT_CAT_FREE_NEVER. */
#define VT_CAT_FREE_NEVER UINT64_MAX
vt_cat vt_cat_label(const vt_cat_trace *ct, uint64_t alloc_time, uint64_t free_time);

/* After vt_cat_infer, while rp's category log is there: keeps in ct->odd the
 * allocations of the window whose own label differs from what their group's votes
 * say (ct->inferred), and is neither `other` nor unknown (freed past the window).
 * Returns 0, or -1 when out of memory. */
int vt_cat_odd_collect(const vt_replay *rp, vt_cat_trace *ct);

/* Splits each group of trace ti whose category lifetimes decided, but some of whose
 * allocations lived as something else (a backward op's output kept as a gradient,
 * where the same op's outputs of later steps are temporaries): those (ct->odd), in a
 * category allowed[gi] permits (a bit per vt_cat; 0: any), move to a part of their
 * own (vt_replay_add_group, `split`), with their bytes at each tracker's peak, at the
 * end and in all. Returns 0, or -1 when out of memory. */
int vt_cat_split(vt_analysis *a, int ti, const uint16_t *allowed);

/* Sums the groups that feed tracker tk by category, at its peak or at the end. */
void vt_cat_sum_at(const vt_analysis *a, const vt_tracker *tk, vt_at at, vt_cat_sum *out);

/* Bytes the program annotated that matched no allocation of their own (buffers inside
 * a framework's preallocated block), per category: for each role, the largest batch
 * (one pytree of one call) of any trace of the analysis. Returns 1 when there were any. */
int vt_cat_annotated_in_segments(const vt_analysis *a, uint64_t out[VT_CAT_N]);

/* Caching mode: most of the bytes are a framework cache's segments. */
static inline int vt_cat_caching(const vt_cat_sum *s)
{
    return s->cache_bytes && s->cache_bytes * 2 >= s->total;
}

/* Bytes by (rule section, category) at tk's peak or at the end: which rule set said
 * what. Section 0 holds what lifetimes decided. Sorted by bytes. Returns the count
 * (*out malloc'ed), or (size_t)-1 when out of memory. */
typedef struct {
    uint16_t section;
    uint8_t  cat, how;
    uint64_t bytes;
} vt_cat_section_row;
size_t vt_cat_sections_at(const vt_analysis *a, const vt_tracker *tk, vt_at at, vt_cat_section_row **out);
const char *vt_cat_section_name(const vt_analysis *a, uint16_t id);

#endif /* VT_CAT_H */
