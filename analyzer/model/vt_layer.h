// SPDX-License-Identifier: MIT
/* vt_layer.h - layers: which part of a model an allocation belongs to.
 *
 * The layer of a stack is its innermost scope frame (an NVTX range, or the nn.Module
 * name the --torch-modules hook pushes), else its innermost Python frame in the
 * program's own code (vt_layer_is_model_file: not the Python library, not PyTorch, JAX,
 * NumPy...), named "function (file)". A stack with neither has no layer.
 *
 * Layers are known while replaying: scope and Python frames are plain text in the trace
 * (STRING and PYFRAME records, which come before the stacks that use them), so no
 * symbolization is needed. Each (layer, device) has a counter of the device memory its
 * allocations hold, updated with the groups' (O(1) per event), and the most it ever
 * held. A group finds its counter once, when it is made; a stack node's layer is
 * worked out once (memoized along the tree). */
#ifndef VT_LAYER_H
#define VT_LAYER_H

#include <stdint.h>

#include "vt_replay.h"
#include "vt_table.h"

/* One layer on one device. */
struct vt_layer_ctr {
    uint64_t live;          /* device bytes its allocations hold now */
    uint64_t max;           /* the most they held at any moment */
    uint64_t max_time;      /* when (ns since the trace's start) */
    uint32_t layer;         /* index into the replay's layer names */
    uint32_t name_id;       /* the analysis-wide name id (vt_sites.names), set after the replay */
    int      device;
};

/* The layer counter for the device memory of stack_id on device, made when new; NULL
 * when the stack has no layer (or out of memory). */
vt_layer_ctr *vt_layer_group(vt_replay *rp, uint32_t stack_id, int device);

/* The counter of the layer named by STRING id sid (an annotation's layer) on device;
 * NULL for an unknown or empty name (or out of memory). */
vt_layer_ctr *vt_layer_named(vt_replay *rp, uint32_t sid, int device);

/* Whether a scope name can be a layer: not one of XLA's compiler ranges (XlaPass:...). */
int vt_layer_scope_is_layer(const char *name);

static inline void vt_layer_add(vt_layer_ctr *c, uint64_t size, uint64_t now)
{
    c->live += size;
    if (c->live > c->max) {
        c->max = c->live;
        c->max_time = now;
    }
}

static inline void vt_layer_sub(vt_layer_ctr *c, uint64_t size)
{
    c->live -= size;
}

void vt_layers_free(vt_layers *ls);

/* The replay is over: frees what only finding new groups' counters needs (the memo
 * per stack node), keeping the counters. */
void vt_layers_done(vt_layers *ls);

/* The layer name of a counter of rp. */
const char *vt_layer_name(const vt_replay *rp, const vt_layer_ctr *c);

/* Interns the names of rp's layers into names (setting each counter's name_id).
 * Returns 0, or -1 when out of memory. */
int vt_layers_intern(vt_replay *rp, vt_strtab *names);

/* Counters of rp, for listing: *out points into rp's table. */
size_t vt_layers_list(const vt_replay *rp, vt_layer_ctr *const **out);

/* Is a Python file the program's own code? No for "<...>" (frozen modules, exec'd and
 * generated code), the Python library (".../lib/pythonX.Y/..." outside site-packages and
 * dist-packages), and the packages of the frameworks and of vramtrace itself (see
 * docs/python.md). */
int vt_layer_is_model_file(const char *path);

/* The name shown for rows that have no layer. */
#define VT_LAYER_NONE "[no layer]"

#endif /* VT_LAYER_H */
