// SPDX-License-Identifier: MIT
/* vt_cat_list.h - the categories, their names, and the options that choose their rules:
 * what the rules, the frame classes and the views need of categories without the
 * analysis that decides them (vt_cat.h). */
#ifndef VT_CAT_LIST_H
#define VT_CAT_LIST_H

#include <stddef.h>

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
/* made again in a backward by activation checkpointing (a `recomputed` rule):
 * activations, whatever lifetimes say */
#define VT_CATF_RECOMPUTED 4u

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

#endif /* VT_CAT_LIST_H */
