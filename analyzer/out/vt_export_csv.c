// SPDX-License-Identifier: MIT
/* vt_export_csv.c - one row per event (ALLOC, FREE, OOM and VMM records), in trace
 * order, from a pass of its own over the trace:
 *
 *   time_ns,event,kind,device,address,size,stream,tid,stack_id,device_live_bytes,category,site
 *
 * size: bytes allocated (alloc), asked (oom), mapped/reserved (vmm), or released by
 * this free (0 when the memory stays: a VMM handle still mapped or referenced, or a
 * free of an allocation the trace never saw). device_live_bytes: device memory of all
 * devices live after the event. category and site: those of the allocation's group
 * (alloc) or of the failed request (oom); empty otherwise. stack_id joins the table of
 * `--format csv-stacks` (vt_export_csv_stacks.c). */
#include "vt_export.h"
#include "vt_series.h"
#include "vt_names.h"
#include "vt_show.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* The row is formatted by hand: fprintf of a dozen fields per event costs more than the
 * rest of the pass together on traces of tens of millions of events. */
typedef struct {
    char buf[1 << 16];
    size_t n;
    FILE *f;
} out_buf;

static void flush(out_buf *o)
{
    fwrite(o->buf, 1, o->n, o->f);
    o->n = 0;
}

static void put_str(out_buf *o, const char *s, size_t n)
{
    if (o->n + n > sizeof o->buf) flush(o);
    if (n > sizeof o->buf) { fwrite(s, 1, n, o->f); return; }
    memcpy(o->buf + o->n, s, n);
    o->n += n;
}

static void put_u64(out_buf *o, uint64_t v, int comma)
{
    char t[24];
    int k = 24;
    if (comma) t[--k] = ',';
    do t[--k] = (char)('0' + v % 10); while (v /= 10);
    put_str(o, t + k, (size_t)(24 - k));
}

static void put_hex(out_buf *o, uint64_t v)
{
    char t[24];
    int k = 24;
    t[--k] = ',';
    do t[--k] = "0123456789abcdef"[v & 15]; while (v >>= 4);
    t[--k] = 'x';
    t[--k] = '0';
    put_str(o, t + k, (size_t)(24 - k));
}

/* The last two cells and the newline: `category,"site"`, the site on one line as report
 * shows it (the op, the user's line, the Python chain: vt_show.h), CSV-quoted; the
 * stacks' every frame is in `--format csv-stacks`. Made once per group. */
static char *tail_cells(const vt_analysis *a, const char *cat, uint32_t site)
{
    char *text = NULL, *p = NULL;
    size_t tlen = 0, len = 0;
    FILE *t = open_memstream(&text, &tlen);
    if (!t) return NULL;
    vt_show_site_inline(t, a, site, &(vt_frames){ VT_VIEW_USER, 0 }, VT_SHOW_FRAMES);
    if (fclose(t)) { free(text); return NULL; }
    FILE *f = open_memstream(&p, &len);
    if (!f) { free(text); return NULL; }
    fputs(cat, f);
    fputs(",\"", f);
    while (tlen && text[tlen - 1] == '\n') text[--tlen] = 0;
    for (const char *c = text; *c; c++) {
        if (*c == '"') fputc('"', f);
        fputc(*c == '\n' || *c == '\r' ? ' ' : *c, f);
    }
    fputs("\"\n", f);
    free(text);
    if (fclose(f)) { free(p); return NULL; }
    return p;
}

static uint64_t key_of(uint32_t stack_id, unsigned kind, int device)
{
    return stack_id | (uint64_t)(kind & 0xff) << 32 | (uint64_t)(uint8_t)(device + 1) << 40;
}

int vt_export_csv(FILE *f, const vt_analysis *a, const vt_export_opts *eo)
{
    (void)eo;
    const vt_trace *t = &a->t[0];
    const vt_replay_result *rp1 = vt_replay_result_of(t->rp);
    /* the first pass's groups by key: category and site of each allocation */
    vt_idmap gix = { 0 };
    char **cells = calloc(rp1->ngroups ? rp1->ngroups : 1, sizeof *cells);
    int nomem = !cells;
    for (size_t i = 0; i < rp1->ngroups && !nomem; i++) {
        const vt_group *g = &rp1->groups[i];
        cells[i] = tail_cells(a, vt_series_cat_name(vt_series_group_cat(a, 0, g)), g->site);
        if (!cells[i] || vt_idmap_put(&gix, key_of(g->stack_id, g->kind, g->device), (uint32_t)i)) nomem = 1;
    }
    char msg[512];
    vt_reader rd;
    vt_replay *rp = NULL;
    if (nomem) {
        fprintf(stderr, "vramtrace: out of memory\n");
    } else if (vt_reader_open(&rd, t->path, msg, sizeof msg) != VT_READ_OK) {
        fprintf(stderr, "vramtrace: %s\n", msg);
        nomem = 1;
    } else {
        vt_reader_start_async(&rd);
        rp = vt_replay_new(0, rd.hdr.start_realtime_ns);
        if (!rp) {
            vt_reader_close(&rd);
            fprintf(stderr, "vramtrace: out of memory\n");
            nomem = 1;
        }
    }
    if (nomem) {
        for (size_t i = 0; cells && i < rp1->ngroups; i++) free(cells[i]);
        free(cells);
        vt_idmap_free(&gix);
        return 2;
    }
    vt_tracker all = { 0 };
    /* Every group also feeds `every` (device, managed and host memory together), so
     * what a free released is the change of one number. */
    vt_tracker every = { 0 };
    vt_replay_set_global(rp, &all);
    size_t seen = 0, noom = 0;
    static const char head[] =
        "time_ns,event,kind,device,address,size,stream,tid,stack_id,device_live_bytes,category,site\n";
    out_buf *o = malloc(sizeof *o);
    if (!o) {
        fprintf(stderr, "vramtrace: out of memory\n");
        nomem = 1;
    } else {
        o->n = 0;
        o->f = f;
        put_str(o, head, sizeof head - 1);
    }
    vt_rec r;
    while (o && vt_reader_next(&rd, &r)) {
        uint64_t before = every.live;
        vt_replay_rec(rp, &r);
        for (; seen < vt_replay_ngroups(rp); seen++) {
            const vt_group *g = vt_replay_group(rp, seen);
            if (vt_replay_group_feed(rp, seen, &every)) continue;
            every.live += g->live;
        }
        const char *ev;
        uint64_t size = r.size;
        const char *kind;
        switch (r.type) {
        case VT_REC_ALLOC: ev = "alloc,"; kind = vt_kind_name(r.kind); break;
        case VT_REC_FREE:
            ev = "free,";
            kind = vt_kind_name(r.kind);
            size = before > every.live ? before - every.live : 0;
            break;
        case VT_REC_OOM: ev = "oom,"; kind = vt_kind_name(r.kind); break;
        case VT_REC_VMM: ev = "vmm,"; kind = vt_vmm_op_name(r.kind); break;
        default: continue;
        }
        put_u64(o, r.time_ns, 1);
        put_str(o, ev, strlen(ev));
        put_str(o, kind, strlen(kind));
        if (r.device < 0) put_str(o, ",-1,", 4);
        else {
            put_str(o, ",", 1);
            put_u64(o, (uint64_t)r.device, 1);
        }
        put_hex(o, r.addr);
        put_u64(o, size, 1);
        put_hex(o, r.stream);
        put_u64(o, r.tid, 1);
        put_u64(o, r.stack_id, 1);
        put_u64(o, all.live, 1);
        const char *cell = NULL;
        char *oom_cell = NULL;
        if (r.type == VT_REC_ALLOC) {
            const uint32_t *gi = vt_idmap_get(&gix, key_of(r.stack_id, r.kind, r.device));
            if (gi) cell = cells[*gi];
        } else if (r.type == VT_REC_OOM && noom < rp1->nooms) {
            /* a failed request has a site but no category (that is an allocation's) */
            cell = oom_cell = tail_cells(a, "", rp1->ooms[noom++].site);
        }
        if (cell) put_str(o, cell, strlen(cell));
        else put_str(o, ",\n", 2);
        free(oom_cell);
    }
    if (o) flush(o);
    free(o);
    for (size_t i = 0; i < rp1->ngroups; i++) free(cells[i]);
    free(cells);
    vt_replay_free(rp);
    vt_reader_close(&rd);
    vt_idmap_free(&gix);
    return nomem ? 2 : 0;
}
