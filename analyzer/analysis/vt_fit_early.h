// SPDX-License-Identifier: MIT
/* vt_fit_early.h - `fit`'s allocator models in the analysis's own pass over the trace
 * (vt_analyze_tap), rather than in a second one (vt_fit_read; docs/fit.md, "Speed").
 *
 * During the analysis the models cannot know what it learns only at its end: which
 * device `fit` looks at, which allocations are outside the framework's allocator (by
 * category rule, or beside its cuMemAllocAsync), the categories, the context. So the
 * uncapped models take each allocation with a guess from what came before (the first
 * device seen; outside when a cuMemAllocAsync came before it, the models starting
 * again at the first one), the categories at the peak are summed from the stacks of
 * what was live then, and a model capped at a --memory is its uncapped model's twin
 * when that one never came near the cap. The models run on a thread of their own (from
 * two cores up), fed by the replay's. vt_fit_early_take checks every guess against
 * the analysis; where one was wrong, it answers NULL and `fit` reads the trace again. */
#ifndef VT_FIT_EARLY_H
#define VT_FIT_EARLY_H

#include <stddef.h>
#include <stdint.h>

#include "vt_alloc_model.h"
#include "vt_fit.h"
#include "vt_replay_read.h"

typedef struct vt_fit_early vt_fit_early;

/* The uncapped models of every kind (slots 0..VT_AM_N-1, as vt_fit_models makes
 * them), with the categories kept by stack for `chosen`'s slot; device: the one
 * `fit` will look at (--device), or -1 for the first seen. NULL when out of memory. */
vt_fit_early *vt_fit_early_new(vt_am_kind chosen, const vt_am_conf *conf, int device);
void vt_fit_early_free(vt_fit_early *e);

/* What vt_analyze_tap takes: the early models see every ALLOC and FREE it replays. */
const vt_replay_tap *vt_fit_early_tap(vt_fit_early *e);

/* The capped models to add as twins: mem[i]'s limit as vt_fit_sim_new takes it
 * (sim_limit, VT_AM_NO_LIMIT: none) and the model's own (model_limit). */
typedef struct {
    uint64_t sim_limit, model_limit;
} vt_fit_cap;

/* After the analysis, with what it says (as vt_fit_read takes it): the simulation,
 * its slots those of vt_fit_models (the uncapped models, then one per cap), when
 * every guess held; the sim is the caller's then (vt_fit_sim_free). NULL when the
 * trace must be read again, and *why says which guess failed. gc_threshold: a capped
 * model collects garbage, which an uncapped one never does (no twin then). */
vt_fit_sim *vt_fit_early_take(vt_fit_early *e, int device, const uint8_t *cat_of_stack, size_t ncat,
                              int split_async, const vt_fit_cap *caps, int ncaps, int gc_threshold,
                              const char **why);

#endif /* VT_FIT_EARLY_H */
