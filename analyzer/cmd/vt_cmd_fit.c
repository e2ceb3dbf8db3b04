/* SPDX-License-Identifier: MIT */
/* vt_cmd_fit.c - `vramtrace fit TRACE [--allocator exact|caching|expandable|async]
 * [--memory SIZE]... [--context SIZE] [--alloc-conf STRING] [--device N] [--json]`:
 * replays a per-tensor trace through allocator models and says whether the run fits
 * on cards of the given sizes (docs/fit.md). */
#include "vt_cmds.h"

#include "vt_alloc_model.h"
#include "vt_analyze.h"
#include "vt_args.h"
#include "vt_cat.h"
#include "vt_fit.h"
#include "vt_fit_cmd.h"
#include "vt_json.h"
#include "vt_show.h"
#include "vt_units.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: vramtrace fit TRACE [--allocator exact|caching|expandable|async] [--memory SIZE]...\n"
    "                     [--context SIZE] [--alloc-conf STRING] [--device N] [--frames N]\n"
    "                     [--rules FILE]... [--no-default-rules] [--allocator-cap] [--json]\n"
    "  Replays a per-tensor trace (`vramtrace run --per-tensor`) through a model of an\n"
    "  allocator and predicts its peaks: reserved (what the allocator holds, as\n"
    "  torch.cuda.max_memory_reserved), allocated, and fragmentation. For each --memory\n"
    "  (default: the traced device's size) says whether the run fits, counting the\n"
    "  context from the trace's NVML figure (--context overrides), and names the first\n"
    "  allocation that would fail. Exit 0: fits everywhere, 1: does not fit somewhere.\n"
    "  caching (default): PyTorch's native allocator; expandable: expandable_segments:True;\n"
    "  async: the cudaMallocAsync pool; exact: the bytes asked. --alloc-conf takes\n"
    "  PYTORCH_CUDA_ALLOC_CONF's knobs (max_split_size_mb, roundup_power2_divisions,\n"
    "  garbage_collection_threshold, expandable_segments, backend). --rules and\n"
    "  --no-default-rules choose the category rules, as for report (docs/categories.md).\n"
    "  --allocator-cap: a --memory bounds the allocator alone, as\n"
    "  torch.cuda.set_per_process_memory_fraction does (no context, nothing outside it).\n";

int vt_cmd_fit(int argc, char **argv)
{
    enum { O_ALLOC = 1, O_MEM, O_CTX, O_CONF, O_DEV, O_JSON, O_FRAMES, O_RULES, O_NO_DEFAULT_RULES, O_CAP, O_HELP };
    static const vt_opt opts[] = {
        { "allocator", 0, 1, O_ALLOC }, { "memory", 0, 1, O_MEM }, { "context", 0, 1, O_CTX },
        { "alloc-conf", 0, 1, O_CONF }, { "device", 0, 1, O_DEV }, { "json", 0, 0, O_JSON },
        { "frames", 0, 1, O_FRAMES }, { "rules", 0, 1, O_RULES }, { "no-default-rules", 0, 0, O_NO_DEFAULT_RULES },
        { "allocator-cap", 0, 0, O_CAP },
        { "help", 'h', 0, O_HELP }, { NULL, 0, 0, 0 }
    };
    vt_fit_opts fo;
    vt_fit_opts_init(&fo);
    vt_cat_opts cat = { .nrules = 0 };
    char *path = NULL;
    vt_args a;
    vt_args_init(&a, "fit", argc, argv);
    const char *v;
    int id;
    while ((id = vt_args_next(&a, opts, &v)) != VT_ARGS_END) {
        switch (id) {
        case VT_ARGS_ERROR: return 2;
        case VT_ARGS_OPERAND:
            if (vt_args_one_trace(&a, &path, v)) return 2;
            break;
        case O_HELP: fputs(usage, stdout); return 0;
        case O_RULES: if (vt_cat_opts_add_rules(&cat, v)) return 2; break;
        case O_NO_DEFAULT_RULES: cat.no_default_rules = 1; break;
        default:
            if (vt_fit_opts_take(&fo, &a, id == O_ALLOC ? VT_FIT_OPT_ALLOCATOR : id == O_MEM ? VT_FIT_OPT_MEMORY
                                 : id == O_CTX ? VT_FIT_OPT_CONTEXT : id == O_CONF ? VT_FIT_OPT_CONF
                                 : id == O_DEV ? VT_FIT_OPT_DEVICE : id == O_JSON ? VT_FIT_OPT_JSON
                                 : id == O_CAP ? VT_FIT_OPT_ALLOCATOR_CAP : VT_FIT_OPT_FRAMES, v))
                return 2;
        }
    }
    if (!path) {
        vt_args_error(&a, "missing TRACE operand");
        return 2;
    }
    if (vt_fit_opts_finish(&fo, &a)) return 2;

    vt_analyze_opts ao = { UINT64_MAX, 0, &cat, NULL };
    vt_analysis an;
    /* the models ride along the analysis's pass when they can (vt_fit_early.h); NULL
     * (out of memory, or VRAMTRACE_FIT_TWO_PASS=1: its test runs every fit golden so): a
     * second pass */
    const char *two = getenv("VRAMTRACE_FIT_TWO_PASS");
    vt_fit_early *early =
        two && *two == '1' ? NULL : vt_fit_early_new(fo.kind, &fo.conf, fo.device >= 0 ? fo.device : -1);
    int rc = vt_analyze_tap(&an, 1, &path, &ao, early ? vt_fit_early_tap(early) : NULL);
    if (rc) { vt_fit_early_free(early); vt_analysis_free(&an); return rc; }
    vt_fit_trace ft;
    rc = vt_fit_trace_prepare(&ft, &an, 0, &fo);
    if (!rc) rc = vt_fit_trace_run(&ft, &fo, early);
    vt_fit_early_free(early);
    if (!rc) rc = fo.json ? vt_fit_show_json(&ft, &fo) : vt_fit_show_text(&ft, &fo);
    vt_fit_trace_free(&ft);
    vt_analysis_free(&an);
    return rc;
}
