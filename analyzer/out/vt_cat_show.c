// SPDX-License-Identifier: MIT
/* vt_cat_show.c - categories in text and JSON. */
#include "vt_cat_show.h"
#include "vt_rows.h"
#include "vt_units.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static double pct(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* The rule sections that hold a category's bytes: "workloads, cuda-libraries". */
static void sections_of(const vt_analysis *a, const vt_cat_section_row *rows, size_t n, int cat,
                        char *buf, size_t len)
{
    size_t k = 0;
    buf[0] = 0;
    for (size_t i = 0; i < n && k + 1 < len; i++) {
        if (rows[i].cat != cat || rows[i].how != VT_CAT_HOW_RULE || !rows[i].section) continue;
        const char *s = vt_cat_section_name(a, rows[i].section);
        int w = snprintf(buf + k, len - k, "%s%s", k ? ", " : "", s);
        if (w < 0) break;
        k += (size_t)w;
        if (k >= len) { buf[len - 1] = 0; break; }
    }
}

void vt_cat_show_text(const vt_analysis *a, const vt_tracker *tk, vt_at at, uint64_t whole,
                      const vt_cat_extra *extra)
{
    vt_cat_sum s;
    vt_cat_sum_at(a, tk, at, &s);
    if (!s.total) return;
    vt_cat_section_row *secs = NULL;
    size_t nsec = vt_cat_sections_at(a, tk, at, &secs);
    if (nsec == (size_t)-1) nsec = 0;
    int order[VT_CAT_N];
    int n = vt_cat_sum_order(&s, order);
    char b1[VT_UNITS_BUF], tb[VT_UNITS_BUF], secb[256];
    printf("  by category %s:\n", at == VT_AT_PEAK ? "at the peak" : "at the end");
    printf("         bytes        %%     live  category          decided by\n");
    for (int i = 0; i < n; i++) {
        const vt_cat_row *r = &s.row[order[i]];
        const char *how = vt_cat_how_text(r);
        printf("    %10s  %6.1f%%  %7" PRIu64 "  %-16s  ", vt_units_size(b1, r->bytes), pct(r->bytes, whole),
               r->count, vt_cat_name((vt_cat)order[i]));
        sections_of(a, secs, nsec, order[i], secb, sizeof secb);
        if (!strcmp(how, "none")) {
            printf("nothing (categories off)\n");
            continue;
        }
        const char *sep = "";
        if (r->annotated_bytes) { printf("annotations"); sep = " + "; }
        if (r->rule_bytes) { printf("%srule%s%s%s", sep, secb[0] ? " [" : "", secb, secb[0] ? "]" : ""); sep = " + "; }
        if (r->inferred_bytes) printf("%slifetimes", sep);
        printf("\n");
        if (r->recomputed_bytes)
            printf("    %10s  %6.1f%%  %7s    %-14s  of them made again in a backward (activation checkpointing)\n",
                   vt_units_size(b1, r->recomputed_bytes), pct(r->recomputed_bytes, whole), "", "recomputed");
    }
    if (s.graph_pool_block_bytes)
        printf("    %10s  %6.1f%%  %7s    %-14s  of the categories above: tensors in a CUDA graph pool's segments\n",
               vt_units_size(b1, s.graph_pool_block_bytes), pct(s.graph_pool_block_bytes, whole), "", "in graph pools");
    if (s.blocks)
        printf("    %10s  %6.1f%%  %7s  %-16s  " VT_ROW_IDLE_WHAT " (reserved)\n",
               vt_units_size(b1, s.idle_cache_bytes), pct(s.idle_cache_bytes, whole), "", VT_ROW_IDLE_NAME);
    if (s.graph_pool_bytes)
        printf("    %10s  %6.1f%%  %7s  %-17s %s\n%52s%s\n", vt_units_size(b1, s.graph_pool_bytes),
               pct(s.graph_pool_bytes, whole), "", VT_ROW_POOL_NAME,
               "a private pool's segments (a CUDA graph's), holding no", "",
               "tensor: the graph's kernels use them at each replay (reserved)");
    else if (vt_cat_caching(&s) && at == VT_AT_END && s.idle_cache_bytes)
        printf("    %10s  %6.1f%%  %7s  %-16s  segments first grown for activations or temporaries\n",
               vt_units_size(b1, s.idle_cache_bytes), pct(s.idle_cache_bytes, whole), "", "(idle cache)");
    if (extra && extra->has_pool && at == VT_AT_PEAK)
        printf("  + %10s  %7s  %7s  %-16s  the driver pools' reserved minus used bytes: freed, kept\n",
               vt_units_size(b1, extra->pool_slack), "", "", "pool slack");
    if (extra && extra->has_unexplained && at == VT_AT_PEAK)
        printf("  + %10s  %7s  %7s  %-16s  NVML's figure for the process at its maximum (%s) minus\n"
               "    %10s  %7s  %7s  %-16s  traced%s: context, modules%s\n",
               vt_units_size(b1, extra->unexplained), "", "", "unexplained", vt_units_time(tb, extra->nvml_time),
               "", "", "", "", extra->has_pool ? " and pool slack" : "", extra->has_pool ? "" : ", pool slack");
    if (vt_cat_caching(&s) && !s.blocks && at == VT_AT_PEAK)
        printf("    approximate: %.0f%% of these bytes are segments of a framework's caching allocator, "
               "each counted in the\n    category of the allocation that first grew it, and what part "
               "of a segment sits idle is not\n    visible to a driver-level trace. For exact numbers, "
               "trace with `vramtrace run --per-tensor`.\n", pct(s.cache_bytes, s.total));
    uint64_t in_seg[VT_CAT_N];
    if (at == VT_AT_PEAK && vt_cat_caching(&s) && vt_cat_annotated_in_segments(a, in_seg)) {
        printf("    inside the segments, the program's annotations name (the largest pytree of one call):");
        for (int c = 0, first = 1; c < VT_CAT_N; c++) {
            if (!in_seg[c]) continue;
            printf("%s %s %s", first ? "" : ",", vt_cat_name((vt_cat)c), vt_units_size(b1, in_seg[c]));
            first = 0;
        }
        printf("\n");
    }
    free(secs);
}

void vt_cat_show_json_rows(vt_json *j, const char *key, const vt_analysis *a, const vt_tracker *tk, vt_at at)
{
    vt_cat_sum s;
    vt_cat_sum_at(a, tk, at, &s);
    vt_cat_section_row *secs = NULL;
    size_t nsec = vt_cat_sections_at(a, tk, at, &secs);
    if (nsec == (size_t)-1) nsec = 0;
    vt_json_arr(j, key);
    for (int c = 0; c < VT_CAT_N; c++) {
        const vt_cat_row *r = &s.row[c];
        if (c == VT_CAT_HOST_PINNED || (!r->bytes && !r->nallocs)) continue;
        vt_json_obj(j, NULL);
        vt_json_str(j, "category", vt_cat_name((vt_cat)c));
        vt_json_u64(j, "bytes", r->bytes);
        vt_json_u64(j, "live_count", r->count);
        vt_json_u64(j, "count", r->nallocs);
        vt_json_u64(j, "total_bytes", r->total_bytes);
        vt_json_str(j, "how", vt_cat_how_text(r));
        vt_json_u64(j, "rule_bytes", r->rule_bytes);
        vt_json_u64(j, "inferred_bytes", r->inferred_bytes);
        if (r->annotated_bytes) vt_json_u64(j, "annotated_bytes", r->annotated_bytes);
        if (r->recomputed_bytes) vt_json_u64(j, "recomputed_bytes", r->recomputed_bytes);
        vt_json_end(j);
    }
    vt_json_end(j);
    free(secs);
}

void vt_cat_show_json_info(vt_json *j, const vt_analysis *a, const vt_tracker *tk, const vt_cat_extra *extra)
{
    vt_cat_sum s, e;
    vt_cat_sum_at(a, tk, VT_AT_PEAK, &s);
    vt_cat_sum_at(a, tk, VT_AT_END, &e);
    int caching = vt_cat_caching(&s) || (!s.total && vt_cat_caching(&e));
    vt_json_obj(j, "categories");
    int blocks = s.blocks || e.blocks;
    vt_json_str(j, "mode", blocks ? "blocks" : caching ? "caching" : "per-tensor");
    vt_json_bool(j, "approximate", caching && !blocks);
    vt_json_u64(j, "cache_bytes", s.cache_bytes);
    if (caching || blocks) vt_json_u64(j, "idle_cache_bytes_at_end", e.idle_cache_bytes);
    else vt_json_null(j, "idle_cache_bytes_at_end");
    if (blocks) vt_json_u64(j, "idle_cache_bytes_at_peak", s.idle_cache_bytes);
    else vt_json_null(j, "idle_cache_bytes_at_peak");
    /* in blocks mode, 0 when the trace has no private pool */
    if (blocks) {
        vt_json_u64(j, "graph_pool_bytes_at_peak", s.graph_pool_bytes);
        vt_json_u64(j, "graph_pool_bytes_at_end", e.graph_pool_bytes);
        vt_json_u64(j, "graph_pool_block_bytes_at_peak", s.graph_pool_block_bytes);
    } else {
        vt_json_null(j, "graph_pool_bytes_at_peak");
        vt_json_null(j, "graph_pool_bytes_at_end");
        vt_json_null(j, "graph_pool_block_bytes_at_peak");
    }
    if (extra && extra->has_unexplained) vt_json_u64(j, "unexplained_bytes", extra->unexplained);
    else vt_json_null(j, "unexplained_bytes");
    if (extra && extra->has_pool) vt_json_u64(j, "pool_slack_bytes", extra->pool_slack);
    else vt_json_null(j, "pool_slack_bytes");
    vt_cat_section_row *secs = NULL;
    size_t nsec = vt_cat_sections_at(a, tk, VT_AT_PEAK, &secs);
    vt_json_arr(j, "by_rule");
    for (size_t i = 0; nsec != (size_t)-1 && i < nsec; i++) {
        vt_json_obj(j, NULL);
        vt_json_str(j, "rules", secs[i].section ? vt_cat_section_name(a, secs[i].section) : NULL);
        vt_json_str(j, "category", vt_cat_name((vt_cat)secs[i].cat));
        vt_json_str(j, "how", secs[i].how == VT_CAT_HOW_RULE ? "rule" :
                              secs[i].how == VT_CAT_HOW_ANNOTATED ? "annotated" : "inferred");
        vt_json_u64(j, "bytes", secs[i].bytes);
        vt_json_end(j);
    }
    vt_json_end(j);
    free(secs);
    uint64_t in_seg[VT_CAT_N];
    if (vt_cat_annotated_in_segments(a, in_seg)) {  /* only traces with such annotations */
        vt_json_obj(j, "annotated_in_segments");
        for (int c = 0; c < VT_CAT_N; c++)
            if (in_seg[c]) vt_json_u64(j, vt_cat_name((vt_cat)c), in_seg[c]);
        vt_json_end(j);
    }
    vt_json_end(j);
}

void vt_cat_show_json_iterations(vt_json *j, const vt_analysis *a, int ti)
{
    const vt_cat_trace *ct = a->t[ti].cat;
    vt_json_obj(j, "iterations");
    vt_json_u64(j, "count", ct ? ct->niters : 0);
    vt_json_u64(j, "hysteresis_bytes", ct ? ct->hysteresis : 0);
    vt_json_u64(j, "window_events", ct ? ct->window_events : 0);
    vt_json_bool(j, "window_full", ct ? ct->window_full : 0);
    vt_json_arr(j, "list");
    for (size_t k = 0; ct && k < ct->niters; k++) {
        vt_json_obj(j, NULL);
        vt_json_u64(j, "forward_ns", ct->iters[k].fwd);
        vt_json_u64(j, "peak_ns", ct->iters[k].peak);
        vt_json_u64(j, "backward_end_ns", ct->iters[k].bwd_end);
        vt_json_bool(j, "from_pattern", ct->iters[k].from_pattern);
        vt_json_end(j);
    }
    vt_json_end(j);
    vt_json_end(j);
}

/* ------------------------------------------------------------------------ *
 *  top --by category
 * ------------------------------------------------------------------------ */
/* Categories with bytes, largest first (then in vt_cat order). */
static int sorted_cats(const vt_cat_sum *s, int order[VT_CAT_N])
{
    int n = 0;
    for (int c = 0; c < VT_CAT_N; c++)
        if (s->row[c].bytes) order[n++] = c;
    for (int i = 1; i < n; i++)
        for (int k = i; k > 0 && s->row[order[k]].bytes > s->row[order[k - 1]].bytes; k--) {
            int t = order[k];
            order[k] = order[k - 1];
            order[k - 1] = t;
        }
    return n;
}

static const char *how_words(const char *how)
{
    return !strcmp(how, "rule") ? "by rule" : !strcmp(how, "inferred") ? "inferred" : how;
}

void vt_cat_show_top_text(const vt_analysis *a, const vt_tracker *tk, vt_at at, uint64_t whole, uint64_t top)
{
    vt_cat_sum s;
    vt_cat_sum_at(a, tk, at, &s);
    int order[VT_CAT_N];
    int n = sorted_cats(&s, order);
    char b1[VT_UNITS_BUF], b2[VT_UNITS_BUF];
    printf("         bytes        %%     live   allocs   allocated  category          how\n");
    for (int i = 0; i < n && (uint64_t)i < top; i++) {
        const vt_cat_row *r = &s.row[order[i]];
        printf("    %10s  %6.1f%%  %7" PRIu64 "  %7" PRIu64 "  %10s  %-16s  %s\n", vt_units_size(b1, r->bytes),
               pct(r->bytes, whole), r->count, r->nallocs, vt_units_size(b2, r->total_bytes),
               vt_cat_name((vt_cat)order[i]), how_words(vt_cat_how_text(r)));
        if (r->recomputed_bytes)
            printf("    %10s  %6.1f%%  %7s  %7s  %10s    %-14s  made again in a backward (checkpointing)\n",
                   vt_units_size(b1, r->recomputed_bytes), pct(r->recomputed_bytes, whole), "", "", "", "recomputed");
    }
    if ((uint64_t)n > top) printf("    ... %d more\n", n - (int)top);
    if (s.graph_pool_block_bytes)
        printf("    %10s  %6.1f%%  %7s  %7s  %10s    %-14s  of these: tensors in a CUDA graph pool\n",
               vt_units_size(b1, s.graph_pool_block_bytes), pct(s.graph_pool_block_bytes, whole), "", "", "",
               "in graph pools");
    if (s.graph_pool_bytes)
        printf("    %10s  %6.1f%%  %7s  %7s  %10s  %-17s %s\n", vt_units_size(b1, s.graph_pool_bytes),
               pct(s.graph_pool_bytes, whole), "", "", "", VT_ROW_POOL_NAME, "idle: a graph's replays use it");
    if (vt_cat_caching(&s))
        printf("    approximate: caching-allocator segments, each in the category of what first grew it "
               "(vramtrace run --per-tensor for exact numbers)\n");
}

void vt_cat_show_top_json(vt_json *j, const char *key, const vt_analysis *a, const vt_tracker *tk, vt_at at,
                          uint64_t top)
{
    vt_cat_sum s;
    vt_cat_sum_at(a, tk, at, &s);
    int order[VT_CAT_N];
    int n = sorted_cats(&s, order);
    vt_json_arr(j, key);
    for (int i = 0; i < n && (uint64_t)i < top; i++) {
        const vt_cat_row *r = &s.row[order[i]];
        vt_json_obj(j, NULL);
        vt_json_str(j, "category", vt_cat_name((vt_cat)order[i]));
        vt_json_u64(j, "bytes", r->bytes);
        vt_json_u64(j, "live_count", r->count);
        vt_json_u64(j, "count", r->nallocs);
        vt_json_u64(j, "total_bytes", r->total_bytes);
        vt_json_str(j, "how", vt_cat_how_text(r));
        if (r->recomputed_bytes) vt_json_u64(j, "recomputed_bytes", r->recomputed_bytes);
        vt_json_end(j);
    }
    vt_json_end(j);
}
