/* vt_cat.h - categories: what each allocation is for (weights, activations, ...).
 *
 * A category is decided per group (stack, kind, device) after the replay: first by the
 * ordered rules (the user's --rules file, then the built-in defaults) matched against the
 * group's symbolized frames, then, where no rule decides, by the group's lifetimes
 * relative to the training iterations found in the trace. docs/categories.md. */
#ifndef VT_CAT_H
#define VT_CAT_H

#include <stdint.h>

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
    VT_CAT_HOW_INFERRED = 2  /* lifetime inference */
} vt_cat_how;

/* "weights", "activations", "gradients", "optimizer_state", "workspace", "temporary",
 * "host_pinned", "other". */
const char *vt_cat_name(vt_cat c);

/* Parses a name as above; returns -1 for an unknown one. */
int vt_cat_parse(const char *name);

#endif /* VT_CAT_H */
