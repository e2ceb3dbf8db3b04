// SPDX-License-Identifier: MIT
/* vt_ftree.h - the call tree of the selected memory's sites, which flame graphs and
 * folded stacks draw. */
#ifndef VT_FTREE_H
#define VT_FTREE_H

#include <stddef.h>
#include <stdint.h>

#include "vt_eset.h"
#include "vt_table.h"

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
    uint8_t  fclass;        /* vt_fclass of the first frame seen with this label here */
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

#endif /* VT_FTREE_H */
