// SPDX-License-Identifier: MIT
/* vt_cmd_top.c - `vramtrace top TRACE [--by site|function|module|kind]
 * [--at peak|end|TIME] [--top N] [--json]`: the largest holders of device memory at
 * one moment, per device. */
#include "vt_cmds.h"

#include "vt_analyze.h"
#include "vt_args.h"
#include "vt_cat_show.h"
#include "vt_json.h"
#include "vt_mark_cmd.h"
#include "vt_names.h"
#include "vt_show_rows.h"
#include "vt_units.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: vramtrace top TRACE [--by site|function|module|kind|category|layer] [--at peak|end|TIME|mark:NAME]\n"
    "                     [--top N] [--frames VIEW|N] [--rules FILE]... [--no-default-rules] [--json]\n"
    "  The largest holders of device memory at the peak (default), at the end, or at\n"
    "  TIME since the start (12.5s, 300ms, 40us), or at the first mark NAME the program\n"
    "  made (vramtrace.mark(\"epoch 2\"): --at \"mark:epoch 2\"), per device.\n"
    "  function and module are those of the innermost frame that is not CUDA plumbing;\n"
    "  category is what the memory is for (docs/categories.md), by rule or inferred;\n"
    "  layer is the innermost NVTX range or module scope, else the innermost Python\n"
    "  frame of the program's own code (docs/python.md), with the most it held.\n";

static const char *by_name(vt_by by)
{
    return by == VT_BY_SITE ? "site" : by == VT_BY_FUNCTION ? "function" : by == VT_BY_MODULE ? "module"
         : by == VT_BY_CATEGORY ? "category" : by == VT_BY_LAYER ? "layer" : "kind";
}

/* Layers: what each held at the moment (rows with bytes, sorted), then every layer
 * ranked by the most it held at any time (a layer may peak at another moment). */
static void text_layers(const vt_analysis *an, const vt_row *rows, size_t n, uint64_t whole, uint64_t top)
{
    char b1[VT_UNITS_BUF], b2[VT_UNITS_BUF], b3[VT_UNITS_BUF], tb[VT_UNITS_BUF];
    printf("         bytes        %%     live   allocs   allocated   most held  layer\n");
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const vt_row *r = &rows[i];
        if (!r->bytes || k++ >= top) continue;
        printf("    %10s  %6.1f%%  %7" PRIu64 "  %7" PRIu64 "  %10s  %10s  %s\n", vt_units_size(b1, r->bytes),
               whole ? 100.0 * (double)r->bytes / (double)whole : 0.0, r->count, r->nallocs,
               vt_units_size(b2, r->total_bytes), r->key >= VT_ROW_POOL ? "-" : vt_units_size(b3, r->max_bytes),
               vt_row_name(an, VT_BY_LAYER, r->key));
    }
    if (k > top) printf("    ... %zu more\n", k - (size_t)top);
    vt_row *by_max = malloc((n ? n : 1) * sizeof *by_max);
    if (!by_max) return;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (rows[i].key < VT_ROW_POOL && rows[i].max_bytes) by_max[m++] = rows[i];
    for (size_t i = 1; i < m; i++) {  /* insertion sort: stable, few rows */
        vt_row x = by_max[i];
        size_t j = i;
        for (; j > 0 && by_max[j - 1].max_bytes < x.max_bytes; j--) by_max[j] = by_max[j - 1];
        by_max[j] = x;
    }
    if (m) {
        printf("  by the most each held at any time:\n");
        printf("     most held       when  layer\n");
    }
    for (size_t i = 0; i < m && i < top; i++)
        printf("    %10s  %9s  %s\n", vt_units_size(b1, by_max[i].max_bytes), vt_units_time(tb, by_max[i].max_time),
               vt_row_name(an, VT_BY_LAYER, by_max[i].key));
    if (m > top) printf("    ... %zu more\n", m - (size_t)top);
    free(by_max);
}

int vt_cmd_top(int argc, char **argv)
{
    enum { O_BY = 1, O_AT, O_TOP, O_JSON, O_FRAMES, O_RULES, O_NO_DEFAULT_RULES, O_HELP };
    static const vt_opt opts[] = {
        { "by", 0, 1, O_BY }, { "at", 0, 1, O_AT }, { "top", 0, 1, O_TOP }, { "json", 0, 0, O_JSON },
        { "frames", 0, 1, O_FRAMES }, { "rules", 0, 1, O_RULES }, { "no-default-rules", 0, 0, O_NO_DEFAULT_RULES },
        { "help", 'h', 0, O_HELP }, { NULL, 0, 0, 0 }
    };
    vt_cat_opts cat = { .nrules = 0 };
    vt_by by = VT_BY_SITE;
    int at_mode = 0; /* 0 peak, 1 end, 2 time, 3 mark */
    const char *at_mark = NULL;
    uint64_t at_time = 0, top = 10;
    vt_frames frames = { VT_VIEW_USER, 0 };
    int json = 0;
    char *path = NULL;
    vt_args a;
    vt_args_init(&a, "top", argc, argv);
    const char *v;
    int id;
    while ((id = vt_args_next(&a, opts, &v)) != VT_ARGS_END) {
        switch (id) {
        case VT_ARGS_ERROR: return 2;
        case VT_ARGS_OPERAND:
            if (vt_args_one_trace(&a, &path, v)) return 2;
            break;
        case O_BY:
            if (!strcmp(v, "site")) by = VT_BY_SITE;
            else if (!strcmp(v, "function")) by = VT_BY_FUNCTION;
            else if (!strcmp(v, "module")) by = VT_BY_MODULE;
            else if (!strcmp(v, "kind")) by = VT_BY_KIND;
            else if (!strcmp(v, "category")) by = VT_BY_CATEGORY;
            else if (!strcmp(v, "layer")) by = VT_BY_LAYER;
            else {
                vt_args_error(&a, "bad value '%s' for --by (site, function, module, kind, category or layer)", v);
               
                return 2;
            }
            break;
        case O_AT:
            if (!strcmp(v, "peak")) at_mode = 0;
            else if (!strcmp(v, "end")) at_mode = 1;
            else if (vt_units_parse_time(v, &at_time) == 0) at_mode = 2;
            else if (!strncmp(v, "mark:", 5) && v[5]) at_mode = 3, at_mark = v + 5;
            else {
                vt_args_error(&a, "bad value '%s' for --at (peak, end, mark:NAME, or a time like 12.5s)", v);
               
                return 2;
            }
            break;
        case O_TOP: if (vt_args_uint(&a, "--top", v, 1000000, &top)) { return 2; } break;
        case O_FRAMES:
            if (vt_show_frames_parse(v, &frames)) { vt_args_error(&a, VT_SHOW_FRAMES_ERROR, v); return 2; }
            break;
        case O_RULES: if (vt_cat_opts_add_rules(&cat, v)) return 2; break;
        case O_NO_DEFAULT_RULES: cat.no_default_rules = 1; break;
        case O_JSON: json = 1; break;
        case O_HELP: fputs(usage, stdout); return 0;
        }
    }
    if (!path) {
        vt_args_error(&a, "missing TRACE operand");
       
        return 2;
    }
    vt_analyze_opts ao = { at_mode == 2 ? at_time : UINT64_MAX, 0, &cat, at_mark };
    vt_analysis an;
    int rc = vt_analyze(&an, 1, &path, &ao);
   
    if (rc) { vt_analysis_free(&an); return rc; }

    const vt_trace *t = &an.t[0];
    if (at_mode == 3) {
        if (vt_mark_missing("top", t, at_mark)) { vt_analysis_free(&an); return 2; }
        at_time = vt_replay_result_of(t->rp)->stop_time;
    }
    int devs[VT_NDEV];
    size_t nd = vt_trace_devices(t, devs, VT_NDEV);
    vt_at at = at_mode == 0 ? VT_AT_PEAK : VT_AT_END;
    vt_json j;
    char b1[VT_UNITS_BUF], b2[VT_UNITS_BUF], tb[VT_UNITS_BUF];
    if (json) {
        vt_json_init(&j, stdout);
        vt_json_obj(&j, NULL);
        vt_json_str(&j, "schema", "vramtrace-top/1");
        vt_json_str(&j, "path", t->path);
        vt_json_str(&j, "by", by_name(by));
        vt_json_str(&j, "at", at_mode == 0 ? "peak" : at_mode == 1 ? "end" : at_mode == 2 ? "time" : "mark");
        if (at_mark) vt_json_str(&j, "mark", at_mark);
        vt_json_arr(&j, "devices");
    }
    for (size_t di = 0; di < nd; di++) {
        const vt_device *d = vt_replay_device(t->rp, devs[di]);
        const vt_tracker *tk = &d->dev;
        uint64_t whole = at == VT_AT_PEAK ? tk->peak : tk->live;
        uint64_t when = at_mode == 0   ? tk->peak_time
                        : at_mode == 1 ? vt_replay_result_of(t->rp)->last_time
                                       : at_time;
        vt_row *rows;
        size_t n = vt_rows(&an, tk, at, by, &rows);
        if (n == (size_t)-1) { rc = 2; break; }
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
            if (rows[i].bytes || (by == VT_BY_LAYER && rows[i].max_bytes)) rows[k++] = rows[i];
        if (by == VT_BY_SITE && !json) k = vt_show_group_rows(&an, &frames, rows, k);
        if (json) {
            vt_json_obj(&j, NULL);
            vt_json_i64(&j, "device", devs[di]);
            vt_json_u64(&j, "time_ns", when);
            vt_json_u64(&j, "bytes", whole);
            vt_json_u64(&j, "peak_bytes", tk->peak);
            if (by == VT_BY_CATEGORY) {
                vt_cat_show_top_json(&j, "rows", &an, tk, at, top);
            } else {
                vt_json_arr(&j, "rows");
                for (size_t i = 0; i < k && i < top; i++) vt_show_row_json(&j, &an, by, &rows[i]);
                vt_json_end(&j);
            }
            vt_json_end(&j);
        } else {
            if (di) printf("\n");
            printf("device %d: ", devs[di]);
            if (at_mode == 0) printf("peak %s at %s\n", vt_units_size(b1, whole), vt_units_time(tb, when));
            else if (at_mode == 1) printf("%s live at the end (%s)\n", vt_units_size(b1, whole), vt_units_time(tb, when));
            else if (at_mode == 3) printf("%s live at mark '%s' (%s)\n", vt_units_size(b1, whole), at_mark, vt_units_time(tb, when));
            else printf("%s live at %s\n", vt_units_size(b1, whole), vt_units_time(tb, when));
            if (by == VT_BY_CATEGORY) {
                vt_cat_show_top_text(&an, tk, at, whole, top);
                free(rows);
                continue;
            }
            if (by == VT_BY_LAYER) {
                text_layers(&an, rows, k, whole, top);
                free(rows);
                continue;
            }
            printf("         bytes        %%     live   allocs   allocated  %s\n", by_name(by));
            for (size_t i = 0; i < k && i < top; i++) {
                const vt_row *r = &rows[i];
                printf("    %10s  %6.1f%%  %7" PRIu64 "  %7" PRIu64 "  %10s  ", vt_units_size(b1, r->bytes),
                       whole ? 100.0 * (double)r->bytes / (double)whole : 0.0, r->count, r->nallocs,
                       vt_units_size(b2, r->total_bytes));
                if (by == VT_BY_SITE) vt_show_row_site(stdout, &an, r->key, &frames, 55);
                else printf("%s\n", vt_row_name(&an, by, r->key));
            }
            if (k > top) printf("    ... %zu more\n", k - (size_t)top);
        }
        free(rows);
    }
    if (json) {
        vt_json_end(&j);
        vt_json_end(&j);
        vt_json_finish(&j);
    } else if (!nd) {
        printf("no device memory was allocated\n");
    }
    vt_analysis_free(&an);
    return rc;
}
