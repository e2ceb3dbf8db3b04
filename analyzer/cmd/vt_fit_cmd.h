/* SPDX-License-Identifier: MIT */
/* vt_fit_cmd.h - what `fit` and `forecast` share: their allocator options, one trace
 * prepared for the models (device, categories, context), the runs through the models,
 * and the verdict lines. */
#ifndef VT_FIT_CMD_H
#define VT_FIT_CMD_H

#include <stdint.h>

#include "vt_alloc_model.h"
#include "vt_analyze.h"
#include "vt_args.h"
#include "vt_fit.h"
#include "vt_fit_early.h"

#define VT_FIT_MAX_MEM 8

typedef enum {
    VT_FIT_OPT_ALLOCATOR, VT_FIT_OPT_MEMORY, VT_FIT_OPT_CONTEXT, VT_FIT_OPT_CONF, VT_FIT_OPT_DEVICE,
    VT_FIT_OPT_JSON, VT_FIT_OPT_FRAMES, VT_FIT_OPT_ALLOCATOR_CAP
} vt_fit_opt;

typedef struct {
    vt_am_kind kind;
    int kind_given;
    vt_am_conf conf;
    const char *conf_str;
    uint64_t mem[VT_FIT_MAX_MEM];
    int nmem;
    uint64_t context;
    int context_given;
    int allocator_cap;      /* --allocator-cap: a --memory bounds the allocator alone */
    int device;             /* -2: the busiest */
    int json;
    uint64_t frames;
} vt_fit_opts;

void vt_fit_opts_init(vt_fit_opts *o);
/* Takes one option's value; prints and returns -1 when it is bad. */
int vt_fit_opts_take(vt_fit_opts *o, const vt_args *a, vt_fit_opt which, const char *v);
/* Settles the allocator after --alloc-conf (expandable_segments:True, backend:...). */
int vt_fit_opts_finish(vt_fit_opts *o, const vt_args *a);

/* The models of one pass: one uncapped of each kind, then the chosen one per memory. */
#define VT_FIT_SLOT_MEM(k) (VT_AM_N + (k))

typedef struct {
    vt_analysis *an;
    int ti, device;
    uint8_t *cat_of_stack;
    uint32_t *group_of_stack;   /* stack id -> group + 1 on the device (0: none) */
    size_t nstack;
    uint64_t context;
    int context_src;            /* 0 unknown, 1 NVML, 2 --context */
    uint64_t device_total;
    int split_async;            /* cuMemAllocAsync is the framework's; the rest outside */
    uint64_t mem[VT_FIT_MAX_MEM];
    int nmem;
    vt_fit_sim *sim;
} vt_fit_trace;

/* Picks the device, checks the trace is per-tensor, maps stacks to categories and
 * groups, settles the context and the memory sizes. Prints and returns 2 on bad input. */
int vt_fit_trace_prepare(vt_fit_trace *ft, vt_analysis *an, int ti, const vt_fit_opts *o);
/* Runs the trace through the models: takes early's (vt_fit_early.h: the models that
 * rode along the analysis; NULL: none) when its guesses held, else reads the trace
 * again. Prints and returns 2 when it cannot. */
int vt_fit_trace_run(vt_fit_trace *ft, const vt_fit_opts *o, vt_fit_early *early);
void vt_fit_trace_free(vt_fit_trace *ft);

/* A fresh set of models for ft (uncapped of each kind + chosen per memory); NULL when
 * out of memory. */
vt_fit_sim *vt_fit_models(const vt_fit_trace *ft, const vt_fit_opts *o);

/* The chosen model capped at `memory`, with the limit the simulation keeps for it
 * (*sim_limit: what the allocations outside the allocator take from; VT_AM_NO_LIMIT
 * when --allocator-cap makes memory the allocator's own bound). NULL: out of memory. */
vt_am *vt_fit_capped(const vt_fit_opts *o, uint64_t memory, uint64_t context, uint64_t *sim_limit);

/* The first screen and the JSON document (docs/json-schema.md); return the exit status. */
int vt_fit_show_text(const vt_fit_trace *ft, const vt_fit_opts *o);
int vt_fit_show_json(const vt_fit_trace *ft, const vt_fit_opts *o);

/* "expandable_segments:True" and the like: the setting that selects a model. */
const char *vt_fit_setting(vt_am_kind k);

/* The best other setting's saving over the chosen one, when more than 5%: its kind, or -1. */
int vt_fit_suggest(const vt_fit_sim *sim, vt_am_kind chosen, uint64_t *saves);

#endif /* VT_FIT_CMD_H */
