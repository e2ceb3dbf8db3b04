// SPDX-License-Identifier: MIT
/* vt_export_perfetto.c - Chrome/Perfetto trace JSON (ui.perfetto.dev, chrome://tracing):
 * `export --format perfetto-json`; vt_export_perfetto_pb.c writes Perfetto's protobuf.
 *
 * Counter events ("ph": "C") make one track per category ("weights bytes", ...), one
 * for the total of the selected device memory, and one for NVML; an instant event
 * ("ph": "i", process scope) marks each OOM and the peak. The counters come from the
 * time series pass (vt_series) with --buckets buckets (default 10000), as
 * vt_export_counters.h walks them. */
#include "vt_export.h"
#include "vt_export_common.h"
#include "vt_show.h"
#include "vt_export_counters.h"
#include "vt_series.h"
#include "vt_names.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Microseconds, as the format wants, with the nanoseconds kept. */
static void put_ts(FILE *f, uint64_t ns)
{
    fprintf(f, "%" PRIu64 ".%03" PRIu64, ns / 1000, ns % 1000);
}

static void counter(FILE *f, unsigned pid, const char *name, uint64_t t, uint64_t v)
{
    fputs(",\n{\"name\":", f);
    vt_export_jstr(f, name);
    fprintf(f, ",\"cat\":\"memory\",\"ph\":\"C\",\"ts\":");
    put_ts(f, t);
    fprintf(f, ",\"pid\":%u,\"tid\":%u,\"args\":{\"bytes\":%" PRIu64 "}}", pid, pid, v);
}

typedef struct {
    FILE *f;
    unsigned pid;
    const vt_series *s;
} emitter;

static void point(void *ctx, size_t track, uint64_t t, uint64_t v)
{
    const emitter *e = ctx;
    const vt_series *s = e->s;
    const char *name = track < s->nseries ? s->series[track].name
                       : track == s->nseries ? "device memory"
                       : s->nvml_proc ? "NVML process used" : "NVML device used";
    counter(e->f, e->pid, name, t, v);
}

static void instant(FILE *f, unsigned pid, const char *name, uint64_t t)
{
    fputs(",\n{\"name\":", f);
    vt_export_jstr(f, name);
    fprintf(f, ",\"cat\":\"memory\",\"ph\":\"i\",\"s\":\"p\",\"ts\":");
    put_ts(f, t);
    fprintf(f, ",\"pid\":%u,\"tid\":%u,\"args\":{", pid, pid);
}

int vt_export_perfetto_json(FILE *f, const vt_analysis *a, const vt_export_opts *o)
{
    vt_series_opts so = { VT_SERIES_BY_CATEGORY, o->device, 0, o->buckets ? o->buckets : 10000, 0, UINT64_MAX, 1 };
    vt_series s;
    int rc = vt_series_build(&s, a, &so);
    if (rc) { vt_series_free(&s); return rc; }
    const vt_trace *t = &a->t[0];
    unsigned pid = t->rd.hdr.pid;
    char dev[160];
    vt_eset e;
    if (vt_eset_init(&e, a, o->device)) { vt_series_free(&s); return 2; }
    vt_eset_label(&e, dev, sizeof dev);
    vt_eset_free(&e);

    fputs("{\"displayTimeUnit\":\"ms\",\"otherData\":{\"exporter\":\"vramtrace\",\"trace\":", f);
    vt_export_jstr(f, t->path);
    fputs(",\"memory\":", f);
    vt_export_jstr(f, dev);
    fputs("},\n\"traceEvents\":[\n", f);
    char pname[300];
    snprintf(pname, sizeof pname, "%s (pid %u)", vt_export_program(a), pid);
    fprintf(f, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"args\":{\"name\":", pid, pid);
    vt_export_jstr(f, pname);
    fputs("}}", f);

    emitter em = { f, pid, &s };
    if (vt_export_counters(&s, point, &em)) {
        vt_series_free(&s);
        fprintf(stderr, "vramtrace: out of memory\n");
        return 2;
    }

    instant(f, pid, "peak", s.peak_time);
    fprintf(f, "\"bytes\":%" PRIu64 "}}", s.peak);
    const vt_replay *rp = t->rp;
    const vt_replay_result *res = vt_replay_result_of(rp);
    for (size_t i = 0; i < res->nooms; i++) {
        const vt_oom *oo = &res->ooms[i];
        if (o->device != VT_ALL_DEVICES && oo->device != o->device) continue;
        instant(f, pid, "OOM", oo->time);
        fprintf(f, "\"size\":%" PRIu64 ",\"device\":%d,\"kind\":", oo->size, oo->device);
        vt_export_jstr(f, vt_kind_name(oo->kind));
        fprintf(f, ",\"free\":%" PRIu64 ",\"total\":%" PRIu64 ",\"live\":%" PRIu64 ",\"site\":", oo->free_bytes,
                oo->total_bytes, oo->live);
        char site[600];   /* as report names it: the op, the user's line, the chain */
        vt_show_site_text(site, sizeof site, a, oo->site, 3);
        vt_export_jstr(f, site);
        fputs("}}", f);
    }
    fputs("\n]}\n", f);
    vt_series_free(&s);
    return 0;
}
