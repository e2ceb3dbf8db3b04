// SPDX-License-Identifier: MIT
/* vt_cmd_timeline.c - `vramtrace timeline TRACE [-o FILE.html|FILE.svg]`: device memory
 * over time as a stacked area chart by category, site or kind (docs/pictures.md). */
#include "vt_cmds.h"

#include "vt_args.h"
#include "vt_analyze.h"
#include "vt_cat.h"
#include "vt_export.h"
#include "vt_export_common.h"
#include "vt_html.h"
#include "vt_moments.h"
#include "vt_series.h"
#include "vt_svg.h"
#include "vt_units.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char usage[] =
    "usage: vramtrace timeline TRACE [-o FILE.html|FILE.svg] [--by category|site|kind|layer] [--top N]\n"
    "                          [--device N|all] [--from TIME] [--to TIME] [--buckets N]\n"
    "                          [--format html|svg] [--title TEXT] [--stacks N] [--rules FILE]...\n"
    "                          [--no-default-rules]\n"
    "  Device memory over time, stacked by category (default), by the top N sites or layers\n"
    "  (default 10, then \"other\"), or by allocation kind; the peak marked, NVML drawn as a\n"
    "  line.\n"
    "  HTML (one self-contained file: zoom, hover, legend; click a moment for the top\n"
    "  --stacks N sites live then, default 10, 0 for none) unless FILE ends in .svg.\n"
    "  Without -o: TRACE's name with .timeline.html (.svg with --format svg) here.\n"
    "  --device: one GPU (default: all of them together). --from/--to: a time range\n"
    "  (12.5s, 300ms, ...). --buckets: time resolution (default 2000, max 1000000).\n"
    "  --rules, --no-default-rules: category rules, as for report (docs/categories.md).\n";

int vt_cmd_timeline(int argc, char **argv)
{
    enum { O_OUT = 1, O_BY, O_TOP, O_DEVICE, O_FROM, O_TO, O_BUCKETS, O_FORMAT, O_TITLE, O_RULES, O_NO_DEFAULT_RULES,
           O_STACKS, O_HELP };
    static const vt_opt opts[] = {
        { "output", 'o', 1, O_OUT }, { "by", 0, 1, O_BY }, { "top", 0, 1, O_TOP },
        { "device", 0, 1, O_DEVICE }, { "from", 0, 1, O_FROM }, { "to", 0, 1, O_TO },
        { "buckets", 0, 1, O_BUCKETS }, { "format", 0, 1, O_FORMAT }, { "title", 0, 1, O_TITLE },
        { "rules", 0, 1, O_RULES }, { "no-default-rules", 0, 0, O_NO_DEFAULT_RULES },
        { "stacks", 0, 1, O_STACKS }, { "help", 'h', 0, O_HELP }, { NULL, 0, 0, 0 }
    };
    vt_series_opts so = { VT_SERIES_BY_CATEGORY, VT_ALL_DEVICES, 10, 2000, 0, UINT64_MAX, 0 };
    const char *out = NULL, *title = NULL;
    char *path = NULL;
    int svg = -1;
    uint64_t u, stacks = 10;
    vt_cat_opts cat = { .nrules = 0 };
    vt_args a;
    vt_args_init(&a, "timeline", argc, argv);
    const char *v;
    int id;
    while ((id = vt_args_next(&a, opts, &v)) != VT_ARGS_END) {
        switch (id) {
        case VT_ARGS_ERROR: return 2;
        case VT_ARGS_OPERAND:
            if (vt_args_one_trace(&a, &path, v)) return 2;
            break;
        case O_OUT: out = v; break;
        case O_BY:
            if (!strcmp(v, "category")) so.by = VT_SERIES_BY_CATEGORY;
            else if (!strcmp(v, "site")) so.by = VT_SERIES_BY_SITE;
            else if (!strcmp(v, "kind")) so.by = VT_SERIES_BY_KIND;
            else if (!strcmp(v, "layer")) so.by = VT_SERIES_BY_LAYER;
            else { vt_args_error(&a, "bad value '%s' for --by (category, site, kind or layer)", v); return 2; }
            break;
        case O_TOP:
            if (vt_args_uint(&a, "--top", v, VT_SERIES_MAX - 1, &u)) return 2;
            if (!u) { vt_args_error(&a, "--top must be at least 1"); return 2; }
            so.top = (unsigned)u;
            break;
        case O_DEVICE: if (vt_export_parse_device("timeline", v, &so.device)) return 2; break;
        case O_FROM:
            if (vt_units_parse_time(v, &so.from)) { vt_args_error(&a, "bad time '%s' for --from", v); return 2; }
            break;
        case O_TO:
            if (vt_units_parse_time(v, &so.to)) { vt_args_error(&a, "bad time '%s' for --to", v); return 2; }
            break;
        case O_BUCKETS:
            if (vt_args_uint(&a, "--buckets", v, 1000000, &u)) return 2;
            if (u < 1) { vt_args_error(&a, "--buckets must be at least 1"); return 2; }
            so.nbuckets = (size_t)u;
            break;
        case O_FORMAT:
            if (!strcmp(v, "html")) svg = 0;
            else if (!strcmp(v, "svg")) svg = 1;
            else { vt_args_error(&a, "bad value '%s' for --format (html or svg)", v); return 2; }
            break;
        case O_TITLE: title = v; break;
        case O_STACKS: if (vt_args_uint(&a, "--stacks", v, 100, &stacks)) return 2; break;
        case O_RULES:
            if (vt_cat_opts_add_rules(&cat, v)) return 2;
            break;
        case O_NO_DEFAULT_RULES: cat.no_default_rules = 1; break;
        case O_HELP: fputs(usage, stdout); return 0;
        }
    }
    if (!path) { vt_args_error(&a, "missing TRACE operand"); return 2; }
    if (so.to != UINT64_MAX && so.to <= so.from) { vt_args_error(&a, "--to must be after --from"); return 2; }
    char defout[512];
    if (!out) {
        vt_export_default_out(defout, sizeof defout, path, "timeline", svg == 1);
        out = defout;
    }
    if (svg < 0) svg = vt_export_is_svg(out);

    vt_analyze_opts ao = { UINT64_MAX, 0, &cat, NULL };
    vt_analysis an;
    int rc = vt_analyze(&an, 1, &path, &ao);
   
    if (rc) { vt_analysis_free(&an); return rc; }
    vt_series s;
    vt_moments m = { 0 };
    rc = vt_series_build(&s, &an, &so);
    /* the HTML's click-for-stacks: one more pass, to each bucket's highest and lowest moment */
    int with_moments = !rc && !svg && stacks > 0;
    if (with_moments) rc = vt_moments_build(&m, &an, 0, &s, (unsigned)stacks);
    if (!rc) {
        char deftitle[300];
        if (!title) {
            snprintf(deftitle, sizeof deftitle, "GPU memory over time: %s (pid %u)", vt_export_program(&an),
                     an.t[0].rd.hdr.pid);
            title = deftitle;
        }
        FILE *f = vt_export_open(out, 0);
        if (!f) rc = 2;
        else {
            rc = svg ? vt_svg_timeline(f, &an, &s, title) : vt_html_timeline(f, &an, &s, with_moments ? &m : NULL, title);
            int rc2 = vt_export_close(f, out);
            if (!rc) rc = rc2;
        }
        struct stat st;
        if (!rc && strcmp(out, "-") && stat(out, &st) == 0)
            fprintf(stderr, "vramtrace: wrote %s (%s, %lld bytes)\n", out, svg ? "SVG" : "HTML", (long long)st.st_size);
    }
    vt_moments_free(&m);
    vt_series_free(&s);
    vt_analysis_free(&an);
    return rc;
}
