// SPDX-License-Identifier: MIT
/* vt_cmd_flamegraph.c - `vramtrace flamegraph TRACE [-o FILE.html|FILE.svg]`: the call
 * tree of the sites weighted by bytes at the peak, allocated, or leaked
 * (docs/pictures.md). */
#include "vt_cmds.h"

#include "vt_args.h"
#include "vt_analyze.h"
#include "vt_export.h"
#include "vt_export_common.h"
#include "vt_html.h"
#include "vt_mark_cmd.h"
#include "vt_svg.h"
#include "vt_units.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static const char usage[] =
    "usage: vramtrace flamegraph TRACE [-o FILE.html|FILE.svg] [--what peak|allocated|leaked]\n"
    "                            [--at peak|end|TIME|mark:NAME] [--device N|all] [--flame]\n"
    "                            [--inverted] [--native] [--format html|svg] [--title TEXT]\n"
    "  The call stacks of the allocations as an icicle graph (outermost frame at the top;\n"
    "  --flame puts it at the bottom), each frame as wide as the bytes under it: live at\n"
    "  the peak (default), allocated over the whole run, or leaked (live at the end).\n"
    "  --at: live at the peak, at the end, at TIME (12.5s), or at the first mark NAME the\n"
    "  program made (vramtrace.mark()); instead of --what.\n"
    "  --inverted: the innermost frames (where the memory was allocated) at the root, their\n"
    "  callers under them (the HTML page toggles it, and has a search box).\n"
    "  HTML (click to zoom, hover for details) unless FILE ends in .svg. By default a stack\n"
    "  with Python frames shows them with the ATen op as their leaf, and interpreter and\n"
    "  allocator plumbing frames are left out; --native shows every frame.\n"
    "  Without -o: TRACE's name with .flamegraph.html (.svg with --format svg) here.\n";

int vt_cmd_flamegraph(int argc, char **argv)
{
    enum { O_OUT = 1, O_WHAT, O_AT, O_DEVICE, O_FLAME, O_ICICLE, O_FORMAT, O_TITLE, O_NATIVE, O_INVERTED, O_HELP };
    static const vt_opt opts[] = {
        { "output", 'o', 1, O_OUT }, { "what", 0, 1, O_WHAT }, { "at", 0, 1, O_AT }, { "device", 0, 1, O_DEVICE },
        { "flame", 0, 0, O_FLAME }, { "icicle", 0, 0, O_ICICLE }, { "format", 0, 1, O_FORMAT },
        { "title", 0, 1, O_TITLE }, { "native", 0, 0, O_NATIVE }, { "inverted", 0, 0, O_INVERTED },
        { "help", 'h', 0, O_HELP }, { NULL, 0, 0, 0 }
    };
    const char *out = NULL, *title = NULL;
    char *path = NULL;
    int svg = -1, flame = 0, device = VT_ALL_DEVICES, native = 0, inverted = 0;
    vt_what what = VT_WHAT_PEAK;
    /* --at TIME and mark:NAME replay up to that moment; what is live then is what a
     * replay stopped there leaves live at its end. */
    int has_what = 0, has_at = 0;
    uint64_t at_time = UINT64_MAX;
    const char *at_mark = NULL;
    vt_args a;
    vt_args_init(&a, "flamegraph", argc, argv);
    const char *v;
    int id;
    while ((id = vt_args_next(&a, opts, &v)) != VT_ARGS_END) {
        switch (id) {
        case VT_ARGS_ERROR: return 2;
        case VT_ARGS_OPERAND:
            if (vt_args_one_trace(&a, &path, v)) return 2;
            break;
        case O_OUT: out = v; break;
        case O_WHAT: {
            int w = vt_what_parse(v);
            if (w < 0) { vt_args_error(&a, "bad value '%s' for --what (peak, allocated or leaked)", v); return 2; }
            what = (vt_what)w;
            has_what = 1;
            break;
        }
        case O_AT:
            has_at = 1;
            if (!strcmp(v, "peak")) what = VT_WHAT_PEAK;
            else if (!strcmp(v, "end")) what = VT_WHAT_LEAKED;
            else if (!strncmp(v, "mark:", 5) && v[5]) what = VT_WHAT_LEAKED, at_mark = v + 5;
            else if (vt_units_parse_time(v, &at_time) == 0) what = VT_WHAT_LEAKED;
            else { vt_args_error(&a, "bad value '%s' for --at (peak, end, mark:NAME, or a time like 12.5s)", v); return 2; }
            break;
        case O_DEVICE: if (vt_export_parse_device("flamegraph", v, &device)) return 2; break;
        case O_FLAME: flame = 1; break;
        case O_ICICLE: flame = 0; break;
        case O_FORMAT:
            if (!strcmp(v, "html")) svg = 0;
            else if (!strcmp(v, "svg")) svg = 1;
            else { vt_args_error(&a, "bad value '%s' for --format (html or svg)", v); return 2; }
            break;
        case O_TITLE: title = v; break;
        case O_NATIVE: native = 1; break;
        case O_INVERTED: inverted = 1; break;
        case O_HELP: fputs(usage, stdout); return 0;
        }
    }
    if (!path) { vt_args_error(&a, "missing TRACE operand"); return 2; }
    if (has_what && has_at) { vt_args_error(&a, "give --what or --at, not both"); return 2; }
    char defout[512];
    if (!out) {
        vt_export_default_out(defout, sizeof defout, path, "flamegraph", svg == 1);
        out = defout;
    }
    if (svg < 0) svg = vt_export_is_svg(out);

    vt_analyze_opts ao = { at_time, 0, NULL, at_mark };
    vt_analysis an;
    int rc = vt_analyze(&an, 1, &path, &ao);
    if (rc) { vt_analysis_free(&an); return rc; }
    if (at_mark && vt_mark_missing("flamegraph", &an.t[0], at_mark)) { vt_analysis_free(&an); return 2; }
    int at_moment = at_mark || at_time != UINT64_MAX;
    vt_eset e;
    rc = vt_eset_init(&e, &an, device);
    vt_ftree t, inv;
    memset(&t, 0, sizeof t);
    memset(&inv, 0, sizeof inv);
    if (!rc) {
        char dev[160], root[300], sub[600], b1[VT_UNITS_BUF], b2[VT_UNITS_BUF], deftitle[300];
        vt_eset_label(&e, dev, sizeof dev);
        switch (what) {
        case VT_WHAT_ALLOCATED:
            snprintf(sub, sizeof sub, "bytes allocated over the whole run: %s; device memory of %s",
                     vt_units_size(b1, e.sum[what]), dev);
            break;
        case VT_WHAT_LEAKED:
            if (at_mark)
                snprintf(sub, sizeof sub, "bytes live at mark '%s' (%s): %s; device memory of %s", at_mark,
                         vt_units_time(b2, vt_replay_result_of(an.t[0].rp)->stop_time),
                         vt_units_size(b1, e.sum[what]), dev);
            else if (at_moment)
                snprintf(sub, sizeof sub, "bytes live at %s: %s; device memory of %s", vt_units_time(b2, at_time),
                         vt_units_size(b1, e.sum[what]), dev);
            else
                snprintf(sub, sizeof sub, "bytes still live at the end: %s; device memory of %s",
                         vt_units_size(b1, e.sum[what]), dev);
            break;
        default:
            snprintf(sub, sizeof sub, "bytes live at the peak: %s at %s; device memory of %s",
                     vt_units_size(b1, e.tk->peak), vt_units_time(b2, e.tk->peak_time), dev);
            break;
        }
        if (inverted) {
            size_t k = strlen(sub);
            snprintf(sub + k, sizeof sub - k, "; inverted: the innermost frames at the root, their callers under them");
        }
        const char *wname = at_moment ? "live then" : vt_what_name(what);
        snprintf(root, sizeof root, "all (%s)", wname);
        if (!title) {
            snprintf(deftitle, sizeof deftitle, "GPU memory by call stack (%s): %s (pid %u)", wname,
                     vt_export_program(&an), an.t[0].rd.hdr.pid);
            title = deftitle;
        }
        /* the SVG draws the inverted tree itself; the page builds it from the other */
        if (vt_ftree_build(&t, &e, what, root, native) || (inverted && svg && vt_ftree_invert(&inv, &t))) {
            fprintf(stderr, "vramtrace: out of memory\n");
            rc = 2;
        } else {
            FILE *f = vt_export_open(out, 0);
            if (!f) rc = 2;
            else {
                rc = svg ? vt_svg_flame(f, &an, inverted ? &inv : &t, title, sub, flame)
                         : vt_html_flame(f, &an, &t, title, sub, flame, inverted);
                int rc2 = vt_export_close(f, out);
                if (!rc) rc = rc2;
            }
            struct stat st;
            if (!rc && strcmp(out, "-") && stat(out, &st) == 0)
                fprintf(stderr, "vramtrace: wrote %s (%s, %lld bytes)\n", out, svg ? "SVG" : "HTML", (long long)st.st_size);
        }
    }
    vt_ftree_free(&inv);
    vt_ftree_free(&t);
    vt_eset_free(&e);
    vt_analysis_free(&an);
    return rc;
}
