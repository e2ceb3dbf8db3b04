// SPDX-License-Identifier: MIT
/* vt_cat_list.h - the categories, their names, and the options that choose their rules:
 * what the rules, the frame classes and the views need of categories without the
 * analysis that decides them (vt_cat.h). */
#ifndef VT_CAT_LIST_H
#define VT_CAT_LIST_H

#include <stddef.h>

typedef enum {
    VT_CAT_WEIGHTS = 0,
    VT_CAT_ACTIVATIONS,
    VT_CAT_GRADIENTS,
    VT_CAT_OPTIMIZER_STATE,
    VT_CAT_WORKSPACE,
    VT_CAT_TEMPORARY,
    VT_CAT_HOST_PINNED,
    VT_CAT_OTHER,
    VT_CAT_N
} vt_cat;

typedef enum {
    VT_CAT_HOW_NONE = 0,     /* not decided (other) */
    VT_CAT_HOW_RULE = 1,     /* a rule matched a frame */
    VT_CAT_HOW_INFERRED = 2, /* lifetime inference */
    VT_CAT_HOW_ANNOTATED = 3 /* the program named the allocation's role (ANNOTATE records) */
} vt_cat_how;

/* "weights", "activations", "gradients", "optimizer_state", "workspace", "temporary",
 * "host_pinned", "other". */
const char *vt_cat_name(vt_cat c);

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
