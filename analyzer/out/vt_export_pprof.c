// SPDX-License-Identifier: MIT
/* vt_export_pprof.c - a gzipped pprof profile (`go tool pprof -http=: FILE`).
 *
 * One sample per group (site, kind, device) with six values: objects and bytes at the
 * peak, allocated over the whole trace, and live at the end; the default sample type
 * is the one --what names. Each frame of a site is a Location of one Line (inlined
 * frames were already expanded into frames of their own by the symbolizer). Each
 * recorded module is a Mapping (its path, load address, extent and GNU build-id, marked
 * as having functions, files, lines and inline frames), and a native frame's Location
 * points to it with its address in the process: pprof shows what is already symbolized
 * and can still symbolize again (`-symbolize=force`) from the binaries.
 * Samples carry the labels kind, category and device; a Function's system_name is its
 * name and its frame's class, "forward [user]".
 *
 * Built only with protobuf-c and zlib (VT_WITH_PPROF, set by analyzer/CMakeLists.txt);
 * builds that compile the analyzer's sources on their own (the fuzzer) get a stub. */
#include "vt_export.h"
#include "vt_frame_label.h"
#include "vt_series.h"
#include "vt_names.h"

#include <stdlib.h>
#include <string.h>

#ifdef VT_WITH_PPROF
#include <inttypes.h>
#include <zlib.h>

#include "vt_profile.pb-c.h"

typedef Perftools__Profiles__Profile pb_profile;
typedef Perftools__Profiles__ValueType pb_vtype;
typedef Perftools__Profiles__Sample pb_sample;
typedef Perftools__Profiles__Label pb_label;
typedef Perftools__Profiles__Location pb_location;
typedef Perftools__Profiles__Line pb_line;
typedef Perftools__Profiles__Function pb_function;
typedef Perftools__Profiles__Mapping pb_mapping;

/* Everything the message points to, freed together. */
typedef struct {
    vt_strtab strings;
    vt_strtab fkeys, lkeys;     /* function and location keys -> index */
    pb_function *fn;
    size_t nfn, fn_cap;
    pb_location *loc;
    pb_line *lines;             /* one per location */
    size_t nloc, loc_cap;
    pb_mapping *maps;           /* one per recorded module (distinct path and bias) */
    const vt_module **mmod;     /* the module of each */
    size_t nmaps;
    size_t last_map;            /* the mapping the last native frame was in (frames cluster) */
    int nomem;
} pb_build;

static int64_t str_id(pb_build *b, const char *s)
{
    uint32_t id = vt_strtab_intern(&b->strings, s ? s : "", s ? strlen(s) : 0);
    if (id == UINT32_MAX) b->nomem = 1;
    return id == UINT32_MAX ? 0 : (int64_t)id;
}

static int grow(void **p, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap) return 0;
    size_t c = *cap ? *cap * 2 : 256;
    void *q = realloc(*p, c * elem);
    if (!q) return -1;
    *p = q;
    *cap = c;
    return 0;
}

/* A function per distinct name, file and class; its system_name is "name [class]". */
static uint64_t function_id(pb_build *b, const char *name, const char *file, const char *fclass)
{
    char key[2048];
    int n = snprintf(key, sizeof key, "%s\x1f%s\x1f%s", name, file ? file : "", fclass);
    size_t before = b->fkeys.n;
    uint32_t ix = vt_strtab_intern(&b->fkeys, key, (size_t)n < sizeof key ? (size_t)n : sizeof key - 1);
    if (ix == UINT32_MAX) { b->nomem = 1; return 0; }
    if (b->fkeys.n == before) return (uint64_t)ix + 1;
    if (grow((void **)&b->fn, &b->fn_cap, b->nfn, sizeof *b->fn)) { b->nomem = 1; return 0; }
    pb_function *f = &b->fn[b->nfn++];
    perftools__profiles__function__init(f);
    f->id = (uint64_t)ix + 1;
    f->name = str_id(b, name);
    char sys[1100];
    snprintf(sys, sizeof sys, "%s [%s]", name, fclass);
    f->system_name = str_id(b, sys);
    f->filename = str_id(b, file);
    return f->id;
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* The mappings: the modules of trace rp, in record order (a module seen again at the same
 * load address is one mapping). */
static void add_mappings(pb_build *b, const vt_replay *rp)
{
    const vt_replay_result *res = vt_replay_result_of(rp);
    b->maps = calloc(res->nmodules ? res->nmodules : 1, sizeof *b->maps);
    b->mmod = calloc(res->nmodules ? res->nmodules : 1, sizeof *b->mmod);
    if (!b->maps || !b->mmod) { b->nomem = 1; return; }
    for (size_t i = 0; i < res->nmodules; i++) {
        const vt_module *m = &res->modules[i];
        size_t k = 0;
        while (k < b->nmaps && !(b->mmod[k]->bias == m->bias && !strcmp(b->mmod[k]->path, m->path))) k++;
        if (k < b->nmaps) continue;
        char id[2 * 64 + 1] = "";
        for (uint32_t j = 0; j < m->build_id_len && j < 64; j++) snprintf(id + 2 * j, 3, "%02x", m->build_id[j]);
        pb_mapping *pm = &b->maps[b->nmaps];
        perftools__profiles__mapping__init(pm);
        pm->id = b->nmaps + 1;
        pm->memory_start = m->bias;
        pm->memory_limit = m->bias + m->size;
        pm->filename = str_id(b, m->path);
        pm->build_id = str_id(b, id);
        pm->has_functions = pm->has_filenames = pm->has_line_numbers = pm->has_inline_frames = 1;
        b->mmod[b->nmaps++] = m;
    }
}

/* The mapping of a native frame: the module of that base name (site frames keep only
 * the base name); 0 when none. */
static size_t mapping_of(pb_build *b, const vt_site_frame *fr)
{
    if (!fr || fr->kind != VT_FRAME_NATIVE || !fr->module || !b->nmaps) return 0;
    if (!strcmp(base_name(b->mmod[b->last_map]->path), fr->module)) return b->last_map + 1;
    for (size_t k = 0; k < b->nmaps; k++)
        if (!strcmp(base_name(b->mmod[k]->path), fr->module)) { b->last_map = k; return k + 1; }
    return 0;
}

/* A location per distinct frame; fr NULL is the "[no stack]" frame. */
static uint64_t location_id(pb_build *b, const vt_site_frame *fr)
{
    char key[2048];
    int n = fr ? snprintf(key, sizeof key, "%s\x1f%s\x1f%u\x1f%s\x1f%" PRIx64 "\x1f%u", fr->function,
                          fr->file ? fr->file : "", fr->line, fr->module ? fr->module : "", fr->offset,
                          (unsigned)fr->kind)
               : snprintf(key, sizeof key, "[no stack]");
    size_t before = b->lkeys.n;
    uint32_t ix = vt_strtab_intern(&b->lkeys, key, (size_t)n < sizeof key ? (size_t)n : sizeof key - 1);
    if (ix == UINT32_MAX) { b->nomem = 1; return 0; }
    if (b->lkeys.n == before) return (uint64_t)ix + 1;
    size_t cap = b->loc_cap;
    if (grow((void **)&b->loc, &cap, b->nloc, sizeof *b->loc) ||
        grow((void **)&b->lines, &b->loc_cap, b->nloc, sizeof *b->lines)) {
        b->nomem = 1;
        return 0;
    }
    char label[1024];
    const char *name = fr ? vt_export_frame_label(fr, label, sizeof label) : "[no stack]";
    if (fr && fr->kind == VT_FRAME_PYTHON) name = fr->function; /* pprof shows file:line itself */
    pb_location *l = &b->loc[b->nloc];
    pb_line *ln = &b->lines[b->nloc];
    b->nloc++;
    perftools__profiles__location__init(l);
    perftools__profiles__line__init(ln);
    l->id = (uint64_t)ix + 1;
    size_t map = mapping_of(b, fr);
    l->mapping_id = map;
    l->address = map ? b->mmod[map - 1]->bias + fr->offset : fr && fr->kind == VT_FRAME_NATIVE ? fr->offset : 0;
    ln->function_id = function_id(b, name, fr ? fr->file : NULL, fr ? vt_fclass_name(fr->fclass) : "none");
    ln->line = fr ? fr->line : 0;
    return l->id;
}

static int write_gzip(FILE *f, const uint8_t *buf, size_t len)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    /* windowBits 15 + 16: a gzip wrapper, as pprof expects on disk */
    if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) return -1;
    uLong cap = deflateBound(&z, (uLong)len);
    uint8_t *out = malloc(cap);
    if (!out) { deflateEnd(&z); return -1; }
    z.next_in = (Bytef *)buf;
    z.avail_in = (uInt)len;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    int rc = deflate(&z, Z_FINISH);
    size_t n = cap - z.avail_out;
    deflateEnd(&z);
    if (rc != Z_STREAM_END) { free(out); return -1; }
    size_t w = fwrite(out, 1, n, f);
    free(out);
    return w == n ? 0 : -1;
}

int vt_export_pprof(FILE *f, const vt_analysis *a, const vt_export_opts *o)
{
    vt_eset e;
    if (vt_eset_init(&e, a, o->device)) return 2;
    pb_build b;
    memset(&b, 0, sizeof b);
    str_id(&b, ""); /* string_table[0] must be "" */
    add_mappings(&b, a->t[0].rp);

    static const char *const vnames[6] = { "peak_objects", "peak_space", "alloc_objects",
                                           "alloc_space", "leak_objects", "leak_space" };
    static const vt_what vwhat[3] = { VT_WHAT_PEAK, VT_WHAT_ALLOCATED, VT_WHAT_LEAKED };
    pb_vtype vt[6], period;
    pb_vtype *vtp[6];
    for (int i = 0; i < 6; i++) {
        perftools__profiles__value_type__init(&vt[i]);
        vt[i].type = str_id(&b, vnames[i]);
        vt[i].unit = str_id(&b, i & 1 ? "bytes" : "count");
        vtp[i] = &vt[i];
    }
    perftools__profiles__value_type__init(&period);
    period.type = str_id(&b, "space");
    period.unit = str_id(&b, "bytes");
    int64_t k_kind = str_id(&b, "kind"), k_cat = str_id(&b, "category"), k_dev = str_id(&b, "device");

    pb_sample *samples = calloc(e.n ? e.n : 1, sizeof *samples);
    pb_sample **sp = calloc(e.n ? e.n : 1, sizeof *sp);
    pb_label *labels = calloc(3 * (e.n ? e.n : 1), sizeof *labels);
    pb_label **lp = calloc(3 * (e.n ? e.n : 1), sizeof *lp);
    int64_t *values = calloc(6 * (e.n ? e.n : 1), sizeof *values);
    /* Location ids, sized by the frames the sites have: room for VT_SITE_MAX_FRAMES per
     * sample made 2 KiB per stack up front (6.2 GiB for 2M stacks). */
    size_t nlocs = 0;
    for (size_t i = 0; i < e.n; i++) {
        const vt_site *site = e.g[i].g->site < a->sites.n ? &a->sites.sites[e.g[i].g->site] : NULL;
        size_t k = site ? site->nframes : 0;
        nlocs += k == 0 ? 1 : k < VT_SITE_MAX_FRAMES ? k : VT_SITE_MAX_FRAMES;
    }
    uint64_t *locs = calloc(nlocs ? nlocs : 1, sizeof *locs);
    size_t ns = 0, at = 0;
    int rc = 0;
    if (!samples || !sp || !labels || !lp || !values || !locs) b.nomem = 1;
    for (size_t i = 0; i < e.n && !b.nomem; i++) {
        const vt_egroup *eg = &e.g[i];
        int64_t *v = &values[6 * ns];
        int any = 0;
        for (int w = 0; w < 3; w++) {
            v[2 * w] = (int64_t)vt_egroup_count(&e, eg, vwhat[w]);
            v[2 * w + 1] = (int64_t)vt_egroup_bytes(&e, eg, vwhat[w]);
            any |= v[2 * w] || v[2 * w + 1];
        }
        if (!any) continue;
        pb_sample *s = &samples[ns];
        perftools__profiles__sample__init(s);
        s->value = v;
        s->n_value = 6;
        const vt_site *site = eg->g->site < a->sites.n ? &a->sites.sites[eg->g->site] : NULL;
        s->location_id = &locs[at];
        if (!site || !site->nframes) s->location_id[s->n_location_id++] = location_id(&b, NULL);
        for (uint32_t fi = 0; site && fi < site->nframes && fi < VT_SITE_MAX_FRAMES; fi++)
            s->location_id[s->n_location_id++] = location_id(&b, &site->frames[fi]);
        at += s->n_location_id;
        pb_label *l = &labels[3 * ns];
        for (int j = 0; j < 3; j++) {
            perftools__profiles__label__init(&l[j]);
            lp[3 * ns + (size_t)j] = &l[j];
        }
        l[0].key = k_kind;
        l[0].str = str_id(&b, vt_kind_name(eg->g->kind));
        l[1].key = k_cat;
        l[1].str = str_id(&b, vt_series_cat_name(vt_series_group_cat(a, eg->ti, eg->g)));
        l[2].key = k_dev;
        l[2].num = eg->g->device;
        s->label = &lp[3 * ns];
        s->n_label = 3;
        sp[ns] = s;
        ns++;
    }

    pb_profile p;
    perftools__profiles__profile__init(&p);
    p.sample_type = vtp;
    p.n_sample_type = 6;
    p.sample = sp;
    p.n_sample = ns;
    p.period_type = &period;
    p.period = 1;
    p.time_nanos = (int64_t)a->t[0].rd.hdr.start_realtime_ns;
    p.duration_nanos = (int64_t)vt_replay_result_of(a->t[0].rp)->last_time;
    p.default_sample_type = o->what == VT_WHAT_ALLOCATED ? vt[3].type : o->what == VT_WHAT_LEAKED ? vt[5].type : vt[1].type;
    char comment[1200], dev[160];
    snprintf(comment, sizeof comment, "vramtrace: device memory of %s, trace %s", vt_eset_label(&e, dev, sizeof dev),
             a->t[0].path);
    int64_t cid = str_id(&b, comment);
    p.comment = &cid;
    p.n_comment = 1;

    pb_location **locp = calloc(b.nloc ? b.nloc : 1, sizeof *locp);
    pb_line **linep = calloc(b.nloc ? b.nloc : 1, sizeof *linep);
    pb_function **fnp = calloc(b.nfn ? b.nfn : 1, sizeof *fnp);
    if (!locp || !linep || !fnp) b.nomem = 1;
    for (size_t i = 0; !b.nomem && i < b.nloc; i++) {
        linep[i] = &b.lines[i];
        b.loc[i].line = &linep[i];
        b.loc[i].n_line = 1;
        locp[i] = &b.loc[i];
    }
    for (size_t i = 0; !b.nomem && i < b.nfn; i++) fnp[i] = &b.fn[i];
    pb_mapping **mapp = calloc(b.nmaps ? b.nmaps : 1, sizeof *mapp);
    if (!mapp) b.nomem = 1;
    for (size_t i = 0; !b.nomem && i < b.nmaps; i++) mapp[i] = &b.maps[i];
    p.mapping = mapp;
    p.n_mapping = b.nmaps;
    p.location = locp;
    p.n_location = b.nloc;
    p.function = fnp;
    p.n_function = b.nfn;
    p.string_table = (char **)b.strings.strs;
    p.n_string_table = b.strings.n;

    if (b.nomem) {
        fprintf(stderr, "vramtrace: out of memory\n");
        rc = 2;
    } else {
        size_t len = perftools__profiles__profile__get_packed_size(&p);
        uint8_t *buf = malloc(len ? len : 1);
        if (!buf) {
            fprintf(stderr, "vramtrace: out of memory\n");
            rc = 2;
        } else {
            perftools__profiles__profile__pack(&p, buf);
            if (write_gzip(f, buf, len)) {
                fprintf(stderr, "vramtrace: cannot write the profile\n");
                rc = 2;
            }
            free(buf);
        }
    }
    free(mapp);
    free(locp);
    free(linep);
    free(fnp);
    free(samples);
    free(sp);
    free(labels);
    free(lp);
    free(values);
    free(locs);
    free(b.fn);
    free(b.maps);
    free(b.mmod);
    free(b.loc);
    free(b.lines);
    vt_strtab_free(&b.strings);
    vt_strtab_free(&b.fkeys);
    vt_strtab_free(&b.lkeys);
    vt_eset_free(&e);
    return rc;
}

#else /* !VT_WITH_PPROF */

int vt_export_pprof(FILE *f, const vt_analysis *a, const vt_export_opts *o)
{
    (void)f;
    (void)a;
    (void)o;
    fprintf(stderr, "vramtrace: this build has no pprof output (it needs protobuf-c and zlib)\n");
    return 2;
}

#endif
