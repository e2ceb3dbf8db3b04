// SPDX-License-Identifier: MIT
/* vt_cmd_export.c - `vramtrace export --format FORMAT TRACE [-o FILE]`: the trace in
 * the formats other tools read (docs/pictures.md). */
#include "vt_cmds.h"

#include "vt_args.h"
#include "vt_analyze.h"
#include "vt_cat.h"
#include "vt_export.h"
#include "vt_export_common.h"
#include "vt_series.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The one table of formats: X(name, writer, binary output, help lines after the name). */
#define VT_EXPORT_FORMATS(X) \
    X("folded", vt_export_folded, 0, "stacks for flamegraph.pl, inferno and speedscope (bytes per stack)\n") \
    X("folded-classes", vt_export_folded_classes, 0, \
      "the same, each frame ending in its class: _[j] user, _[i] library, _[w]\n" \
      "                    interpreter, _[k] plumbing, none framework (flamegraph.pl --colors=java)\n") \
    X("pprof", vt_export_pprof, 1, "gzipped pprof profile: go tool pprof -http=: FILE\n") \
    X("perfetto", vt_export_perfetto, 1, \
      "Perfetto protobuf trace (ui.perfetto.dev): a counter track per category,\n" \
      "                    peak and OOM instants, heap profiles at the peak and at the end\n" \
      "                    with the call stacks; --buckets sets its time resolution (default 10000)\n") \
    X("perfetto-json", vt_export_perfetto_json, 0, \
      "its counters and instants as Chrome trace JSON (chrome://tracing)\n") \
    X("speedscope", vt_export_speedscope, 0, "speedscope JSON (www.speedscope.app)\n") \
    X("csv", vt_export_csv, 0, "one row per event\n") \
    X("csv-stacks", vt_export_csv_stacks, 0, "the frames of the stacks csv names, one row per frame\n")

#define VT_FORMAT_ROW_(name, fn, binary, help) { name, fn, binary, help },
static const struct {
    const char *name;
    int (*fn)(FILE *, const vt_analysis *, const vt_export_opts *);
    int binary;
    const char *help;
} formats[] = { VT_EXPORT_FORMATS(VT_FORMAT_ROW_) };
#undef VT_FORMAT_ROW_
#define NFORMATS ((int)(sizeof formats / sizeof formats[0]))

static const char usage_head[] =
    "usage: vramtrace export --format FORMAT TRACE [-o FILE] [--what peak|allocated|leaked]\n"
    "                            [--device N|all] [--buckets N] [--rules FILE]... [--no-default-rules]\n"
    "  FORMAT:\n";
static const char usage_tail[] =
    "  --what: the bytes of folded stacks, the default sample type of pprof, the profile\n"
    "  speedscope opens first: live at the peak (default), allocated, or leaked at the end.\n"
    "  --rules, --no-default-rules: category rules, as for report (docs/categories.md).\n"
    "  Without -o (or with -o -) the output goes to stdout.\n";

static void usage(FILE *f)
{
    fputs(usage_head, f);
    for (int i = 0; i < NFORMATS; i++) fprintf(f, "    %-15s %s", formats[i].name, formats[i].help);
    fputs(usage_tail, f);
}

/* "folded, pprof, ... or csv" */
static void format_list(char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = 0;
    for (int i = 0; i < NFORMATS && len < n; i++)
        len += (size_t)snprintf(buf + len, n - len, "%s%s", i == 0 ? "" : i == NFORMATS - 1 ? " or " : ", ",
                                formats[i].name);
}

int vt_cmd_export(int argc, char **argv)
{
    enum { O_OUT = 1, O_FORMAT, O_WHAT, O_DEVICE, O_BUCKETS, O_RULES, O_NO_DEFAULT_RULES, O_HELP };
    static const vt_opt opts[] = {
        { "output", 'o', 1, O_OUT }, { "format", 'f', 1, O_FORMAT }, { "what", 0, 1, O_WHAT },
        { "device", 0, 1, O_DEVICE }, { "buckets", 0, 1, O_BUCKETS }, { "rules", 0, 1, O_RULES },
        { "no-default-rules", 0, 0, O_NO_DEFAULT_RULES }, { "help", 'h', 0, O_HELP }, { NULL, 0, 0, 0 }
    };
    const char *out = "-";
    char *path = NULL;
    int fmt = -1;
    vt_export_opts eo = { VT_WHAT_PEAK, VT_ALL_DEVICES, 0 };
    uint64_t u;
    vt_cat_opts cat = { .nrules = 0 };
    vt_args a;
    vt_args_init(&a, "export", argc, argv);
    const char *v;
    int id;
    while ((id = vt_args_next(&a, opts, &v)) != VT_ARGS_END) {
        switch (id) {
        case VT_ARGS_ERROR: return 2;
        case VT_ARGS_OPERAND:
            if (vt_args_one_trace(&a, &path, v)) return 2;
            break;
        case O_OUT: out = v; break;
        case O_FORMAT:
            fmt = -1;
            for (int i = 0; i < NFORMATS; i++)
                if (!strcmp(v, formats[i].name)) fmt = i;
            if (fmt < 0) {
                char list[128];
                format_list(list, sizeof list);
                vt_args_error(&a, "bad value '%s' for --format (%s)", v, list);
                return 2;
            }
            break;
        case O_WHAT: {
            int w = vt_what_parse(v);
            if (w < 0) { vt_args_error(&a, "bad value '%s' for --what (peak, allocated or leaked)", v); return 2; }
            eo.what = (vt_what)w;
            break;
        }
        case O_DEVICE: if (vt_export_parse_device("export", v, &eo.device)) return 2; break;
        case O_BUCKETS:
            if (vt_args_uint(&a, "--buckets", v, 1000000, &u)) return 2;
            if (u < 1) { vt_args_error(&a, "--buckets must be at least 1"); return 2; }
            eo.buckets = (size_t)u;
            break;
        case O_RULES:
            if (vt_cat_opts_add_rules(&cat, v)) return 2;
            break;
        case O_NO_DEFAULT_RULES: cat.no_default_rules = 1; break;
        case O_HELP: usage(stdout); return 0;
        }
    }
    if (fmt < 0) { vt_args_error(&a, "missing --format FORMAT"); return 2; }
    if (!path) { vt_args_error(&a, "missing TRACE operand"); return 2; }
    if (formats[fmt].binary && !strcmp(out, "-") && isatty(STDOUT_FILENO)) {
        vt_args_error(&a, "%s output is binary: use -o FILE", formats[fmt].name);
        return 2;
    }
    vt_analyze_opts ao = { UINT64_MAX, 0, &cat, NULL };
    vt_analysis an;
    int rc = vt_analyze(&an, 1, &path, &ao);
    if (rc) { vt_analysis_free(&an); return rc; }
    FILE *f = vt_export_open(out, formats[fmt].binary);
    if (!f) rc = 2;
    else {
        rc = formats[fmt].fn(f, &an, &eo);
        int rc2 = vt_export_close(f, out);
        if (!rc) rc = rc2;
    }
    vt_analysis_free(&an);
    return rc;
}
