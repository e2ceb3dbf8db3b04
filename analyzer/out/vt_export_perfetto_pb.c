// SPDX-License-Identifier: MIT
/* vt_export_perfetto_pb.c - a Perfetto trace in its protobuf format (ui.perfetto.dev,
 * trace processor): `export --format perfetto`, written with protobuf-c from
 * analyzer/out/perfetto_trace.proto, Perfetto's own messages and field numbers.
 *
 * Sequence 1: a process track, and under it a counter track (bytes) per category, one
 * for the total of the selected device memory and one for NVML, with the points
 * vt_export_counters.h walks; instant events for the peak and each OOM, an OOM with
 * the call stack of the failed request. Sequences 2 and 3: heap profiles (Perfetto's
 * ProfilePacket, as its native heap profiler writes them) of the selected memory, one
 * sample per call stack: at the peak (self_max: bytes live then) and at the end
 * (self_allocated, self_freed and counts over the whole run, each byte once: their
 * difference is what the stack holds at the end, vt_eset_end). Their frames carry the
 * site's frames as vramtrace folded them, scopes included, each with its class in
 * kind_str; native frames point into a Mapping per module (path, extent, build-id),
 * the others into made-up ones ("[python]", "[scope]", "[unknown]").
 * Each packet is packed on its own and written as a `packet` field of Trace, so the
 * output streams. */
#include "vt_eset.h"
#include "vt_export.h"
#include "vt_export_common.h"
#include "vt_export_counters.h"
#include "vt_frame_label.h"
#include "vt_names.h"
#include "vt_rows.h"
#include "vt_series.h"
#include "vt_show.h"

#include <stdlib.h>
#include <string.h>

#ifdef VT_WITH_PPROF
#include <inttypes.h>

#include "vt_perfetto_trace.pb-c.h"

typedef Perfetto__Protos__TracePacket pb_packet;
typedef Perfetto__Protos__TrackDescriptor pb_track;
typedef Perfetto__Protos__ProcessDescriptor pb_process;
typedef Perfetto__Protos__CounterDescriptor pb_counter;
typedef Perfetto__Protos__TrackEvent pb_event;
typedef Perfetto__Protos__TrackEvent__Callstack pb_icallstack;
typedef Perfetto__Protos__TrackEvent__Callstack__Frame pb_iframe;
typedef Perfetto__Protos__DebugAnnotation pb_annot;
typedef Perfetto__Protos__InternedString pb_string;
typedef Perfetto__Protos__Mapping pb_mapping;
typedef Perfetto__Protos__Frame pb_frame;
typedef Perfetto__Protos__Callstack pb_callstack;
typedef Perfetto__Protos__ProfilePacket pb_profile;
typedef Perfetto__Protos__ProfilePacket__HeapSample pb_sample;
typedef Perfetto__Protos__ProfilePacket__ProcessHeapSamples pb_dump;

enum { SEQ_TRACKS = 1, SEQ_PEAK = 2, SEQ_END = 3 };
#define UUID_PROCESS 1u   /* counter track i is UUID_PROCESS + 1 + i */
/* Build-id strings are raw bytes, kept apart from the text strings: their iids start here. */
#define BUILD_ID_IID0 (UINT64_C(1) << 32)

/* ------------------------------------------------------------------------ *
 *  Output: each packet as field 1 (length-delimited) of Trace
 * ------------------------------------------------------------------------ */
static int put_packet(FILE *f, const pb_packet *p)
{
    size_t n = perfetto__protos__trace_packet__get_packed_size(p);
    uint8_t small[1024], *buf = n <= sizeof small ? small : malloc(n);
    if (!buf) return -1;
    perfetto__protos__trace_packet__pack(p, buf);
    uint8_t head[11];
    size_t k = 0;
    head[k++] = 0x0a; /* field 1, wire type 2 */
    for (uint64_t v = n; ; v >>= 7) {
        head[k++] = (uint8_t)((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
        if (v < 0x80) break;
    }
    int rc = fwrite(head, 1, k, f) == k && fwrite(buf, 1, n, f) == n ? 0 : -1;
    if (buf != small) free(buf);
    return rc;
}

static void packet_init(pb_packet *p, uint32_t seq)
{
    perfetto__protos__trace_packet__init(p);
    p->has_trusted_packet_sequence_id = 1;
    p->trusted_packet_sequence_id = seq;
}

/* ------------------------------------------------------------------------ *
 *  Sequence 1: tracks, counters, instants
 * ------------------------------------------------------------------------ */
/* A packet of sequence 1 holding event e at time t on track `track`. */
static void event_packet(pb_packet *p, pb_event *e, uint64_t t, Perfetto__Protos__TrackEvent__Type type,
                         uint64_t track)
{
    packet_init(p, SEQ_TRACKS);
    perfetto__protos__track_event__init(e);
    p->has_timestamp = 1;
    p->timestamp = t;
    p->track_event = e;
    e->has_type = 1;
    e->type = type;
    e->has_track_uuid = 1;
    e->track_uuid = track;
}
typedef struct {
    FILE *f;
    int err;
} counter_out;

static void counter_point(void *ctx, size_t track, uint64_t t, uint64_t v)
{
    counter_out *o = ctx;
    pb_packet p;
    pb_event e;
    event_packet(&p, &e, t, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_COUNTER, UUID_PROCESS + 1 + track);
    e.has_counter_value = 1;
    e.counter_value = (int64_t)v;
    if (put_packet(o->f, &p)) o->err = 1;
}

static int put_track(FILE *f, uint64_t uuid, const char *name, int first, const vt_analysis *a)
{
    pb_packet p;
    pb_track td;
    pb_process pd;
    pb_counter cd;
    static char *cat[] = { "memory" };
    packet_init(&p, SEQ_TRACKS);
    perfetto__protos__track_descriptor__init(&td);
    p.track_descriptor = &td;
    td.has_uuid = 1;
    td.uuid = uuid;
    td.name = (char *)name;
    if (first) {
        /* the first packet of the sequence: nothing before it to refer to */
        p.has_sequence_flags = 1;
        p.sequence_flags = PERFETTO__PROTOS__SEQUENCE_FLAGS__SEQ_INCREMENTAL_STATE_CLEARED;
        perfetto__protos__process_descriptor__init(&pd);
        pd.has_pid = 1;
        pd.pid = (int32_t)a->t[0].rd.hdr.pid;
        pd.process_name = (char *)vt_export_program(a);
        td.process = &pd;
    } else {
        td.has_parent_uuid = 1;
        td.parent_uuid = UUID_PROCESS;
        perfetto__protos__counter_descriptor__init(&cd);
        cd.has_unit = 1;
        cd.unit = PERFETTO__PROTOS__COUNTER_DESCRIPTOR__UNIT__UNIT_SIZE_BYTES;
        cd.categories = cat;
        cd.n_categories = 1;
        td.counter = &cd;
    }
    return put_packet(f, &p);
}

/* Appends annotation `name` to an[]/anp[] (at *n) and returns it, its value to set. */
static pb_annot *annot(pb_annot *an, pb_annot **anp, size_t *n, const char *name)
{
    pb_annot *x = &an[*n];
    perfetto__protos__debug_annotation__init(x);
    x->name = (char *)name;
    anp[(*n)++] = x;
    return x;
}

static void annot_u(pb_annot *an, pb_annot **anp, size_t *n, const char *name, uint64_t v)
{
    pb_annot *x = annot(an, anp, n, name);
    x->has_uint_value = 1;
    x->uint_value = v;
}

/* An instant on the process track; site (UINT32_MAX: none) gives its call stack. */
static int put_instant(FILE *f, const vt_analysis *a, const char *name, uint64_t t, pb_annot **anp, size_t nan,
                       uint32_t site)
{
    static char *cat[] = { "memory" };
    pb_packet p;
    pb_event e;
    pb_icallstack cs;
    event_packet(&p, &e, t, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_INSTANT, UUID_PROCESS);
    e.name = (char *)name;
    e.categories = cat;
    e.n_categories = 1;
    e.debug_annotations = anp;
    e.n_debug_annotations = nan;
    const vt_site *s = site < a->sites.n ? &a->sites.sites[site] : NULL;
    pb_iframe *fr = NULL;
    pb_iframe **frp = NULL;
    char *labels = NULL;
    if (s && s->nframes) {
        fr = calloc(s->nframes, sizeof *fr);
        frp = calloc(s->nframes, sizeof *frp);
        labels = malloc((size_t)s->nframes * 256);
        if (!fr || !frp || !labels) {
            free(fr);
            free(frp);
            free(labels);
            return -1;
        }
        perfetto__protos__track_event__callstack__init(&cs);
        for (uint32_t k = 0; k < s->nframes; k++) {
            const vt_site_frame *sf = &s->frames[s->nframes - 1 - k]; /* outermost first */
            perfetto__protos__track_event__callstack__frame__init(&fr[k]);
            fr[k].function_name = (char *)vt_export_frame_label(sf, labels + (size_t)k * 256, 256);
            fr[k].source_file = (char *)sf->file;
            if (sf->line) {
                fr[k].has_line_number = 1;
                fr[k].line_number = sf->line;
            }
            frp[k] = &fr[k];
        }
        cs.frames = frp;
        cs.n_frames = s->nframes;
        e.callstack = &cs;
    }
    int rc = put_packet(f, &p);
    free(fr);
    free(frp);
    free(labels);
    return rc;
}

static int put_timeline(FILE *f, const vt_analysis *a, const vt_export_opts *o, uint64_t *peak_time)
{
    vt_series_opts so = { VT_SERIES_BY_CATEGORY, o->device, 0, o->buckets ? o->buckets : 10000, 0, UINT64_MAX, 1 };
    vt_series s;
    int rc = vt_series_build(&s, a, &so);
    if (rc) { vt_series_free(&s); return rc; }
    int err = put_track(f, UUID_PROCESS, NULL, 1, a);
    for (size_t i = 0; i < s.nseries + 2 && !err; i++) {
        const char *name = i < s.nseries ? s.series[i].name : i == s.nseries ? "device memory"
                           : s.nvml_proc ? "NVML process used" : "NVML device used";
        int has_nvml = 0;
        for (size_t b = 0; i == s.nseries + 1 && b < s.nbuckets && !has_nvml; b++) has_nvml = s.b[b].nvml != 0;
        if (i == s.nseries + 1 && !has_nvml) break;
        err = put_track(f, UUID_PROCESS + 1 + i, name, 0, a);
    }
    counter_out co = { f, err };
    if (!err && vt_export_counters(&s, counter_point, &co)) co.err = 1;
    err = co.err;

    pb_annot an[8];
    pb_annot *anp[8];
    size_t nan = 0;
    annot_u(an, anp, &nan, "bytes", s.peak);
    if (!err) err = put_instant(f, a, "peak", s.peak_time, anp, nan, UINT32_MAX);
    const vt_replay_result *rp = vt_replay_result_of(a->t[0].rp);
    for (size_t i = 0; i < rp->nooms && !err; i++) {
        const vt_oom *oo = &rp->ooms[i];
        if (o->device != VT_ALL_DEVICES && oo->device != o->device) continue;
        nan = 0;
        annot_u(an, anp, &nan, "size", oo->size);
        pb_annot *dev = annot(an, anp, &nan, "device");
        dev->has_int_value = 1;
        dev->int_value = oo->device;
        annot(an, anp, &nan, "kind")->string_value = (char *)vt_kind_name(oo->kind);
        annot_u(an, anp, &nan, "free", oo->free_bytes);
        annot_u(an, anp, &nan, "total", oo->total_bytes);
        annot_u(an, anp, &nan, "live", oo->live);
        /* the site on one line as report shows it: the op, the user's line, the chain */
        char site[512];
        vt_show_site_text(site, sizeof site, a, oo->site, 3);
        annot(an, anp, &nan, "site")->string_value = site;
        err = put_instant(f, a, "OOM", oo->time, anp, nan, oo->site);
    }
    *peak_time = s.peak_time;
    vt_series_free(&s);
    if (err) {
        fprintf(stderr, "vramtrace: cannot write the trace\n");
        return 2;
    }
    return 0;
}

/* ------------------------------------------------------------------------ *
 *  Sequences 2 and 3: heap profiles
 * ------------------------------------------------------------------------ */
typedef struct {
    vt_strtab strs;             /* text strings: iid = id + 1 */
    vt_strtab fkeys;            /* frame keys: iid = id + 1 */
    pb_frame *fr;
    size_t nfr, fr_cap;
    pb_mapping *maps;
    const vt_module **mmod;
    uint64_t **paths;           /* path_string_ids of each mapping */
    size_t nmaps;
    size_t syn0;                /* the first made-up mapping (NSYN of them) */
    pb_string *bids;            /* build-ids: iid = BUILD_ID_IID0 + index */
    size_t nbids;
    pb_callstack *cs;
    uint64_t *cs_frames;        /* frame ids of every call stack, outermost first */
    size_t ncs;
    pb_sample *peak, *end;      /* one per call stack */
    int nomem;
} heap_build;

static uint64_t str_iid(heap_build *b, const char *s)
{
    uint32_t id = vt_strtab_intern(&b->strs, s ? s : "", s ? strlen(s) : 0);
    if (id == UINT32_MAX) { b->nomem = 1; return 0; }
    return (uint64_t)id + 1;
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* A mapping: path in components, as Perfetto keeps it ("/usr/lib/libc.so.6" -> usr, lib,
 * libc.so.6), and a build-id, raw bytes; every mapping names one (Perfetto's trace
 * processor drops a mapping whose build-id string it cannot find): "" when unknown. */
static void add_mapping(heap_build *b, const vt_module *m, const char *path, uint64_t start, uint64_t end,
                        const uint8_t *bid, uint32_t bid_len)
{
    pb_mapping *pm = &b->maps[b->nmaps];
    perfetto__protos__mapping__init(pm);
    pm->has_iid = pm->has_start = pm->has_end = pm->has_build_id = 1;
    pm->iid = b->nmaps + 1;
    pm->start = start;
    pm->end = end;
    size_t nc = 1;
    for (const char *c = path; *c; c++) nc += *c == '/';
    uint64_t *ids = calloc(nc, sizeof *ids);
    if (!ids) { b->nomem = 1; return; }
    size_t k = 0;
    for (const char *c = path; *c;) {
        if (*c == '/') { c++; continue; }
        const char *e = strchr(c, '/');
        size_t len = e ? (size_t)(e - c) : strlen(c);
        uint32_t id = vt_strtab_intern(&b->strs, c, len);
        if (id == UINT32_MAX) { b->nomem = 1; break; }
        ids[k++] = (uint64_t)id + 1;
        c += len;
    }
    b->paths[b->nmaps] = ids;
    pm->path_string_ids = ids;
    pm->n_path_string_ids = k;
    if (bid_len) {
        pb_string *bs = &b->bids[b->nbids];
        perfetto__protos__interned_string__init(bs);
        bs->has_iid = bs->has_str = 1;
        bs->iid = BUILD_ID_IID0 + b->nbids;
        bs->str.data = (uint8_t *)bid;
        bs->str.len = bid_len;
        pm->build_id = bs->iid;
        b->nbids++;
    } else {
        pm->build_id = str_iid(b, "");
    }
    b->mmod[b->nmaps++] = m;
}

/* Frames without a module of the trace still need a mapping (the trace processor drops
 * a frame without one): Python frames, scopes, native frames of no recorded module. */
enum { SYN_PYTHON, SYN_SCOPE, SYN_UNKNOWN, NSYN };
static const char *const syn_path[NSYN] = { "[python]", "[scope]", "[unknown]" };

/* The mappings: the modules of trace rp, in record order (a module seen again at the
 * same load address is one mapping), then the NSYN made-up ones. */
static void add_mappings(heap_build *b, const vt_replay_result *rp)
{
    size_t n = rp->nmodules + NSYN;
    b->maps = calloc(n, sizeof *b->maps);
    b->mmod = calloc(n, sizeof *b->mmod);
    b->paths = calloc(n, sizeof *b->paths);
    b->bids = calloc(n, sizeof *b->bids);
    if (!b->maps || !b->mmod || !b->paths || !b->bids) { b->nomem = 1; return; }
    for (size_t i = 0; i < rp->nmodules && !b->nomem; i++) {
        const vt_module *m = &rp->modules[i];
        size_t k = 0;
        while (k < b->nmaps && !(b->mmod[k]->bias == m->bias && !strcmp(b->mmod[k]->path, m->path))) k++;
        if (k == b->nmaps) add_mapping(b, m, m->path, m->bias, m->bias + m->size, m->build_id, m->build_id_len);
    }
    b->syn0 = b->nmaps;
    for (int i = 0; i < NSYN && !b->nomem; i++) add_mapping(b, NULL, syn_path[i], 0, 0, NULL, 0);
}

/* The mapping of frame fr (an iid), and whether it is a module's (rel_pc is its offset). */
static size_t mapping_of(const heap_build *b, const vt_site_frame *fr, int *module)
{
    *module = 0;
    if (fr && fr->kind == VT_FRAME_PYTHON) return b->syn0 + SYN_PYTHON + 1;
    if (fr && fr->kind == VT_FRAME_SCOPE) return b->syn0 + SYN_SCOPE + 1;
    for (size_t k = 0; fr && fr->module && k < b->syn0; k++)
        if (!strcmp(base_name(b->mmod[k]->path), fr->module)) {
            *module = 1;
            return k + 1;
        }
    return b->syn0 + SYN_UNKNOWN + 1;
}

/* The frame of fr, made when new; fr NULL: a frame named `none` ("[no stack]", the idle
 * cache), in no module. */
static uint64_t frame_iid(heap_build *b, const vt_site_frame *fr, const char *none)
{
    char key[2048];
    int n = fr ? snprintf(key, sizeof key, "%s\x1f%s\x1f%u\x1f%s\x1f%" PRIx64 "\x1f%u\x1f%u", fr->function,
                          fr->file ? fr->file : "", fr->line, fr->module ? fr->module : "", fr->offset,
                          (unsigned)fr->kind, (unsigned)fr->fclass)
               : snprintf(key, sizeof key, "%s", none);
    size_t before = b->fkeys.n;
    uint32_t ix = vt_strtab_intern(&b->fkeys, key, (size_t)n < sizeof key ? (size_t)n : sizeof key - 1);
    if (ix == UINT32_MAX) { b->nomem = 1; return 0; }
    if (b->fkeys.n == before) return (uint64_t)ix + 1;
    if (b->nfr == b->fr_cap) {
        size_t c = b->fr_cap ? b->fr_cap * 2 : 256;
        pb_frame *p = realloc(b->fr, c * sizeof *p);
        if (!p) { b->nomem = 1; return 0; }
        b->fr = p;
        b->fr_cap = c;
    }
    pb_frame *pf = &b->fr[b->nfr++];
    perfetto__protos__frame__init(pf);
    pf->has_iid = pf->has_function_name_id = 1;
    pf->iid = (uint64_t)ix + 1;
    char label[1024];
    pf->function_name_id = str_iid(b, fr ? vt_export_frame_label(fr, label, sizeof label) : none);
    int module;
    pf->has_mapping_id = pf->has_rel_pc = 1;
    pf->mapping_id = mapping_of(b, fr, &module);
    /* in a made-up mapping, the frame's own iid: no two frames share an address there */
    pf->rel_pc = module ? fr->offset : pf->iid;
    if (fr && fr->line) {
        pf->has_line_number = 1;
        pf->line_number = fr->line;
    }
    /* kind_str is a string of the message itself: the class names are static */
    pf->kind_str = fr ? (char *)vt_fclass_name(fr->fclass) : NULL;
    return pf->iid;
}

static void heap_free(heap_build *b)
{
    for (size_t i = 0; b->paths && i < b->nmaps; i++) free(b->paths[i]);
    free(b->paths);
    free(b->maps);
    free(b->mmod);
    free(b->bids);
    free(b->fr);
    free(b->cs);
    free(b->cs_frames);
    free(b->peak);
    free(b->end);
    vt_strtab_free(&b->strs);
    vt_strtab_free(&b->fkeys);
}

/* One call stack and two samples per site of the selected groups; PyTorch's idle
 * segment bytes, no site's, are a call stack of their own, one frame "(idle cache)" as
 * the flame graph names them, and a private pool's "(CUDA graph pool)". The end sample counts each byte once (vt_eset_end). */
static void heap_samples(heap_build *b, const vt_eset *e)
{
    const vt_sites *ss = &e->a->sites;
    size_t nfr = 0;
    for (size_t i = 0; i < e->n; i++) {
        const vt_site *s = e->g[i].g->site < ss->n ? &ss->sites[e->g[i].g->site] : NULL;
        nfr += s && s->nframes ? s->nframes : 1;
    }
    size_t n = e->n ? e->n : 1;
    b->cs = calloc(n, sizeof *b->cs);
    b->cs_frames = calloc(nfr ? nfr : 1, sizeof *b->cs_frames);
    b->peak = calloc(n, sizeof *b->peak);
    b->end = calloc(n, sizeof *b->end);
    vt_egroup_end *ends = calloc(n, sizeof *ends);
    if (!b->cs || !b->cs_frames || !b->peak || !b->end || !ends || vt_eset_end(e, ends)) {
        b->nomem = 1;
        free(ends);
        return;
    }
    vt_idmap ix = { 0 };   /* site (VT_ROW_IDLE: the idle bytes) -> call stack */
    size_t at = 0;
    for (size_t i = 0; i < e->n && !b->nomem; i++) {
        const vt_egroup *eg = &e->g[i];
        int pool = eg->g->kind == VT_GROUP_POOL, idle = pool || eg->g->kind == VT_GROUP_IDLE;
        uint32_t site = pool ? VT_ROW_POOL : idle ? VT_ROW_IDLE : eg->g->site;
        const uint32_t *have = vt_idmap_get(&ix, site);
        size_t c = have ? *have : b->ncs;
        if (!have) {
            const vt_site *s = !idle && site < ss->n ? &ss->sites[site] : NULL;
            pb_callstack *cs = &b->cs[c];
            perfetto__protos__callstack__init(cs);
            cs->has_iid = 1;
            cs->iid = c + 1;
            cs->frame_ids = &b->cs_frames[at];
            if (!s || !s->nframes)
                cs->frame_ids[cs->n_frame_ids++] =
                    frame_iid(b, NULL, pool ? VT_ROW_POOL_NAME : idle ? VT_ROW_IDLE_NAME : "[no stack]");
            for (uint32_t k = 0; s && k < s->nframes; k++)
                cs->frame_ids[cs->n_frame_ids++] = frame_iid(b, &s->frames[s->nframes - 1 - k], NULL);
            at += cs->n_frame_ids;
            perfetto__protos__profile_packet__heap_sample__init(&b->peak[c]);
            perfetto__protos__profile_packet__heap_sample__init(&b->end[c]);
            b->peak[c].has_callstack_id = b->peak[c].has_self_max = 1;
            b->peak[c].callstack_id = cs->iid;
            pb_sample *en = &b->end[c];
            en->has_callstack_id = en->has_self_allocated = en->has_self_freed = 1;
            en->has_alloc_count = en->has_free_count = 1;
            en->callstack_id = cs->iid;
            if (vt_idmap_put(&ix, site, (uint32_t)c)) b->nomem = 1;
            b->ncs++;
        }
        b->peak[c].self_max += vt_egroup_bytes(e, eg, VT_WHAT_PEAK);
        pb_sample *en = &b->end[c];
        en->self_allocated += ends[i].allocated;
        en->self_freed += ends[i].freed;
        en->alloc_count += ends[i].allocs;
        en->free_count += ends[i].frees;
    }
    free(ends);
    vt_idmap_free(&ix);
}

static int put_heap(FILE *f, const vt_analysis *a, const vt_export_opts *o, uint64_t peak_time)
{
    vt_eset e;
    if (vt_eset_init(&e, a, o->device)) return 2;
    heap_build b;
    memset(&b, 0, sizeof b);
    add_mappings(&b, vt_replay_result_of(a->t[0].rp));
    heap_samples(&b, &e);

    size_t nstr = b.strs.n + b.nbids;
    pb_string *strs = calloc(nstr ? nstr : 1, sizeof *strs);
    pb_string **strp = calloc(nstr ? nstr : 1, sizeof *strp);
    pb_frame **frp = calloc(b.nfr ? b.nfr : 1, sizeof *frp);
    pb_callstack **csp = calloc(b.ncs ? b.ncs : 1, sizeof *csp);
    pb_mapping **mapp = calloc(b.nmaps ? b.nmaps : 1, sizeof *mapp);
    pb_sample **pkp = calloc(b.ncs ? b.ncs : 1, sizeof *pkp);
    pb_sample **enp = calloc(b.ncs ? b.ncs : 1, sizeof *enp);
    if (!strs || !strp || !frp || !csp || !mapp || !pkp || !enp) b.nomem = 1;
    int rc = 0;
    if (!b.nomem) {
        for (size_t i = 0; i < b.strs.n; i++) {
            perfetto__protos__interned_string__init(&strs[i]);
            strs[i].has_iid = strs[i].has_str = 1;
            strs[i].iid = i + 1;
            strs[i].str.data = (uint8_t *)b.strs.strs[i];
            strs[i].str.len = b.strs.lens[i];
            strp[i] = &strs[i];
        }
        for (size_t i = 0; i < b.nbids; i++) strp[b.strs.n + i] = &b.bids[i];
        for (size_t i = 0; i < b.nfr; i++) frp[i] = &b.fr[i];
        for (size_t i = 0; i < b.ncs; i++) {
            csp[i] = &b.cs[i];
            pkp[i] = &b.peak[i];
            enp[i] = &b.end[i];
        }
        for (size_t i = 0; i < b.nmaps; i++) mapp[i] = &b.maps[i];
        /* the two dumps, each in a profile of its own on a sequence of its own: the
         * interning tables of a ProfilePacket are valid within it */
        for (int d = 0; d < 2 && !rc; d++) {
            pb_packet p;
            pb_profile pp;
            pb_dump dump, *dumpp = &dump;
            packet_init(&p, d ? SEQ_END : SEQ_PEAK);
            p.has_sequence_flags = 1;
            p.sequence_flags = PERFETTO__PROTOS__SEQUENCE_FLAGS__SEQ_INCREMENTAL_STATE_CLEARED;
            uint64_t t = d ? vt_replay_result_of(a->t[0].rp)->last_time : peak_time;
            p.has_timestamp = 1;
            p.timestamp = t;
            perfetto__protos__profile_packet__init(&pp);
            perfetto__protos__profile_packet__process_heap_samples__init(&dump);
            p.profile_packet = &pp;
            pp.strings = strp;
            pp.n_strings = nstr;
            pp.frames = frp;
            pp.n_frames = b.nfr;
            pp.callstacks = csp;
            pp.n_callstacks = b.ncs;
            pp.mappings = mapp;
            pp.n_mappings = b.nmaps;
            pp.process_dumps = &dumpp;
            pp.n_process_dumps = 1;
            pp.has_index = 1;
            pp.index = 0;
            dump.has_pid = dump.has_timestamp = dump.has_from_startup = 1;
            dump.pid = a->t[0].rd.hdr.pid;
            dump.timestamp = t;
            dump.from_startup = 1;
            dump.samples = d ? enp : pkp;
            dump.n_samples = b.ncs;
            if (put_packet(f, &p)) {
                fprintf(stderr, "vramtrace: cannot write the trace\n");
                rc = 2;
            }
        }
    }
    if (b.nomem) {
        fprintf(stderr, "vramtrace: out of memory\n");
        rc = 2;
    }
    free(strs);
    free(strp);
    free(frp);
    free(csp);
    free(mapp);
    free(pkp);
    free(enp);
    heap_free(&b);
    vt_eset_free(&e);
    return rc;
}

int vt_export_perfetto(FILE *f, const vt_analysis *a, const vt_export_opts *o)
{
    uint64_t peak_time = 0;
    int rc = put_timeline(f, a, o, &peak_time);
    return rc ? rc : put_heap(f, a, o, peak_time);
}

#else /* !VT_WITH_PPROF */

int vt_export_perfetto(FILE *f, const vt_analysis *a, const vt_export_opts *o)
{
    (void)f;
    (void)a;
    (void)o;
    fprintf(stderr, "vramtrace: this build has no Perfetto protobuf output (it needs protobuf-c); "
            "--format perfetto-json needs nothing\n");
    return 2;
}

#endif
