// SPDX-License-Identifier: MIT
/* vt_export.h - what the pictures and the interchange formats share: the groups that
 * make up the selected memory with their weights, a call tree of their sites, frame
 * labels, and the writers of each format (docs/pictures.md). */
#ifndef VT_EXPORT_H
#define VT_EXPORT_H

#include <stdint.h>
#include <stdio.h>

#include "vt_analyze.h"

/* ------------------------------------------------------------------------ *
 *  Weights
 * ------------------------------------------------------------------------ */
typedef enum {
    VT_WHAT_PEAK = 0,     /* bytes live at the peak of the selected memory */
    VT_WHAT_ALLOCATED,    /* bytes allocated over the whole trace */
    VT_WHAT_LEAKED        /* bytes still live at the end */
} vt_what;

const char *vt_what_name(vt_what w);          /* "peak", "allocated", "leaked" */
int vt_what_parse(const char *s);             /* -1 when unknown */

typedef struct {
    const vt_group *g;
    int ti;                 /* trace index */
    int k;                  /* index of the selected tracker among g's */
} vt_egroup;

/* The groups of trace 0 that feed the selected memory (device memory of one device
 * or of all devices), and their sums. */
typedef struct {
    const vt_analysis *a;
    int device;
    const vt_tracker *tk;
    vt_egroup *g;
    size_t n;
    uint64_t sum[3];        /* per vt_what: sum[VT_WHAT_PEAK] == tk->peak */
} vt_eset;

/* Returns 0, or prints one line and returns 2. */
int vt_eset_init(vt_eset *e, const vt_analysis *a, int device);
void vt_eset_free(vt_eset *e);
uint64_t vt_egroup_bytes(const vt_eset *e, const vt_egroup *g, vt_what w);
uint64_t vt_egroup_count(const vt_eset *e, const vt_egroup *g, vt_what w);
/* "device 0 (NVIDIA H200)" or "all devices" */
const char *vt_eset_label(const vt_eset *e, char *buf, size_t n);

/* ------------------------------------------------------------------------ *
 *  Frame labels
 * ------------------------------------------------------------------------ */
/* The text of a frame in a flame graph or a folded stack: the function; Python frames
 * add "(file:line)" since many Python functions share a name ("forward"); scopes
 * (NVTX ranges, layers) are "[name]". ';' and newlines become ':' and ' '. */
const char *vt_export_frame_label(const vt_site_frame *f, char *buf, size_t n);

/* ------------------------------------------------------------------------ *
 *  Call tree of the sites: the root is all the selected memory, then outermost
 *  frame first, down to the innermost frame of each site.
 * ------------------------------------------------------------------------ */
typedef struct {
    uint32_t name;          /* label id in vt_ftree.names */
    uint32_t parent;        /* UINT32_MAX for the root */
    uint32_t child, next;   /* first child, next sibling (UINT32_MAX: none) */
    uint32_t depth;
    uint8_t  kind;          /* vt_frame_kind; 255 for the root */
    uint64_t value;         /* bytes of this node and all below it */
} vt_fnode;

typedef struct {
    vt_fnode *n;            /* n[0] is the root */
    size_t nn, cap;
    vt_strtab names;        /* labels */
    uint32_t *detail;       /* label id -> details id in `details` ("file:line [module]") */
    size_t detail_cap;
    vt_strtab details;
    vt_idmap child_ix;      /* parent << 32 | label -> node */
    uint32_t max_depth;
} vt_ftree;

/* Builds the tree of weights w; children are sorted largest first. native = 0: a site
 * with Python frames shows them (and scopes) alone, its op as their leaf (memray's
 * default); a site without drops its interpreter and plumbing frames (vt_sites.h's
 * classes). native = 1: every frame. 0, or -1 when out of memory. */
int vt_ftree_build(vt_ftree *t, const vt_eset *e, vt_what w, const char *root_label, int native);
/* The inverted tree of src: under the root, the innermost frames (where the memory was
 * allocated), then their callers; each node of src adds its own bytes (those not in
 * its children) along its path read upwards. 0, or -1 when out of memory. */
int vt_ftree_invert(vt_ftree *t, const vt_ftree *src);
void vt_ftree_free(vt_ftree *t);
/* Visits the nodes in preorder (children largest first); stops when fn returns
 * nonzero and returns that. */
int vt_ftree_walk(const vt_ftree *t, int (*fn)(const vt_ftree *t, uint32_t node, void *ctx), void *ctx);

/* ------------------------------------------------------------------------ *
 *  Writers. Each returns 0, or 2 after printing one line.
 * ------------------------------------------------------------------------ */
typedef struct {
    vt_what what;
    int device;
    size_t buckets;         /* perfetto */
} vt_export_opts;

int vt_export_folded(FILE *f, const vt_analysis *a, const vt_export_opts *o);
int vt_export_pprof(FILE *f, const vt_analysis *a, const vt_export_opts *o);
int vt_export_perfetto(FILE *f, const vt_analysis *a, const vt_export_opts *o);
int vt_export_speedscope(FILE *f, const vt_analysis *a, const vt_export_opts *o);
int vt_export_csv(FILE *f, const vt_analysis *a, const vt_export_opts *o);

/* ------------------------------------------------------------------------ *
 *  Small helpers
 * ------------------------------------------------------------------------ */
/* A compact JSON string: UTF-8 passes through (invalid bytes become U+FFFD), '<' is
 * written \u003c so the JSON can sit inside an HTML <script>. */
void vt_export_jstr(FILE *f, const char *s);

/* Opens the output: "-" is stdout. Prints a line and returns NULL on failure. */
FILE *vt_export_open(const char *path, int binary);
/* Closes it (not stdout), reporting a write error; returns 0 or 2. */
int vt_export_close(FILE *f, const char *path);

/* --device: "all" or a CUDA ordinal; prints the error itself and returns -1. */
int vt_export_parse_device(const char *cmd, const char *v, int *out);
/* Whether the output path names an SVG file (ends in ".svg", any case). */
int vt_export_is_svg(const char *path);

/* The default output of a picture when -o is not given: TRACE's base name without
 * ".vtrace", then ".WHAT.html" or ".WHAT.svg", in the working directory (next to where
 * the user stands, not next to a trace that may sit in a read-only folder). */
void vt_export_default_out(char *out, size_t n, const char *trace, const char *what, int svg);

/* The base name of the traced program, for titles. */
const char *vt_export_program(const vt_analysis *a);

#endif /* VT_EXPORT_H */
