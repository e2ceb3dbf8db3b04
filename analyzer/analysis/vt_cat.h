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

/* The categories, in the order reports list them: the enum's name (VT_CAT_<name>), the
 * name rules, reports and JSON use, and what it holds (the timeline's legend). The first
 * six are the annotation roles, in order (vt_cat.c checks). docs/categories.md. */
#define VT_CATS(X) \
    X(WEIGHTS,         "weights",         "model parameters") \
    X(ACTIVATIONS,     "activations",     "tensors kept from the forward pass for the backward pass") \
    X(GRADIENTS,       "gradients",       "gradients of the parameters") \
    X(OPTIMIZER_STATE, "optimizer_state", "optimizer state (momentum, variance, ...)") \
    X(WORKSPACE,       "workspace",       "library workspaces (cuBLAS, cuDNN, ...)") \
    X(TEMPORARY,       "temporary",       "short-lived buffers") \
    X(COMMUNICATION,   "communication",   "NCCL's buffers and the collectives' (DDP buckets, process groups)") \
    X(HOST_PINNED,     "host_pinned",     "pinned host memory") \
    X(OTHER,           "other",           "not attributed to a category")

#define VT_CAT_ENUM_(id, name, what) VT_CAT_##id,
typedef enum {
    VT_CATS(VT_CAT_ENUM_)
    VT_CAT_N
} vt_cat;
#undef VT_CAT_ENUM_

typedef enum {
    VT_CAT_HOW_NONE = 0,     /* not decided (other) */
    VT_CAT_HOW_RULE = 1,     /* a rule matched a frame */
    VT_CAT_HOW_INFERRED = 2, /* lifetime inference */
    VT_CAT_HOW_ANNOTATED = 3 /* the program named the allocation's role (ANNOTATE records) */
} vt_cat_how;

/* The name of c (VT_CATS), "other" for a value out of range. */
const char *vt_cat_name(vt_cat c);
/* What c holds, in a few words (VT_CATS). */
const char *vt_cat_what(vt_cat c);

/* Parses a name as above; returns -1 for an unknown one. */
int vt_cat_parse(const char *name);

/* vt_group.cat_flags */
#define VT_CATF_CACHE    1u  /* segments of a framework's caching allocator (a `cache` rule) */
#define VT_CATF_NARROWED 2u  /* a rule allowed several categories; lifetimes chose */

/* ------------------------------------------------------------------------ *
 *  Options (commands fill them; vt_analyze applies them)
 * ------------------------------------------------------------------------ */
struct vt_rules;

#define VT_CAT_MAX_RULES 16

/* Only names, no allocation: commands fill this while parsing their options and can
 * return at any point without cleaning up; vt_analyze reads the files, before any trace. */
typedef struct vt_cat_opts {
    const char *rules[VT_CAT_MAX_RULES]; /* --rules files, in order */
    size_t nrules;
    int no_default_rules;   /* --no-default-rules: lifetimes alone (and the user's rules) */
    int off;                /* no categories at all (commands that show none) */
} vt_cat_opts;

/* Whether an analysis with these options decides categories: not when o->off, nor
 * when VRAMTRACE_NO_CATEGORIES=1 (then every group is "other", pinned host memory
 * host_pinned, and the replay keeps no window of events). */
int vt_cat_wanted(const vt_cat_opts *o);

/* Records one --rules FILE; prints an error and returns -1 when there are too many. */
int vt_cat_opts_add_rules(vt_cat_opts *o, const char *path);

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
} vt_cat_trace;

/* ------------------------------------------------------------------------ *
 *  Sums
 * ------------------------------------------------------------------------ */
typedef struct {
    uint64_t bytes, count;          /* at the moment asked */
    uint64_t rule_bytes, inferred_bytes, annotated_bytes;
    uint64_t nallocs, total_bytes;  /* over the whole trace */
} vt_cat_row;

typedef struct {
    vt_cat_row row[VT_CAT_N];
    uint64_t total;
    uint64_t cache_bytes;   /* of which: caching-allocator segments (VT_CATF_CACHE) */
    uint64_t idle_cache_bytes; /* segments whose first grower was transient (at the end), or
                                * with PyTorch's blocks known: the idle bytes in its segments */
    uint64_t block_bytes;   /* of the rows: PyTorch blocks (allocator trace tracker) */
    int      blocks;        /* the trace knows PyTorch's blocks: idle_cache_bytes is exact */
} vt_cat_sum;

/* "rule", "inferred", "annotated" or "mixed" after the bytes a row holds; NULL for an empty row;
 * "none" when nothing decided (VRAMTRACE_NO_CATEGORIES). */
const char *vt_cat_how_text(const vt_cat_row *r);

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
