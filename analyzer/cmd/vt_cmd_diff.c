// SPDX-License-Identifier: MIT
/* vt_cmd_diff.c - `vramtrace diff BASE NEW [--top N] [--json]`: what each site held
 * at the peak of each run, matched by folded symbolized stack, sorted by growth. */
#include "vt_cmds.h"

#include "vt_analyze.h"
#include "vt_args.h"
#include "vt_cat.h"
#include "vt_json.h"
#include "vt_layer_show.h"
#include "vt_names.h"
#include "vt_rows.h"
#include "vt_show_rows.h"
#include "vt_units.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    uint32_t key;
    uint64_t base, new_;
    int64_t delta;
} drow;

/* qsort has no context argument in C11; the site table the comparison needs is set
 * here just before each sort. */
static const vt_analysis *cmp_an;
static vt_by cmp_by;

static int drow_key_cmp(uint32_t a, uint32_t b)
{
    if (cmp_by == VT_BY_SITE) return vt_sites_cmp(&cmp_an->sites, a, b);
    return strcmp(vt_row_name(cmp_an, cmp_by, a), vt_row_name(cmp_an, cmp_by, b));
}

static int drow_cmp(const void *x, const void *y)
{
    const drow *a = x, *b = y;
    if (a->delta != b->delta) return a->delta > b->delta ? -1 : 1;
    if (a->new_ != b->new_) return a->new_ > b->new_ ? -1 : 1;
    return drow_key_cmp(a->key, b->key);
}

/* Sites that read alike under fv summed into one row, each run's bytes apart
 * (vt_show_group_rows carries them: new in bytes, base in total_bytes). */
static size_t group(const vt_analysis *an, const vt_frames *fv, drow *d, size_t n)
{
    vt_row *r = calloc(n ? n : 1, sizeof *r);
    if (!r) return n;
    for (size_t i = 0; i < n; i++) r[i] = (vt_row){ .key = d[i].key, .bytes = d[i].new_, .total_bytes = d[i].base };
    n = vt_show_group_rows(an, fv, r, n);
    for (size_t i = 0; i < n; i++) d[i] = (drow){ .key = r[i].key, .base = r[i].total_bytes, .new_ = r[i].bytes };
    free(r);
    return n;
}

/* Joins the rows of the two runs by key; sites grouped as fv shows them (NULL: not). */
static drow *join(const vt_analysis *an, const vt_tracker *tb, const vt_tracker *tn, vt_by by,
                  const vt_frames *fv, size_t *out_n)
{
    vt_row *rb, *rn;
    size_t nb = vt_rows(an, tb, VT_AT_PEAK, by, &rb);
    size_t nn = vt_rows(an, tn, VT_AT_PEAK, by, &rn);
    if (nb == (size_t)-1 || nn == (size_t)-1) {
        if (nb != (size_t)-1) free(rb);
        if (nn != (size_t)-1) free(rn);
        return NULL;
    }
    drow *d = calloc(nb + nn + 1, sizeof *d);
    vt_idmap ix = { 0 };
    size_t n = 0;
    for (size_t i = 0; d && i < nb; i++) {
        if (!rb[i].bytes) continue;
        d[n].key = rb[i].key;
        d[n].base = rb[i].bytes;
        vt_idmap_put(&ix, rb[i].key, (uint32_t)n);
        n++;
    }
    for (size_t i = 0; d && i < nn; i++) {
        if (!rn[i].bytes) continue;
        uint32_t *p = vt_idmap_get(&ix, rn[i].key);
        if (p) {
            d[*p].new_ = rn[i].bytes;
        } else {
            d[n].key = rn[i].key;
            d[n].new_ = rn[i].bytes;
            n++;
        }
    }
    if (d && fv) n = group(an, fv, d, n);
    for (size_t i = 0; d && i < n; i++) d[i].delta = (int64_t)(d[i].new_ - d[i].base);
    cmp_an = an;
    cmp_by = by;
    if (d && n > 1) qsort(d, n, sizeof *d, drow_cmp);
    vt_idmap_free(&ix);
    free(rb);
    free(rn);
    *out_n = n;
    return d;
}

static void ratio_text(char *buf, size_t n, const drow *r)
{
    if (!r->base) snprintf(buf, n, "new");
    else if (!r->new_) snprintf(buf, n, "gone");
    else snprintf(buf, n, "%.2fx", (double)r->new_ / (double)r->base);
}

static const char usage[] =
    "usage: vramtrace diff BASE NEW [--top N] [--frames VIEW|N] [--device N] [--rules FILE]...\n"
    "                      [--no-default-rules] [--json]\n"
    "  Compares what each site held at the peak of two runs (sites are matched by their\n"
    "  symbolized stacks, so runs on other hosts or pids match), sorted by growth, and\n"
    "  the peak of each by kind and by category (docs/categories.md).\n"
    "  Without --device the peak is that of all devices of a run together.\n";

int vt_cmd_diff(int argc, char **argv)
{
    enum { O_TOP = 1, O_JSON, O_FRAMES, O_DEVICE, O_RULES, O_NO_DEFAULT_RULES, O_HELP };
    static const vt_opt opts[] = {
        { "top", 0, 1, O_TOP }, { "json", 0, 0, O_JSON }, { "frames", 0, 1, O_FRAMES },
        { "device", 0, 1, O_DEVICE }, { "rules", 0, 1, O_RULES }, { "no-default-rules", 0, 0, O_NO_DEFAULT_RULES },
        { "help", 'h', 0, O_HELP }, { NULL, 0, 0, 0 }
    };
    vt_cat_opts cat = { .nrules = 0 };
    uint64_t top = 10, device = 0;
    vt_frames frames = { VT_VIEW_USER, 0 };
    int json = 0, has_device = 0;
    char *paths[2];
    int np = 0;
    vt_args a;
    vt_args_init(&a, "diff", argc, argv);
    const char *v;
    int id;
    while ((id = vt_args_next(&a, opts, &v)) != VT_ARGS_END) {
        switch (id) {
        case VT_ARGS_ERROR: return 2;
        case VT_ARGS_OPERAND:
            if (np == 2) { vt_args_error(&a, "two traces only: BASE NEW"); return 2; }
            paths[np++] = (char *)v;
            break;
        case O_TOP: if (vt_args_uint(&a, "--top", v, 1000000, &top)) { return 2; } break;
        case O_FRAMES:
            if (vt_show_frames_parse(v, &frames)) { vt_args_error(&a, VT_SHOW_FRAMES_ERROR, v); return 2; }
            break;
        case O_DEVICE:
            if (vt_args_uint(&a, "--device", v, 127, &device)) { return 2; }
            has_device = 1;
            break;
        case O_RULES: if (vt_cat_opts_add_rules(&cat, v)) return 2; break;
        case O_NO_DEFAULT_RULES: cat.no_default_rules = 1; break;
        case O_JSON: json = 1; break;
        case O_HELP: fputs(usage, stdout); return 0;
        }
    }
    if (np < 2) {
        vt_args_error(&a, np ? "missing NEW operand" : "missing BASE and NEW operands");
       
        return 2;
    }
    vt_analyze_opts ao = { UINT64_MAX, 1, &cat, NULL };
    vt_analysis an;
    int rc = vt_analyze(&an, 2, paths, &ao);
   
    if (rc) { vt_analysis_free(&an); return rc; }

    const vt_tracker *tk[2];
    static const vt_tracker none;
    for (int i = 0; i < 2; i++) {
        if (has_device) {
            const vt_device *d = vt_replay_device(an.t[i].rp, (int)device);
            tk[i] = d ? &d->dev : &none;
        } else {
            tk[i] = vt_replay_result_of(an.t[i].rp)->global;
        }
    }
    size_t ns = 0, nk = 0;
    drow *sites = join(&an, tk[0], tk[1], VT_BY_SITE, json ? NULL : &frames, &ns);
    drow *kinds = join(&an, tk[0], tk[1], VT_BY_KIND, NULL, &nk);
    if (!sites || !kinds) {
        fprintf(stderr, "vramtrace: out of memory\n");
        free(sites);
        free(kinds);
        vt_analysis_free(&an);
        return 2;
    }
    /* Categories: every one either run has, in vt_cat order, with how each was decided. */
    vt_cat_sum cs[2];
    for (int i = 0; i < 2; i++) vt_cat_sum_at(&an, tk[i], VT_AT_PEAK, &cs[i]);
    int64_t delta = (int64_t)(tk[1]->peak - tk[0]->peak);
    uint64_t grown = 0, shrunk = 0;
    for (size_t i = 0; i < ns; i++) {
        if (sites[i].delta > 0) grown += (uint64_t)sites[i].delta;
        else shrunk += (uint64_t)-sites[i].delta;
    }
    char b1[VT_UNITS_BUF], b2[VT_UNITS_BUF], b3[VT_UNITS_BUF], tb[VT_UNITS_BUF], rb[24], rb_[24];
    if (json) {
        vt_json j;
        vt_json_init(&j, stdout);
        vt_json_obj(&j, NULL);
        vt_json_str(&j, "schema", "vramtrace-diff/1");
        if (has_device) vt_json_u64(&j, "device", device);
        else vt_json_null(&j, "device");
        for (int i = 0; i < 2; i++) {
            vt_json_obj(&j, i ? "new" : "base");
            vt_json_str(&j, "path", an.t[i].path);
            vt_json_i64(&j, "rank", an.t[i].rd.hdr.rank);
            vt_json_u64(&j, "pid", an.t[i].rd.hdr.pid);
            vt_json_u64(&j, "peak_bytes", tk[i]->peak);
            vt_json_u64(&j, "peak_time_ns", tk[i]->peak_time);
            vt_json_end(&j);
        }
        vt_json_i64(&j, "peak_delta_bytes", delta);
        vt_json_u64(&j, "grown_bytes", grown);
        vt_json_u64(&j, "shrunk_bytes", shrunk);
        vt_json_arr(&j, "by_category");
        for (int c = 0; c < VT_CAT_N; c++) {
            const vt_cat_row *rb = &cs[0].row[c], *rn = &cs[1].row[c];
            if (!rb->bytes && !rn->bytes) continue;
            vt_json_obj(&j, NULL);
            vt_json_str(&j, "category", vt_cat_name((vt_cat)c));
            vt_json_u64(&j, "base_bytes", rb->bytes);
            vt_json_u64(&j, "new_bytes", rn->bytes);
            vt_json_i64(&j, "delta_bytes", (int64_t)(rn->bytes - rb->bytes));
            if (rb->bytes) vt_json_f64(&j, "ratio", (double)rn->bytes / (double)rb->bytes);
            else vt_json_null(&j, "ratio");
            vt_json_str(&j, "base_how", vt_cat_how_text(rb));
            vt_json_str(&j, "new_how", vt_cat_how_text(rn));
            if (rb->recomputed_bytes || rn->recomputed_bytes) {
                vt_json_u64(&j, "base_recomputed_bytes", rb->recomputed_bytes);
                vt_json_u64(&j, "new_recomputed_bytes", rn->recomputed_bytes);
            }
            vt_json_end(&j);
        }
        vt_json_end(&j);
        if (cs[0].graph_pool_bytes || cs[1].graph_pool_bytes) {
            vt_json_obj(&j, "graph_pool");
            vt_json_u64(&j, "base_bytes", cs[0].graph_pool_bytes);
            vt_json_u64(&j, "new_bytes", cs[1].graph_pool_bytes);
            vt_json_i64(&j, "delta_bytes", (int64_t)(cs[1].graph_pool_bytes - cs[0].graph_pool_bytes));
            vt_json_end(&j);
        }
        if (vt_layer_any(&an)) vt_layer_diff_json(&j, "by_layer", &an, tk[0], tk[1], top);
        for (int pass = 0; pass < 2; pass++) {
            drow *rows = pass ? kinds : sites;
            size_t n = pass ? nk : ns;
            vt_json_arr(&j, pass ? "by_kind" : "sites");
            for (size_t i = 0; i < n && (pass || i < top); i++) {
                const drow *r = &rows[i];
                vt_json_obj(&j, NULL);
                if (pass) vt_json_str(&j, "kind", vt_kind_name(r->key));
                vt_json_u64(&j, "base_bytes", r->base);
                vt_json_u64(&j, "new_bytes", r->new_);
                vt_json_i64(&j, "delta_bytes", r->delta);
                if (r->base) vt_json_f64(&j, "ratio", (double)r->new_ / (double)r->base);
                else vt_json_null(&j, "ratio");
                if (!pass) vt_show_site_json(&j, &an, r->key);
                vt_json_end(&j);
            }
            vt_json_end(&j);
        }
        vt_json_end(&j);
        vt_json_finish(&j);
    } else {
        char scope[32];
        if (has_device) snprintf(scope, sizeof scope, "device %d", (int)device);
        else snprintf(scope, sizeof scope, "all devices");
        for (int i = 0; i < 2; i++) {
            printf("%s %s", i ? "new: " : "base:", an.t[i].path);
            /* two ranks of one job: say which is which */
            if (an.t[i].rd.hdr.rank >= 0) printf(" (rank %d, pid %u)", an.t[i].rd.hdr.rank, an.t[i].rd.hdr.pid);
            printf(": peak %s at %s (%s)\n", vt_units_size(b1, tk[i]->peak), vt_units_time(tb, tk[i]->peak_time), scope);
        }
        printf("peak delta: %s", vt_units_size_delta(b1, delta));
        if (tk[0]->peak) printf(" (%+.1f%%)", 100.0 * (double)delta / (double)tk[0]->peak);
        printf("\n");
        printf("explained by the sites that grew: %s of the %s delta", vt_units_size_delta(b1, (int64_t)grown),
               vt_units_size_delta(b2, delta));
        if (shrunk) printf(" (sites that shrank: %s)", vt_units_size_delta(b3, -(int64_t)shrunk));
        printf("\n");

        printf("\nby kind at the peak:\n");
        printf("          base          new        delta  kind\n");
        for (size_t i = 0; i < nk; i++)
            printf("    %10s   %10s   %10s  %s\n", vt_units_size(b1, kinds[i].base), vt_units_size(b2, kinds[i].new_),
                   vt_units_size_delta(b3, kinds[i].delta), vt_kind_name(kinds[i].key));

        printf("\nby category at the peak:\n");
        printf("          base          new        delta     ratio  category          how (base, new)\n");
        for (int c = 0; c < VT_CAT_N; c++) {
            const vt_cat_row *rb = &cs[0].row[c], *rn = &cs[1].row[c];
            if (!rb->bytes && !rn->bytes) continue;
            drow r = { (uint32_t)c, rb->bytes, rn->bytes, (int64_t)(rn->bytes - rb->bytes) };
            ratio_text(rb_, sizeof rb_, &r);
            const char *hb = vt_cat_how_text(rb), *hn = vt_cat_how_text(rn);
            printf("    %10s   %10s   %10s  %8s  %-16s  %s, %s\n", vt_units_size(b1, rb->bytes),
                   vt_units_size(b2, rn->bytes), vt_units_size_delta(b3, r.delta), rb_,
                   vt_cat_name((vt_cat)c), hb ? hb : "-", hn ? hn : "-");
            if (rb->recomputed_bytes || rn->recomputed_bytes)
                printf("    %10s   %10s   %10s  %8s    %-14s  made again in a backward (checkpointing)\n",
                       vt_units_size(b1, rb->recomputed_bytes), vt_units_size(b2, rn->recomputed_bytes),
                       vt_units_size_delta(b3, (int64_t)(rn->recomputed_bytes - rb->recomputed_bytes)), "",
                       "recomputed");
        }
        if (cs[0].graph_pool_bytes || cs[1].graph_pool_bytes) {
            /* no category's, like report's line: the pools' idle bytes, not tensors */
            int64_t d = (int64_t)(cs[1].graph_pool_bytes - cs[0].graph_pool_bytes);
            drow r = { 0, cs[0].graph_pool_bytes, cs[1].graph_pool_bytes, d };
            ratio_text(rb_, sizeof rb_, &r);
            printf("    %10s   %10s   %10s  %8s  %-17s %s\n", vt_units_size(b1, r.base), vt_units_size(b2, r.new_),
                   vt_units_size_delta(b3, d), rb_, VT_ROW_POOL_NAME, "idle, in no category");
        }
        if (vt_cat_caching(&cs[0]) || vt_cat_caching(&cs[1]))
            printf("    approximate: caching-allocator segments, each in the category of what first grew it "
                   "(vramtrace run --per-tensor for exact numbers)\n");
        if (vt_layer_any(&an)) vt_layer_diff_text(&an, tk[0], tk[1], top);

        size_t ngrew = 0, nshrank = 0, nsame = 0;
        for (size_t i = 0; i < ns; i++) {
            if (sites[i].delta > 0) ngrew++;
            else if (sites[i].delta < 0) nshrank++;
            else nsame++;
        }
        printf("\nsites that grew (%zu):\n", ngrew);
        if (ngrew) printf("          base          new        delta     ratio  site\n");
        for (size_t i = 0; i < ngrew && i < top; i++) {
            ratio_text(rb, sizeof rb, &sites[i]);
            printf("    %10s   %10s   %10s  %8s  ", vt_units_size(b1, sites[i].base), vt_units_size(b2, sites[i].new_),
                   vt_units_size_delta(b3, sites[i].delta), rb);
            vt_show_row_site(stdout, &an, sites[i].key, &frames, 54);
        }
        if (ngrew > top) printf("    ... %zu more\n", ngrew - (size_t)top);
        if (nshrank) {
            printf("\nsites that shrank (%zu):\n", nshrank);
            printf("          base          new        delta     ratio  site\n");
            /* the largest drops last in the sorted array: walk back */
            for (size_t k = 0; k < nshrank && k < top; k++) {
                const drow *r = &sites[ns - 1 - k];
                ratio_text(rb, sizeof rb, r);
                printf("    %10s   %10s   %10s  %8s  ", vt_units_size(b1, r->base), vt_units_size(b2, r->new_),
                       vt_units_size_delta(b3, r->delta), rb);
                vt_show_row_site(stdout, &an, r->key, &frames, 54);
            }
            if (nshrank > top) printf("    ... %zu more\n", nshrank - (size_t)top);
        }
        if (nsame) printf("\nunchanged: %zu site%s\n", nsame, nsame == 1 ? "" : "s");
    }
    free(sites);
    free(kinds);
    vt_analysis_free(&an);
    return 0;
}
