// SPDX-License-Identifier: MIT
/* vt_cmd_report.c - `vramtrace report TRACE... [--top N] [--frames N] [--json]`:
 * per device, the peak and what made it, what was left at the end, OOM events, the
 * NVML figure and what no allocation explains; pinned host memory apart; several
 * traces are merged on a common clock. */
#include "vt_cmds.h"

#include "vt_analyze.h"
#include "vt_args.h"
#include "vt_format.h"
#include "vt_cat_show.h"
#include "vt_gap.h"
#include "vt_json.h"
#include "vt_layer_show.h"
#include "vt_names.h"
#include "vt_ranks.h"
#include "vt_ranks_show.h"
#include "vt_show_rows.h"
#include "vt_units.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    uint64_t top;
    vt_frames frames;
    int json;
    vt_cat_opts cat;
} rep_opts;

static double pct(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* ------------------------------------------------------------------------ *
 *  Pieces shared by the text and JSON forms
 * ------------------------------------------------------------------------ */
/* The NVML and pool rows of a category block (vt_gap.h). */
static void nvml_extra(const vt_replay *rp, int device, vt_cat_extra *x)
{
    vt_gap g;
    vt_gap_of(rp, device, &g);
    memset(x, 0, sizeof *x);
    x->has_pool = g.has_pool;
    x->pool_slack = g.pool_slack;
    if (!g.known) return;
    x->has_unexplained = 1;
    x->unexplained = g.unexplained;
    x->nvml_time = g.time;
}

static const char *end_state(const vt_trace *t)
{
    if (t->rd.stopped) return "cut short";
    const vt_replay_result *res = vt_replay_result_of(t->rp);
    if (!res->has_trailer) return "no trailer";
    return (res->trailer_flags & 1) ? "clean" : "trailer";
}

static uint64_t min_start(const vt_analysis *a)
{
    uint64_t m = UINT64_MAX;
    for (int i = 0; i < a->n; i++)
        if (a->t[i].rd.hdr.start_realtime_ns < m) m = a->t[i].rd.hdr.start_realtime_ns;
    return m == UINT64_MAX ? 0 : m;
}

/* Peak time of a shared tracker, counted from the earliest start of the analysis. */
static uint64_t shared_peak_time(const vt_analysis *a, const vt_tracker *tk)
{
    if (a->n == 1) return tk->peak_time;
    uint64_t m = min_start(a);
    return tk->peak_rt > m ? tk->peak_rt - m : 0;
}

/* ------------------------------------------------------------------------ *
 *  Text
 * ------------------------------------------------------------------------ */
static void text_site_rows(const vt_analysis *a, const vt_row *rows, size_t n, uint64_t whole,
                           const rep_opts *o, int with_total)
{
    char b1[VT_UNITS_BUF], b2[VT_UNITS_BUF];
    if (with_total)
        printf("         bytes        %%     live   allocs   allocated  site\n");
    else
        printf("         bytes        %%     live  site\n");
    for (size_t i = 0; i < n && i < o->top; i++) {
        const vt_row *r = &rows[i];
        if (with_total) {
            printf("    %10s  %6.1f%%  %7" PRIu64 "  %7" PRIu64 "  %10s  ", vt_units_size(b1, r->bytes),
                   pct(r->bytes, whole), r->count, r->nallocs, vt_units_size(b2, r->total_bytes));
            vt_show_row_site(stdout, a, r->key, &o->frames, 55);
        } else {
            printf("    %10s  %6.1f%%  %7" PRIu64 "  ", vt_units_size(b1, r->bytes), pct(r->bytes, whole),
                   r->count);
            vt_show_row_site(stdout, a, r->key, &o->frames, 36);
        }
    }
    if (n > o->top) printf("    ... %zu more sites\n", n - (size_t)o->top);
}

static void text_kinds(const vt_analysis *a, const vt_tracker *tk, uint64_t whole)
{
    vt_row *rows;
    size_t n = vt_rows(a, tk, VT_AT_PEAK, VT_BY_KIND, &rows);
    if (n == (size_t)-1) return;
    char b[VT_UNITS_BUF];
    printf("  by kind at the peak:\n");
    for (size_t i = 0; i < n; i++)
        if (rows[i].bytes)
            printf("    %10s  %6.1f%%  %s\n", vt_units_size(b, rows[i].bytes), pct(rows[i].bytes, whole),
                   vt_kind_name(rows[i].key));
    free(rows);
}

static void text_peak_sites(const vt_analysis *a, const vt_tracker *tk, const rep_opts *o)
{
    vt_row *rows;
    size_t k = vt_show_site_rows(a, tk, VT_AT_PEAK, &o->frames, &rows);
    if (k == (size_t)-1) return;
    printf("  top sites at the peak:\n");
    text_site_rows(a, rows, k, tk->peak, o, 1);
    free(rows);
}

static void text_oom(const vt_analysis *a, int ti, const vt_oom *oo, const rep_opts *o)
{
    char b1[VT_UNITS_BUF], b2[VT_UNITS_BUF], b3[VT_UNITS_BUF], b4[VT_UNITS_BUF], tb[VT_UNITS_BUF];
    printf("    at %s: %s of %s failed", vt_units_time(tb, oo->time), vt_kind_name(oo->kind),
           vt_units_size(b1, oo->size));
    if (oo->total_bytes)
        printf(" (free %s of %s)", vt_units_size(b2, oo->free_bytes), vt_units_size(b3, oo->total_bytes));
    printf("; traced live %s\n", vt_units_size(b4, oo->live));
    if (oo->kind == VT_KIND_TORCH_BLOCK && oo->free_bytes > oo->size)
        printf("      PyTorch's allocator refused it with room on the device: a cap of its own "
               "(torch.cuda.set_per_process_memory_fraction)\n");
    printf("      asked by: ");
    vt_show_site(stdout, a, oo->site, &o->frames, 16);
    if (!oo->nsnap) return;
    vt_row *rows;
    size_t n = vt_rows_oom(a, ti, oo, VT_BY_SITE, &rows);
    if (n == (size_t)-1) return;
    n = vt_show_group_rows(a, &o->frames, rows, n);
    printf("      live then:\n");
    for (size_t i = 0; i < n && i < o->top && i < 5; i++) {
        printf("        %10s  %6.1f%%  ", vt_units_size(b1, rows[i].bytes), pct(rows[i].bytes, oo->live));
        vt_show_row_site(stdout, a, rows[i].key, &o->frames, 29);
    }
    if (n > 5 && o->top > 5) printf("        ... %zu more sites\n", n - 5);
    free(rows);
}

/* A run that died of an OOM: the first one, right under the peak, so that the first
 * screen says why the run stopped and who asked; every OOM, with what was live then,
 * comes after the sites ("out of memory"). */
static void text_oom_head(const vt_analysis *a, const vt_oom *oo, size_t nooms, const rep_opts *o)
{
    char b1[VT_UNITS_BUF], b2[VT_UNITS_BUF], b3[VT_UNITS_BUF], tb[VT_UNITS_BUF];
    printf("  OUT OF MEMORY at %s: ", vt_units_time(tb, oo->time));
    if (oo->kind == VT_KIND_TORCH_BLOCK) printf("PyTorch's allocator refused %s", vt_units_size(b1, oo->size));
    else printf("%s of %s failed", vt_kind_name(oo->kind), vt_units_size(b1, oo->size));
    if (oo->kind == VT_KIND_TORCH_BLOCK && oo->free_bytes > oo->size)
        printf(" under its own cap (%s free on the device)", vt_units_size(b2, oo->free_bytes));
    else if (oo->total_bytes)
        printf(" (free %s of %s)", vt_units_size(b2, oo->free_bytes), vt_units_size(b3, oo->total_bytes));
    if (nooms > 1) printf("; the first of %zu", nooms);
    printf("\n    asked by ");
    vt_show_site_inline(stdout, a, oo->site, &o->frames, 3);
    printf("    (every OOM and what was live then: \"out of memory\", below)\n");
}

static void text_device(const vt_analysis *a, int ti, int dev, const rep_opts *o)
{
    const vt_trace *t = &a->t[ti];
    const vt_replay *rp = t->rp;
    const vt_replay_result *res = vt_replay_result_of(rp);
    const vt_device *d = vt_replay_device(rp, dev);
    char b1[VT_UNITS_BUF], b2[VT_UNITS_BUF], b3[VT_UNITS_BUF], tb[VT_UNITS_BUF];

    printf("\ndevice %d", dev);
    if (d->has_info) {
        char u[48];
        vt_show_uuid(u, d->uuid);
        printf(": %s (%s%s%s)", d->name[0] ? d->name : "?", vt_units_size(b1, d->total),
               vt_device_has_uuid(d) ? ", " : "", vt_device_has_uuid(d) ? u : "");
    }
    printf("\n");
    const vt_tracker *tk = &d->dev;
    printf("  peak %s at %s, %" PRIu64 " allocation%s live\n", vt_units_size(b1, tk->peak),
           vt_units_time(tb, tk->peak_time), tk->peak_count, tk->peak_count == 1 ? "" : "s");
    size_t nooms = 0;
    const vt_oom *first = NULL;
    for (size_t i = 0; i < res->nooms; i++)
        if (res->ooms[i].device == dev && !nooms++) first = &res->ooms[i];
    if (first) text_oom_head(a, first, nooms, o);
    if (tk->peak) {
        vt_cat_extra cx;
        nvml_extra(rp, dev, &cx);
        text_kinds(a, tk, tk->peak);
        vt_cat_show_text(a, tk, VT_AT_PEAK, tk->peak, &cx);
        if (vt_layer_any(a)) vt_layer_show_text(a, tk, tk->peak, o->top);
        text_peak_sites(a, tk, o);
    }

    /* What was still live at the end: leaks, or memory a killed process held. */
    printf("  live at the end: %s in %" PRIu64 " allocation%s", vt_units_size(b1, tk->live), tk->count,
           tk->count == 1 ? "" : "s");
    uint64_t unsure = vt_replay_unsure_leaks(rp, tk->count);
    if (unsure)
        printf(" (up to %" PRIu64 " of them may be frees the recorder lost, not leaks)", unsure);
    printf("\n");
    if (tk->live) {
        vt_row *rows;
        size_t k = vt_show_site_rows(a, tk, VT_AT_END, &o->frames, &rows);
        if (k != (size_t)-1) {
            text_site_rows(a, rows, k, tk->live, o, 0);
            free(rows);
        }
        vt_cat_show_text(a, tk, VT_AT_END, tk->live, NULL);
    }

    if (d->managed.peak || d->managed.live)
        printf("  managed memory: peak %s at %s, live at the end %s\n", vt_units_size(b1, d->managed.peak),
               vt_units_time(tb, d->managed.peak_time), vt_units_size(b2, d->managed.live));

    if (nooms) {
        printf("  out of memory: %zu event%s\n", nooms, nooms == 1 ? "" : "s");
        size_t shown = 0;
        for (size_t i = 0; i < res->nooms; i++) {
            if (res->ooms[i].device != dev) continue;
            if (shown++ == 5) {
                printf("    ... %zu more\n", nooms - 5);
                break;
            }
            text_oom(a, ti, &res->ooms[i], o);
        }
    }

    int by_index;
    const vt_nvml *nv = vt_gap_nvml(rp, dev, &by_index);
    if (nv) {
        uint64_t traced;
        if (nv->has_proc) {
            traced = dev >= 0 && dev < VT_NVML_SNAP ? nv->proc_snap[dev] : 0;
            printf("  NVML: process used at most %s (at %s); traced live then %s; not explained by "
                   "allocations: %s\n", vt_units_size(b1, nv->proc_max), vt_units_time(tb, nv->proc_max_time),
                   vt_units_size(b2, traced),
                   vt_units_size(b3, nv->proc_max > traced ? nv->proc_max - traced : 0));
        } else {
            traced = dev >= 0 && dev < VT_NVML_SNAP ? nv->used_snap[dev] : 0;
            printf("  NVML: device used (all processes; this process's figure unknown) at most %s (at %s); "
                   "traced live then %s; not explained by allocations: %s\n", vt_units_size(b1, nv->used_max),
                   vt_units_time(tb, nv->used_max_time), vt_units_size(b2, traced),
                   vt_units_size(b3, nv->used_max > traced ? nv->used_max - traced : 0));
        }
        if (by_index) printf("    (NVML index matched to the CUDA ordinal by number: no UUIDs recorded)\n");
    }
    vt_gap g;
    vt_gap_of(rp, dev, &g);
    if (g.has_pool) {
        printf("  driver pools: %s reserved, of it %s freed and kept (pool slack)", vt_units_size(b1, g.pool_reserved),
               vt_units_size(b2, g.pool_slack));
        if (g.known) printf("; left unexplained: %s (context, modules)", vt_units_size(b3, g.unexplained));
        printf("\n");
    }
}

static void text_trace(const vt_analysis *a, int ti, const rep_opts *o)
{
    const vt_trace *t = &a->t[ti];
    const vt_reader *rd = &t->rd;
    const vt_replay *rp = t->rp;
    const vt_replay_result *res = vt_replay_result_of(rp);
    char db[40], b1[VT_UNITS_BUF], b2[VT_UNITS_BUF], tb[VT_UNITS_BUF];

    printf("== %s: pid %u on %s", t->path, rd->hdr.pid, rd->host);
    if (rd->hdr.rank >= 0) printf(", rank %d", rd->hdr.rank);
    if (vt_trace_local_rank(t) >= 0) printf(" (local %d)", vt_trace_local_rank(t));
    printf(", started %s\n", vt_show_date(db, rd->hdr.start_realtime_ns));
    printf("   command: ");
    vt_show_command(stdout, rd);
    printf("\n");
    printf("   events: allocs %" PRIu64 ", frees %" PRIu64 ", OOM %" PRIu64 ", VMM ops %" PRIu64 ", lost %" PRIu64
           "; %" PRIu64 " records over %s\n", res->st->allocs, res->st->frees, res->st->ooms, res->st->vmm_ops,
           res->st->lost_events, res->st->records, vt_units_time(tb, res->last_time));
    if (res->st->torch_blocks)
        printf("   allocations: PyTorch's blocks (%" PRIu64 ") inside its caching allocator's segments, from its "
               "allocator trace tracker\n", res->st->torch_blocks);
    if (res->st->pool_segments)
        printf("   CUDA graphs: %" PRIu64 " of the segments were private pools' (a graph's memory, used at each "
               "replay)\n", res->st->pool_segments);
    if (res->st->pool_unplaced)
        printf("   note: %" PRIu64 " blocks of private pools lay in no segment the trace saw grow; their bytes count "
               "as idle cache's\n", res->st->pool_unplaced);
    if (res->st->torch_unbacked)
        printf("   note: %s of blocks were in segments the trace did not see; the device totals do not hold them\n",
               vt_units_size(b1, res->st->torch_unbacked));
    if (rd->stopped)
        printf("   ended: cut short at byte %" PRIu64 " (%s); figures are for what was read\n", rd->err_offset, rd->err);
    else if (!res->has_trailer)
        printf("   ended: no trailer (the process was killed or crashed); figures are for what was read\n");
    else
        printf("   ended: %s\n", (res->trailer_flags & 1) ? "cleanly" : "with a trailer, not marked clean");
    if (res->st->lost_events)
        printf("   warning: the recorder lost %" PRIu64 " event%s (its buffer stayed full): figures may be low, "
               "and an allocation whose free was lost shows as live at the end\n", res->st->lost_events,
               res->st->lost_events == 1 ? "" : "s");
    if (res->st->pauses)
        printf("   note: the program paused recording %" PRIu64 " time%s (%s in all); memory allocated or freed "
               "then is not in these figures\n", res->st->pauses, res->st->pauses == 1 ? "" : "s",
               vt_units_time(b1, res->st->paused_ns));
    if (res->st->frees_unmatched)
        printf("   note: %" PRIu64 " free%s matched no traced allocation\n", res->st->frees_unmatched,
               res->st->frees_unmatched == 1 ? "" : "s");
    if (res->st->allocs_replaced)
        printf("   note: %" PRIu64 " allocation%s reused a live address (the free was not recorded)\n",
               res->st->allocs_replaced, res->st->allocs_replaced == 1 ? "" : "s");
    if (res->st->unwrapped_lookups) {
        printf("   warning: %" PRIu64 " driver entry point lookups could not be wrapped (",
               res->st->unwrapped_lookups);
        for (unsigned i = 0; i < res->nunwrapped; i++) printf("%s%s", i ? ", " : "", res->unwrapped[i]);
        printf("): allocations through them are not traced\n");
    }

    int devs[VT_NDEV];
    size_t nd = vt_trace_devices(t, devs, VT_NDEV);
    if (!nd) printf("\nno device memory was allocated\n");
    for (size_t i = 0; i < nd; i++) text_device(a, ti, devs[i], o);

    if (res->host->peak || res->host->live)
        printf("\nhost pinned memory: peak %s at %s, live at the end %s\n", vt_units_size(b1, res->host->peak),
               vt_units_time(tb, res->host->peak_time), vt_units_size(b2, res->host->live));
}

static void text_merged(const vt_analysis *a, const rep_opts *o)
{
    char db[40], b1[VT_UNITS_BUF], tb[VT_UNITS_BUF];
    printf("\n== merged: %d processes on a common clock (time 0 = %s)\n", a->n, vt_show_date(db, min_start(a)));
    for (size_t i = 0; i < a->nmdev; i++) {
        const vt_mdev *m = a->mdev[i];
        printf("\ndevice %s%s%s%s\n", m->label, m->name[0] ? " (" : "", m->name, m->name[0] ? ")" : "");
        printf("  peak of the sum %s at %s\n", vt_units_size(b1, m->tk.peak), vt_units_time(tb, shared_peak_time(a, &m->tk)));
        if (m->tk.peak) {
            text_kinds(a, &m->tk, m->tk.peak);
            vt_cat_show_text(a, &m->tk, VT_AT_PEAK, m->tk.peak, NULL);
            text_peak_sites(a, &m->tk, o);
        }
    }
    printf("\nall devices: peak of the sum %s at %s\n", vt_units_size(b1, a->global.peak),
           vt_units_time(tb, shared_peak_time(a, &a->global)));
}

/* ------------------------------------------------------------------------ *
 *  JSON (docs/json-schema.md, "vramtrace-report/1")
 * ------------------------------------------------------------------------ */
static void json_rows(vt_json *j, const char *key, const vt_analysis *a, const vt_tracker *tk,
                      vt_at at, vt_by by, uint64_t top)
{
    vt_row *rows;
    size_t n = vt_rows(a, tk, at, by, &rows);
    vt_json_arr(j, key);
    if (n != (size_t)-1) {
        size_t shown = 0;
        for (size_t i = 0; i < n && shown < top; i++) {
            if (!rows[i].bytes) continue;
            shown++;
            vt_show_row_json(j, a, by, &rows[i]);
        }
        free(rows);
    }
    vt_json_end(j);
}

static void json_oom(vt_json *j, const vt_analysis *a, int ti, const vt_oom *oo, uint64_t top)
{
    vt_json_obj(j, NULL);
    vt_json_i64(j, "trace", ti);
    vt_json_i64(j, "device", oo->device);
    vt_json_u64(j, "time_ns", oo->time);
    vt_json_str(j, "kind", vt_kind_name(oo->kind));
    vt_json_u64(j, "size", oo->size);
    vt_json_u64(j, "free_bytes", oo->free_bytes);
    vt_json_u64(j, "total_bytes", oo->total_bytes);
    vt_json_u64(j, "live_bytes", oo->live);
    vt_json_obj(j, "site");
    vt_show_site_json(j, a, oo->site);
    vt_json_end(j);
    vt_json_arr(j, "sites");
    vt_row *rows;
    size_t n = vt_rows_oom(a, ti, oo, VT_BY_SITE, &rows);
    if (n != (size_t)-1) {
        for (size_t i = 0; i < n && i < top; i++) vt_show_row_json(j, a, VT_BY_SITE, &rows[i]);
        free(rows);
    }
    vt_json_end(j);
    vt_json_end(j);
}

static void json_device(vt_json *j, const vt_analysis *a, int ti, int dev, const rep_opts *o)
{
    const vt_trace *t = &a->t[ti];
    const vt_replay *rp = t->rp;
    const vt_replay_result *res = vt_replay_result_of(rp);
    const vt_device *d = vt_replay_device(rp, dev);
    const vt_tracker *tk = &d->dev;
    vt_json_obj(j, NULL);
    vt_json_i64(j, "device", dev);
    if (d->has_info) {
        char u[48];
        vt_show_uuid(u, d->uuid);
        vt_json_str(j, "name", d->name);
        vt_json_str(j, "uuid", vt_device_has_uuid(d) ? u : NULL);
        vt_json_u64(j, "total_memory", d->total);
        char cc[16];
        snprintf(cc, sizeof cc, "%u.%u", d->cc_major, d->cc_minor);
        vt_json_str(j, "compute_capability", cc);
    } else {
        vt_json_null(j, "name");
        vt_json_null(j, "uuid");
        vt_json_null(j, "total_memory");
        vt_json_null(j, "compute_capability");
    }
    vt_json_u64(j, "peak_bytes", tk->peak);
    vt_json_u64(j, "peak_time_ns", tk->peak_time);
    vt_json_u64(j, "peak_count", tk->peak_count);
    vt_json_u64(j, "live_at_end_bytes", tk->live);
    vt_json_u64(j, "live_at_end_count", tk->count);
    json_rows(j, "by_kind", a, tk, VT_AT_PEAK, VT_BY_KIND, UINT64_MAX);
    vt_cat_extra cx;
    nvml_extra(rp, dev, &cx);
    vt_cat_show_json_rows(j, "by_category", a, tk, VT_AT_PEAK);
    vt_cat_show_json_rows(j, "by_category_at_end", a, tk, VT_AT_END);
    vt_cat_show_json_info(j, a, tk, &cx);
    if (vt_layer_any(a)) vt_layer_show_json(j, "by_layer", a, tk, o->top);
    json_rows(j, "sites", a, tk, VT_AT_PEAK, VT_BY_SITE, o->top);
    vt_json_obj(j, "leaks");
    vt_json_u64(j, "bytes", tk->live);
    vt_json_u64(j, "count", tk->count);
    vt_json_u64(j, "maybe_lost_frees", vt_replay_unsure_leaks(rp, tk->count));
    json_rows(j, "sites", a, tk, VT_AT_END, VT_BY_SITE, o->top);
    vt_json_end(j);
    vt_json_obj(j, "managed");
    vt_json_u64(j, "peak_bytes", d->managed.peak);
    vt_json_u64(j, "peak_time_ns", d->managed.peak_time);
    vt_json_u64(j, "live_at_end_bytes", d->managed.live);
    vt_json_end(j);
    vt_json_arr(j, "oom");
    for (size_t i = 0; i < res->nooms; i++)
        if (res->ooms[i].device == dev) json_oom(j, a, ti, &res->ooms[i], o->top);
    vt_json_end(j);
    int by_index;
    const vt_nvml *nv = vt_gap_nvml(rp, dev, &by_index);
    if (nv) {
        vt_json_obj(j, "nvml");
        vt_json_str(j, "uuid", nv->uuid[0] ? nv->uuid : NULL);
        vt_json_bool(j, "matched_by_index", by_index);
        vt_json_u64(j, "samples", nv->samples);
        vt_json_u64(j, "device_total_bytes", nv->total);
        if (nv->has_proc) {
            uint64_t traced = dev >= 0 && dev < VT_NVML_SNAP ? nv->proc_snap[dev] : 0;
            vt_json_u64(j, "process_used_max_bytes", nv->proc_max);
            vt_json_u64(j, "process_used_max_time_ns", nv->proc_max_time);
            vt_json_u64(j, "traced_live_bytes", traced);
            vt_json_u64(j, "unexplained_bytes", nv->proc_max > traced ? nv->proc_max - traced : 0);
        } else {
            vt_json_null(j, "process_used_max_bytes");
            vt_json_null(j, "process_used_max_time_ns");
            vt_json_null(j, "traced_live_bytes");
            vt_json_null(j, "unexplained_bytes");
        }
        uint64_t traced_u = dev >= 0 && dev < VT_NVML_SNAP ? nv->used_snap[dev] : 0;
        vt_json_u64(j, "device_used_max_bytes", nv->used_max);
        vt_json_u64(j, "device_used_max_time_ns", nv->used_max_time);
        vt_json_u64(j, "device_used_traced_live_bytes", traced_u);
        vt_json_end(j);
    } else {
        vt_json_null(j, "nvml");
    }
    vt_json_end(j);
}

static void json_events(vt_json *j, const vt_replay_stats *s)
{
    vt_json_obj(j, "events");
    vt_json_u64(j, "records", s->records);
    vt_json_u64(j, "allocs", s->allocs);
    vt_json_u64(j, "frees", s->frees);
    vt_json_u64(j, "ooms", s->ooms);
    vt_json_u64(j, "vmm_ops", s->vmm_ops);
    vt_json_u64(j, "frees_unmatched", s->frees_unmatched);
    vt_json_u64(j, "allocs_replaced", s->allocs_replaced);
    vt_json_u64(j, "torch_blocks", s->torch_blocks);
    vt_json_u64(j, "torch_unbacked_bytes", s->torch_unbacked);
    vt_json_end(j);
}

static void json_trace(vt_json *j, const vt_analysis *a, int ti, const rep_opts *o)
{
    const vt_trace *t = &a->t[ti];
    const vt_reader *rd = &t->rd;
    const vt_replay *rp = t->rp;
    const vt_replay_result *res = vt_replay_result_of(rp);
    vt_json_obj(j, NULL);
    vt_json_str(j, "path", t->path);
    vt_json_u64(j, "pid", rd->hdr.pid);
    vt_json_u64(j, "ppid", rd->hdr.ppid);
    vt_json_str(j, "host", rd->host);
    vt_json_str(j, "exe", rd->exe);
    vt_show_command_json(j, "command", rd);
    vt_json_i64(j, "rank", rd->hdr.rank);
    vt_json_i64(j, "local_rank", vt_trace_local_rank(t));
    vt_json_u64(j, "start_realtime_ns", rd->hdr.start_realtime_ns);
    vt_json_u64(j, "duration_ns", res->last_time);
    char ver[16];
    snprintf(ver, sizeof ver, "%u.%u", rd->hdr.version_major, rd->hdr.version_minor);
    vt_json_str(j, "format_version", ver);
    vt_json_u64(j, "stack_depth", rd->hdr.stack_depth);
    vt_json_str(j, "end", end_state(t));
    vt_json_bool(j, "clean", res->has_trailer && !rd->stopped && (res->trailer_flags & 1));
    if (rd->stopped) {
        vt_json_obj(j, "truncated");
        vt_json_u64(j, "offset", rd->err_offset);
        vt_json_str(j, "reason", rd->err);
        vt_json_end(j);
    } else {
        vt_json_null(j, "truncated");
    }
    json_events(j, res->st);
    vt_json_u64(j, "lost_events", res->st->lost_events);
    vt_json_u64(j, "pauses", res->st->pauses);
    vt_json_u64(j, "paused_ns", res->st->paused_ns);
    vt_cat_show_json_iterations(j, a, ti);
    vt_json_arr(j, "unwrapped_lookups");
    for (unsigned i = 0; i < res->nunwrapped; i++) vt_json_str(j, NULL, res->unwrapped[i]);
    vt_json_end(j);
    vt_json_u64(j, "driver_version", res->driver_version);
    vt_json_arr(j, "devices");
    int devs[VT_NDEV];
    size_t nd = vt_trace_devices(t, devs, VT_NDEV);
    for (size_t i = 0; i < nd; i++) json_device(j, a, ti, devs[i], o);
    vt_json_end(j);
    vt_json_obj(j, "host_pinned");
    vt_json_u64(j, "peak_bytes", res->host->peak);
    vt_json_u64(j, "peak_time_ns", res->host->peak_time);
    vt_json_u64(j, "live_at_end_bytes", res->host->live);
    vt_json_u64(j, "live_at_end_count", res->host->count);
    vt_json_end(j);
    vt_json_end(j);
}

static void report_json(const vt_analysis *a, const rep_opts *o)
{
    vt_json j;
    vt_json_init(&j, stdout);
    vt_json_obj(&j, NULL);
    vt_json_str(&j, "schema", "vramtrace-report/1");
    vt_json_u64(&j, "peak_bytes", a->global.peak);
    vt_json_u64(&j, "peak_time_ns", shared_peak_time(a, &a->global));
    vt_json_u64(&j, "peak_count", a->global.peak_count);
    vt_replay_stats sum;
    memset(&sum, 0, sizeof sum);
    uint64_t ooms_total = 0;
    int clean = 1;
    for (int i = 0; i < a->n; i++) {
        const vt_replay_result *res = vt_replay_result_of(a->t[i].rp);
        const vt_replay_stats *s = res->st;
        sum.records += s->records;
        sum.allocs += s->allocs;
        sum.frees += s->frees;
        sum.ooms += s->ooms;
        sum.vmm_ops += s->vmm_ops;
        sum.frees_unmatched += s->frees_unmatched;
        sum.allocs_replaced += s->allocs_replaced;
        sum.torch_blocks += s->torch_blocks;
        sum.torch_unbacked += s->torch_unbacked;
        sum.lost_events += s->lost_events;
        sum.pauses += s->pauses;
        sum.paused_ns += s->paused_ns;
        ooms_total += res->nooms;
        if (a->t[i].rd.stopped || !res->has_trailer || !(res->trailer_flags & 1)) clean = 0;
    }
    json_events(&j, &sum);
    vt_json_u64(&j, "lost_events", sum.lost_events);
    vt_json_u64(&j, "pauses", sum.pauses);
    vt_json_u64(&j, "paused_ns", sum.paused_ns);
    vt_json_bool(&j, "clean", clean);
    vt_json_u64(&j, "live_at_end_bytes", a->global.live);
    vt_json_u64(&j, "live_at_end_count", a->global.count);
    json_rows(&j, "by_kind", a, &a->global, VT_AT_PEAK, VT_BY_KIND, UINT64_MAX);
    vt_cat_show_json_rows(&j, "by_category", a, &a->global, VT_AT_PEAK);
    vt_cat_show_json_rows(&j, "by_category_at_end", a, &a->global, VT_AT_END);
    json_rows(&j, "sites", a, &a->global, VT_AT_PEAK, VT_BY_SITE, o->top);
    vt_json_arr(&j, "oom");
    for (int i = 0; i < a->n; i++) {
        const vt_replay_result *res = vt_replay_result_of(a->t[i].rp);
        for (size_t k = 0; k < res->nooms; k++) json_oom(&j, a, i, &res->ooms[k], o->top);
    }
    vt_json_end(&j);
    (void)ooms_total;

    vt_json_arr(&j, "devices");
    if (a->n == 1) {
        int devs[VT_NDEV];
        size_t nd = vt_trace_devices(&a->t[0], devs, VT_NDEV);
        for (size_t i = 0; i < nd; i++) json_device(&j, a, 0, devs[i], o);
    } else {
        for (size_t i = 0; i < a->nmdev; i++) {
            const vt_mdev *m = a->mdev[i];
            vt_json_obj(&j, NULL);
            vt_json_str(&j, "label", m->label);
            vt_json_str(&j, "name", m->name[0] ? m->name : NULL);
            vt_json_u64(&j, "peak_bytes", m->tk.peak);
            vt_json_u64(&j, "peak_time_ns", shared_peak_time(a, &m->tk));
            vt_json_u64(&j, "peak_realtime_ns", m->tk.peak_rt);
            vt_json_u64(&j, "peak_count", m->tk.peak_count);
            vt_json_u64(&j, "live_at_end_bytes", m->tk.live);
            json_rows(&j, "by_kind", a, &m->tk, VT_AT_PEAK, VT_BY_KIND, UINT64_MAX);
            vt_cat_show_json_rows(&j, "by_category", a, &m->tk, VT_AT_PEAK);
            vt_cat_show_json_info(&j, a, &m->tk, NULL);
            json_rows(&j, "sites", a, &m->tk, VT_AT_PEAK, VT_BY_SITE, o->top);
            vt_json_end(&j);
        }
    }
    vt_json_end(&j);

    vt_ranks_show_json(&j, a);
    vt_json_arr(&j, "traces");
    for (int i = 0; i < a->n; i++) json_trace(&j, a, i, o);
    vt_json_end(&j);
    vt_json_end(&j);
    vt_json_finish(&j);
}

/* ------------------------------------------------------------------------ *
 *  The command
 * ------------------------------------------------------------------------ */
static const char usage[] =
    "usage: vramtrace report TRACE... [--top N] [--frames VIEW|N] [--rules FILE]... [--no-default-rules]\n"
    "                        [--json]\n"
    "  Per device: the peak and when, by kind, by category and by site at the peak, what\n"
    "  was live at the end, OOM events, NVML figures; pinned host memory apart. Several\n"
    "  traces (the ranks of one job) come first side by side: each one's peak, categories,\n"
    "  top layer and site, which peaks highest and why, the sum per physical GPU; then\n"
    "  each trace, then the traces merged on a common clock.\n"
    "  --top N      sites to list (default 10)\n"
    "  --frames VIEW|N  how a site reads in text: user (the op, your innermost line, the\n"
    "               rest of the Python chain; the default), all, python or native; N:\n"
    "               lines of it (default 5 for user, every frame for the others)\n"
    "  --rules FILE category rules tried before the built-in ones (docs/categories.md)\n"
    "  --no-default-rules  no built-in rules: lifetimes (and --rules) alone\n"
    "  --json       JSON output (schema vramtrace-report/1, docs/json-schema.md)\n";

int vt_cmd_report(int argc, char **argv)
{
    enum { O_TOP = 1, O_JSON, O_FRAMES, O_RULES, O_NO_DEFAULT_RULES, O_HELP };
    static const vt_opt opts[] = {
        { "top", 0, 1, O_TOP }, { "json", 0, 0, O_JSON }, { "frames", 0, 1, O_FRAMES },
        { "rules", 0, 1, O_RULES }, { "no-default-rules", 0, 0, O_NO_DEFAULT_RULES },
        { "help", 'h', 0, O_HELP }, { NULL, 0, 0, 0 }
    };
    rep_opts o = { 10, { VT_VIEW_USER, 0 }, 0, { .nrules = 0 } };
    char **paths = calloc((size_t)argc + 1, sizeof *paths);
    int np = 0;
    vt_args a;
    vt_args_init(&a, "report", argc, argv);
    const char *v;
    int id;
    while ((id = vt_args_next(&a, opts, &v)) != VT_ARGS_END) {
        switch (id) {
        case VT_ARGS_ERROR: free(paths); return 2;
        case VT_ARGS_OPERAND: paths[np++] = (char *)v; break;
        case O_RULES: if (vt_cat_opts_add_rules(&o.cat, v)) { free(paths); return 2; } break;
        case O_NO_DEFAULT_RULES: o.cat.no_default_rules = 1; break;
        case O_TOP: if (vt_args_uint(&a, "--top", v, 1000000, &o.top)) { free(paths); return 2; } break;
        case O_FRAMES:
            if (vt_show_frames_parse(v, &o.frames)) {
                vt_args_error(&a, VT_SHOW_FRAMES_ERROR, v);
                free(paths);
                return 2;
            }
            break;
        case O_JSON: o.json = 1; break;
        case O_HELP: fputs(usage, stdout); free(paths); return 0;
        }
    }
    if (!np) {
        vt_args_error(&a, "missing TRACE operand");
        free(paths);
       
        return 2;
    }
    vt_analysis an;
    vt_analyze_opts ao = { UINT64_MAX, 0, &o.cat, NULL };
    int rc = vt_analyze(&an, np, paths, &ao);
   
    if (rc == 0) {
        if (o.json) {
            report_json(&an, &o);
        } else {
            /* Several ranks: who peaks highest and why comes first. */
            vt_ranks_show_text(&an, &o.frames, o.top);
            for (int i = 0; i < an.n; i++) {
                if (i || an.n > 1) printf("\n");
                text_trace(&an, i, &o);
            }
            if (an.n > 1) text_merged(&an, &o);
        }
    }
    vt_analysis_free(&an);
    free(paths);
    return rc;
}
