// SPDX-License-Identifier: MIT
/* vt_cmd_check.c - `vramtrace check TRACE --max-peak SIZE [--max-leak SIZE] [--json]`: a
 * gate for CI. Exit 0 within bounds; 1 with one line per broken bound (or the verdict
 * as one JSON document, docs/json-schema.md). */
#include "vt_cmds.h"

#include "vt_analyze.h"
#include "vt_args.h"
#include "vt_json.h"
#include "vt_replay.h"
#include "vt_reader.h"
#include "vt_units.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

static const char usage[] =
    "usage: vramtrace check TRACE [--max-peak SIZE] [--max-leak SIZE] [--json]\n"
    "  Exit 0 when the peak of every device is at most --max-peak and the device memory\n"
    "  still live at the end is at most --max-leak; else exit 1 with one line per\n"
    "  broken bound. SIZE: 20GiB, 1.5 GB, 512MiB, 1048576.\n"
    "  --json: the verdict as one JSON document (vramtrace-check/1) on stdout instead.\n";

int vt_cmd_check(int argc, char **argv)
{
    enum { O_PEAK = 1, O_LEAK, O_JSON, O_HELP };
    static const vt_opt opts[] = {
        { "max-peak", 0, 1, O_PEAK }, { "max-leak", 0, 1, O_LEAK }, { "json", 0, 0, O_JSON },
        { "help", 'h', 0, O_HELP },
        { NULL, 0, 0, 0 }
    };
    uint64_t max_peak = 0, max_leak = 0;
    int has_peak = 0, has_leak = 0, json = 0;
    char *path = NULL;
    vt_args a;
    vt_args_init(&a, "check", argc, argv);
    const char *v;
    int id;
    while ((id = vt_args_next(&a, opts, &v)) != VT_ARGS_END) {
        switch (id) {
        case VT_ARGS_ERROR: return 2;
        case VT_ARGS_OPERAND:
            if (vt_args_one_trace(&a, &path, v)) return 2;
            break;
        case O_PEAK: if (vt_args_size(&a, "--max-peak", v, &max_peak)) return 2; has_peak = 1; break;
        case O_LEAK: if (vt_args_size(&a, "--max-leak", v, &max_leak)) return 2; has_leak = 1; break;
        case O_JSON: json = 1; break;
        case O_HELP: fputs(usage, stdout); return 0;
        }
    }
    if (!path) { vt_args_error(&a, "missing TRACE operand"); return 2; }
    if (!has_peak && !has_leak) { vt_args_error(&a, "give --max-peak and/or --max-leak"); return 2; }

    vt_analysis an;
    int rc = vt_analyze(&an, 1, &path, NULL);
    if (rc) { vt_analysis_free(&an); return rc; }
    const vt_trace *t = &an.t[0];
    /* The bound is per device: what runs out is one GPU's memory. */
    int worst = 0, any = 0;
    uint64_t peak = 0;
    for (int d = -1; d < VT_NDEV - 1; d++) {
        const vt_device *dv = vt_replay_device(t->rp, d);
        if (dv && (!any || dv->dev.peak > peak)) {
            peak = dv->dev.peak;
            worst = d;
            any = 1;
        }
    }
    uint64_t leak = an.global.live;
    int peak_bad = has_peak && peak > max_peak, leak_bad = has_leak && leak > max_leak;
    if (json) {
        vt_json j;
        vt_json_init(&j, stdout);
        vt_json_obj(&j, NULL);
        vt_json_str(&j, "schema", "vramtrace-check/1");
        vt_json_str(&j, "path", path);
        vt_json_bool(&j, "passed", !peak_bad && !leak_bad);
        vt_json_i64(&j, "peak_device", any ? worst : 0);
        vt_json_u64(&j, "peak_bytes", peak);
        if (has_peak) vt_json_u64(&j, "max_peak_bytes", max_peak);
        else vt_json_null(&j, "max_peak_bytes");
        vt_json_bool(&j, "peak_passed", !peak_bad);
        vt_json_u64(&j, "leak_bytes", leak);
        if (has_leak) vt_json_u64(&j, "max_leak_bytes", max_leak);
        else vt_json_null(&j, "max_leak_bytes");
        vt_json_bool(&j, "leak_passed", !leak_bad);
        vt_json_end(&j);
        vt_json_finish(&j);
        vt_analysis_free(&an);
        return peak_bad || leak_bad ? 1 : 0;
    }
    char b1[VT_UNITS_BUF], b2[VT_UNITS_BUF], b3[VT_UNITS_BUF];
    int failed = 0;
    if (has_peak && peak > max_peak) {
        printf("vramtrace: check failed: device %d peak %s (%" PRIu64 " bytes) is over --max-peak %s by %s "
               "(%" PRIu64 " bytes)\n", worst, vt_units_size(b1, peak), peak, vt_units_size(b2, max_peak),
               vt_units_size(b3, peak - max_peak), peak - max_peak);
        failed = 1;
    }
    if (has_leak && leak > max_leak) {
        printf("vramtrace: check failed: %s (%" PRIu64 " bytes) live at the end is over --max-leak %s by %s "
               "(%" PRIu64 " bytes)\n", vt_units_size(b1, leak), leak, vt_units_size(b2, max_leak),
               vt_units_size(b3, leak - max_leak), leak - max_leak);
        /* Why memory can be live at the end without a leak in the program. */
        const vt_replay_result *res = vt_replay_result_of(t->rp);
        uint64_t count = an.global.count, unsure = vt_replay_unsure_leaks(t->rp, count);
        if (unsure)
            printf("vramtrace: check: the recorder lost %" PRIu64 " event%s in this trace: up to %" PRIu64
                   " of the %" PRIu64 " allocation%s live at the end may be frees it lost, not leaks\n",
                   res->st->lost_events, res->st->lost_events == 1 ? "" : "s", unsure, count,
                   count == 1 ? "" : "s");
        if (t->rd.stopped)
            printf("vramtrace: check: the trace is cut short (%s): what is live at the end is what was "
                   "live where it stops\n", t->rd.err);
        else if (!res->has_trailer)
            printf("vramtrace: check: the trace has no trailer (the process was killed or crashed): what "
                   "is live at the end is what it held then\n");
        failed = 1;
    }
    if (!failed) {
        printf("vramtrace: check passed:");
        if (has_peak) printf(" peak %s <= %s", vt_units_size(b1, peak), vt_units_size(b2, max_peak));
        if (has_leak) printf("%s live at the end %s <= %s", has_peak ? ";" : "", vt_units_size(b1, leak),
                             vt_units_size(b2, max_leak));
        printf("\n");
    }
    vt_analysis_free(&an);
    return failed ? 1 : 0;
}
