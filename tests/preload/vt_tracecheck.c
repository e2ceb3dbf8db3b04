// SPDX-License-Identifier: MIT
/* vt_tracecheck.c - a trace reader for the recorder's tests, independent of the analyzer.
 *
 *   vt_tracecheck dump TRACE            every record as one line of text
 *   vt_tracecheck counts TRACE          records per type, chunks, trailer
 *   vt_tracecheck verify [OPTIONS] EXPECT [TRACE]
 *        the trace (default: the T line of EXPECT) must hold exactly the events the
 *        test program logged in EXPECT (tp.c), with the right fields and stacks.
 *        --killed          the process was killed: no trailer needed, a partial last chunk is fine
 *        --depth N         VRAMTRACE_DEPTH in force (default 64; 0: no stacks at all)
 *        --free-stacks     frees carry stacks (VRAMTRACE_FREE_STACKS=1)
 *        --check-devices   DEVICE and DRIVER records must match the program's D and R lines
 *        --check-modules   MODULE records must cover each calling function, with the right
 *                          load bias, extent and build-id, and no stack may start
 *                          inside libvramtrace.so
 *        --structure-only  check the file, header, stacks and trailer, not the events
 * Exit status: 0 ok, 1 the trace is wrong, 2 usage or I/O error. */
#define _GNU_SOURCE
#include "vt_codec.h"
#include "vt_format.h"

#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

/* ------------------------------------------------------------------------ *
 *  Reading a trace
 * ------------------------------------------------------------------------ */
typedef struct {
    vt_rec r;          /* str/bytes/counts point into the trace's own copies */
    uint32_t chunk;
} rec_t;

typedef struct {
    vt_file_header hdr;
    const char *host, *exe, *cmd;
    uint32_t host_len, exe_len, cmd_len;
    rec_t *recs;
    size_t n, cap;
    uint32_t nchunks;
    int partial;               /* a partial chunk ended the file */
    uint64_t partial_off;
    uint8_t *file;             /* kept: header blobs point into it */
    uint8_t **raws;            /* decompressed chunks: records point into them */
    uint64_t (*counts)[VT_REC_TYPE_MAX]; /* trailer counts, one slot per record (only for trailers) */
} trace_t;

static int g_errors;
static int g_max_errors = 60;

static void err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void err(const char *fmt, ...)
{
    g_errors++;
    if (g_errors > g_max_errors) return;
    va_list ap;
    va_start(ap, fmt);
    fputs("FAIL: ", stdout);
    vprintf(fmt, ap);
    fputc('\n', stdout);
    va_end(ap);
    if (g_errors == g_max_errors) printf("FAIL: (further failures not shown)\n");
}

static uint8_t *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    for (;;) {
        if (n == cap) buf = realloc(buf, cap *= 2);
        size_t got = fread(buf + n, 1, cap - n, f);
        if (got == 0) break;
        n += got;
    }
    fclose(f);
    *len = n;
    return buf;
}

static const uint8_t *blob(const uint8_t **p, const uint8_t *end, uint32_t *len)
{
    if ((size_t)(end - *p) < 4) return NULL;
    uint32_t n;
    memcpy(&n, *p, 4);
    *p += 4;
    if ((size_t)(end - *p) < n) return NULL;
    const uint8_t *b = *p;
    *p += n;
    *len = n;
    return b;
}

/* Returns 0 when the file reads (structural errors are reported with err()), -1 when it
 * cannot be opened or has no valid header. */
static int trace_load(const char *path, trace_t *t)
{
    memset(t, 0, sizeof *t);
    size_t len;
    t->file = read_file(path, &len);
    if (!t->file) { err("cannot read trace %s: %s", path, strerror(errno)); return -1; }
    if (len < sizeof t->hdr) { err("%s: %zu bytes, shorter than a file header", path, len); return -1; }
    memcpy(&t->hdr, t->file, sizeof t->hdr);
    if (memcmp(t->hdr.magic, VT_MAGIC, VT_MAGIC_LEN)) { err("%s: bad magic", path); return -1; }
    if (t->hdr.version_major != VT_VERSION_MAJOR) {
        err("%s: version %u.%u", path, t->hdr.version_major, t->hdr.version_minor);
        return -1;
    }
    if (t->hdr.header_size < sizeof t->hdr + 12 || t->hdr.header_size > len) {
        err("%s: header_size %u (file %zu bytes)", path, t->hdr.header_size, len);
        return -1;
    }
    const uint8_t *p = t->file + sizeof t->hdr, *hend = t->file + t->hdr.header_size;
    t->host = (const char *)blob(&p, hend, &t->host_len);
    t->exe = (const char *)blob(&p, hend, &t->exe_len);
    t->cmd = (const char *)blob(&p, hend, &t->cmd_len);
    if (!t->host || !t->exe || !t->cmd) { err("%s: header blobs overrun header_size", path); return -1; }
    if (p != hend) err("%s: %zu bytes after the header blobs, inside header_size", path, (size_t)(hend - p));

    uint64_t off = t->hdr.header_size;
    int saw_trailer = 0;
    while (off < len) {
        vt_chunk_header ch;
        if (len - off < sizeof ch) { t->partial = 1; t->partial_off = off; break; }
        memcpy(&ch, t->file + off, sizeof ch);
        if (ch.magic != VT_CHUNK_MAGIC) { err("chunk at offset %" PRIu64 ": bad magic 0x%08x", off, ch.magic); break; }
        if (ch.raw_size > VT_CHUNK_MAX_RAW) { err("chunk at offset %" PRIu64 ": raw_size %u too large", off, ch.raw_size); break; }
        if (len - off - sizeof ch < ch.comp_size) { t->partial = 1; t->partial_off = off; break; }
        uint8_t *raw = malloc(ch.raw_size ? ch.raw_size : 1);
        size_t got = ZSTD_decompress(raw, ch.raw_size, t->file + off + sizeof ch, ch.comp_size);
        if (ZSTD_isError(got)) {
            err("chunk %u at offset %" PRIu64 ": zstd: %s", t->nchunks, off, ZSTD_getErrorName(got));
            free(raw);
            break;
        }
        if (got != ch.raw_size) err("chunk %u: decompressed to %zu bytes, header says %u", t->nchunks, got, ch.raw_size);
        t->raws = realloc(t->raws, sizeof *t->raws * (t->nchunks + 1));
        t->raws[t->nchunks] = raw;
        vt_codec c;
        memset(&c, 0, sizeof c);
        vt_codec_reset(&c, ch.base_time_ns);
        size_t pos = 0;
        uint32_t nrec = 0;
        while (pos < got) {
            if (t->n == t->cap) {
                t->cap = t->cap ? t->cap * 2 : 4096;
                t->recs = realloc(t->recs, sizeof *t->recs * t->cap);
                t->counts = realloc(t->counts, sizeof *t->counts * t->cap);
            }
            rec_t *r = &t->recs[t->n];
            size_t used = vt_codec_decode(&c, raw + pos, got - pos, &r->r);
            if (!used) { err("chunk %u: malformed record %u at byte %zu", t->nchunks, nrec, pos); break; }
            if (saw_trailer) err("chunk %u: a record of type %u after the TRAILER", t->nchunks, r->r.type);
            if (r->r.type == VT_REC_TRAILER) {
                saw_trailer = 1;
                memcpy(t->counts[t->n], r->r.counts, sizeof t->counts[0]);
                r->r.counts = t->counts[t->n];
            }
            r->chunk = t->nchunks;
            t->n++;
            nrec++;
            pos += used;
        }
        if (nrec != ch.nrecords) err("chunk %u: %u records decoded, header says %u", t->nchunks, nrec, ch.nrecords);
        t->nchunks++;
        off += sizeof ch + ch.comp_size;
    }
    /* Trailer counts point into t->counts, which realloc may have moved. */
    for (size_t i = 0; i < t->n; i++)
        if (t->recs[i].r.type == VT_REC_TRAILER) t->recs[i].r.counts = t->counts[i];
    return 0;
}

/* ------------------------------------------------------------------------ *
 *  Text form of records (stable: tests and goldens may compare it)
 * ------------------------------------------------------------------------ */
static const char *type_name(unsigned t)
{
    /* by the format's numbers, so that a type added out of order keeps its name */
    static const char *const names[VT_REC_TYPE_MAX] = {
        [0] = "NONE", [VT_REC_ALLOC] = "ALLOC", [VT_REC_FREE] = "FREE", [VT_REC_OOM] = "OOM",
        [VT_REC_VMM] = "VMM", [VT_REC_POOL_TRIM] = "POOL_TRIM", [VT_REC_STACK] = "STACK",
        [VT_REC_MODULE] = "MODULE", [VT_REC_DEVICE] = "DEVICE", [VT_REC_DRIVER] = "DRIVER",
        [VT_REC_NVML] = "NVML", [VT_REC_NVML_DEVICE] = "NVML_DEVICE", [VT_REC_THREAD] = "THREAD",
        [VT_REC_STRING] = "STRING", [VT_REC_LOOKUP] = "LOOKUP", [VT_REC_LOST] = "LOST",
        [VT_REC_TRAILER] = "TRAILER", [VT_REC_PYFRAME] = "PYFRAME", [VT_REC_PAUSE] = "PAUSE",
        [VT_REC_MARK] = "MARK", [VT_REC_SYMBOL] = "SYMBOL", [VT_REC_ANNOTATE] = "ANNOTATE",
        [VT_REC_POOL] = "POOL", [VT_REC_SOURCE] = "SOURCE",
    };
    return t < VT_REC_TYPE_MAX && names[t] ? names[t] : "UNKNOWN";
}

static void put_str(FILE *f, const char *s, uint32_t n)
{
    fputc('"', f);
    for (uint32_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c < 0x20 || c >= 0x7f) fprintf(f, "\\x%02x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

static void put_hex(FILE *f, const uint8_t *b, uint32_t n)
{
    if (!n) fputc('-', f);
    for (uint32_t i = 0; i < n; i++) fprintf(f, "%02x", b[i]);
}

static void rec_print(FILE *f, const vt_rec *r)
{
    unsigned long long t = r->time_ns, a = r->addr, s = r->size, st = r->stream, x0 = r->aux0, x1 = r->aux1;
    fprintf(f, "%s", type_name(r->type));
    switch (r->type) {
    case VT_REC_ALLOC:
        fprintf(f, " t=%llu tid=%u kind=%u dev=%d addr=0x%llx size=%llu stream=0x%llx stack=%u flags=0x%x",
                t, r->tid, r->kind, r->device, a, s, st, r->stack_id, r->flags);
        break;
    case VT_REC_FREE:
        fprintf(f, " t=%llu tid=%u kind=%u dev=%d addr=0x%llx stream=0x%llx stack=%u flags=0x%x",
                t, r->tid, r->kind, r->device, a, st, r->stack_id, r->flags);
        break;
    case VT_REC_OOM:
        fprintf(f, " t=%llu tid=%u kind=%u dev=%d size=%llu stream=0x%llx stack=%u free=%llu total=%llu flags=0x%x",
                t, r->tid, r->kind, r->device, s, st, r->stack_id, x0, x1, r->flags);
        break;
    case VT_REC_VMM:
        fprintf(f, " t=%llu tid=%u op=%u dev=%d addr=0x%llx size=%llu aux0=0x%llx aux1=0x%llx stack=%u",
                t, r->tid, r->kind, r->device, a, s, x0, x1, r->stack_id);
        break;
    case VT_REC_POOL_TRIM:
        fprintf(f, " t=%llu tid=%u dev=%d pool=0x%llx size=%llu", t, r->tid, r->device, a, s);
        break;
    case VT_REC_STACK:
        fprintf(f, " id=%u parent=%u kind=%u addr=0x%llx", r->id, r->parent, r->kind, a);
        break;
    case VT_REC_MODULE:
        fprintf(f, " base=0x%llx size=0x%llx buildid=", a, s);
        put_hex(f, r->bytes, r->bytes_len);
        fputs(" path=", f);
        put_str(f, r->str, r->str_len);
        break;
    case VT_REC_DEVICE:
        fprintf(f, " dev=%d total=%llu cc=%llu.%llu uuid=", r->device, s, x0, x1);
        put_hex(f, r->bytes, r->bytes_len);
        fputs(" name=", f);
        put_str(f, r->str, r->str_len);
        break;
    case VT_REC_DRIVER:
        fprintf(f, " t=%llu version=%llu", t, x0);
        break;
    case VT_REC_NVML:
        fprintf(f, " t=%llu dev=%d proc_used_plus1=%llu used=%llu total=%llu", t, r->device, x0, s, x1);
        break;
    case VT_REC_NVML_DEVICE:
        fprintf(f, " dev=%d uuid=", r->device);
        put_str(f, r->str, r->str_len);
        break;
    case VT_REC_THREAD:
        fprintf(f, " tid=%u name=", r->tid);
        put_str(f, r->str, r->str_len);
        break;
    case VT_REC_STRING:
        fprintf(f, " id=%u str=", r->id);
        put_str(f, r->str, r->str_len);
        break;
    case VT_REC_LOOKUP:
        fprintf(f, " t=%llu tid=%u how=%llu flags=0x%x addr=0x%llx aux1=0x%llx name=", t, r->tid, x0, r->flags, a, x1);
        put_str(f, r->str, r->str_len);
        break;
    case VT_REC_LOST:
        fprintf(f, " t=%llu n=%llu", t, s);
        break;
    case VT_REC_TRAILER:
        fprintf(f, " t=%llu flags=0x%x counts=", t, r->flags);
        for (unsigned i = 0, first = 1; i < VT_REC_TYPE_MAX; i++)
            if (r->counts && r->counts[i]) {
                fprintf(f, "%s%s:%llu", first ? "" : ",", type_name(i), (unsigned long long)r->counts[i]);
                first = 0;
            }
        break;
    case VT_REC_PYFRAME:
        fprintf(f, " id=%u file=%llu func=%llu line=%u", r->id, x0, x1, r->line);
        break;
    case VT_REC_PAUSE:
        fprintf(f, " t=%llu tid=%u paused=%llu", t, r->tid, x0);
        break;
    case VT_REC_SYMBOL:
        fprintf(f, " ip=0x%llx index=%llu/%llu line=%u", (unsigned long long)r->addr, x0, x1, r->line);
        break;
    case VT_REC_MARK:
        fprintf(f, " t=%llu tid=%u name=%.*s", t, r->tid, (int)r->str_len, r->str ? r->str : "");
        break;
    case VT_REC_SOURCE:
        fprintf(f, " file=%.*s line=%u layer=%.*s", (int)r->str_len, r->str ? r->str : "", r->line,
                (int)r->bytes_len, r->bytes ? (const char *)r->bytes : "");
        break;
    case VT_REC_ANNOTATE:
        fprintf(f, " t=%llu addr=0x%llx size=%llu role=%u layer=%llu batch=%llu", t, (unsigned long long)r->addr,
                (unsigned long long)r->size, r->kind, x0, x1);
        break;
    default:
        fprintf(f, " type=%u", r->type);
        break;
    }
    fputc('\n', f);
}

static void header_print(FILE *f, const trace_t *t)
{
    fprintf(f, "HEADER version=%u.%u pid=%u ppid=%u depth=%u rank=%d local_rank=%d flags=0x%x start_realtime=%llu host=",
            t->hdr.version_major, t->hdr.version_minor, t->hdr.pid, t->hdr.ppid, t->hdr.stack_depth,
            t->hdr.rank, t->hdr.local_rank, t->hdr.flags, (unsigned long long)t->hdr.start_realtime_ns);
    put_str(f, t->host, t->host_len);
    fputs(" exe=", f);
    put_str(f, t->exe, t->exe_len);
    fputs(" argv=", f);
    put_str(f, t->cmd, t->cmd_len);
    fputc('\n', f);
}

/* ------------------------------------------------------------------------ *
 *  The expectation log (see tp.c)
 * ------------------------------------------------------------------------ */
typedef struct {
    char type;            /* A F O V P */
    int kind, dev, fn;
    uint64_t addr, size, stream, aux0, aux1;
    unsigned flags, tid;
    size_t line;
    long match;           /* index of the matching record, -1 none */
} expect_t;

typedef struct { int id; uint64_t lo, hi, bias; char path[4096], name[256]; } fn_t;
typedef struct { int dev; uint64_t total; int major, minor; char uuid[64], name[256]; } dev_t_;

typedef struct {
    unsigned pid, ppid;
    int rank, local_rank, have_rank;
    uint64_t realtime;
    char trace[4096], exe[4096];
    char *cmd;
    size_t cmd_len;
    expect_t *ev;
    size_t nev, cap;
    fn_t fns[64];
    int nfns;
    dev_t_ devs[16];
    int ndevs;
    long driver;          /* -1: none */
    long long x[5];       /* alloc free oom vmm trim; -1 unknown */
} expectation;

static int hexval(int c) { return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1; }

static int expect_load(const char *path, expectation *e)
{
    memset(e, 0, sizeof *e);
    e->driver = -1;
    for (int i = 0; i < 5; i++) e->x[i] = -1;
    FILE *f = fopen(path, "r");
    if (!f) { fprintf(stderr, "vt_tracecheck: cannot read %s: %s\n", path, strerror(errno)); return -1; }
    char *line = NULL;
    size_t cap = 0, lineno = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, f)) > 0) {
        lineno++;
        /* A last line without its newline was cut by exit() while another thread was
         * still logging (tp_linked exit-busy): it describes no finished call. */
        if (line[n - 1] != '\n' && feof(f)) break;
        if (line[n - 1] == '\n') line[--n] = 0;
        char *s = line + 2;
        if (n < 2) continue;
        switch (line[0]) {
        case 'H': sscanf(s, "%u %u %" SCNu64, &e->pid, &e->ppid, &e->realtime); break;
        case 'K': e->have_rank = sscanf(s, "%d %d", &e->rank, &e->local_rank) == 2; break;
        case 'T': snprintf(e->trace, sizeof e->trace, "%s", s); break;
        case 'E': snprintf(e->exe, sizeof e->exe, "%s", s); break;
        case 'C': {
            size_t l = strlen(s) / 2;
            e->cmd = malloc(l + 1);
            for (size_t i = 0; i < l; i++) e->cmd[i] = (char)(hexval(s[2 * i]) * 16 + hexval(s[2 * i + 1]));
            e->cmd_len = l;
            break;
        }
        case 'R': e->driver = strtol(s, NULL, 0); break;
        case 'N': {
            fn_t *fn = &e->fns[e->nfns];
            if (e->nfns < 64 && sscanf(s, "%d %" SCNx64 " %" SCNx64 " %" SCNx64 " %4095s %255s", &fn->id, &fn->lo,
                                       &fn->hi, &fn->bias, fn->path, fn->name) == 6)
                e->nfns++;
            break;
        }
        case 'D': {
            dev_t_ *d = &e->devs[e->ndevs];
            int off = 0;
            if (e->ndevs < 16 && sscanf(s, "%d %" SCNu64 " %d %d %63s %n", &d->dev, &d->total, &d->major, &d->minor,
                                        d->uuid, &off) == 5) {
                snprintf(d->name, sizeof d->name, "%s", s + off);
                e->ndevs++;
            }
            break;
        }
        case 'X': {
            char key[32];
            long long v;
            static const char *const keys[] = { "alloc", "free", "oom", "vmm", "trim" };
            if (sscanf(s, "%31s %lld", key, &v) == 2)
                for (int i = 0; i < 5; i++) if (!strcmp(key, keys[i])) e->x[i] = v;
            break;
        }
        case 'A': case 'F': case 'O': case 'V': case 'P': {
            if (e->nev == e->cap) {
                e->cap = e->cap ? e->cap * 2 : 1024;
                e->ev = realloc(e->ev, sizeof *e->ev * e->cap);
            }
            expect_t *x = &e->ev[e->nev];
            memset(x, 0, sizeof *x);
            x->type = line[0];
            x->line = lineno;
            x->match = -1;
            int ok = 0;
            unsigned long long a = 0, b = 0, c = 0, d = 0, g = 0;
            if (x->type == 'A') ok = sscanf(s, "%d %lli %llu %lli %x %u %d %d", &x->kind, &a, &b, &c, &x->flags, &x->tid, &x->dev, &x->fn) == 8;
            else if (x->type == 'F') ok = sscanf(s, "%d %lli %lli %x %u %d %d", &x->kind, &a, &c, &x->flags, &x->tid, &x->dev, &x->fn) == 7;
            else if (x->type == 'O') ok = sscanf(s, "%d %llu %lli %x %u %d %llu %llu %d", &x->kind, &b, &c, &x->flags, &x->tid, &x->dev, &d, &g, &x->fn) == 9;
            else if (x->type == 'V') ok = sscanf(s, "%d %lli %llu %lli %lli %u %d %d", &x->kind, &a, &b, &d, &g, &x->tid, &x->dev, &x->fn) == 8;
            else ok = sscanf(s, "%lli %llu %u %d %d", &a, &b, &x->tid, &x->dev, &x->fn) == 5;
            if (!ok) { fprintf(stderr, "vt_tracecheck: %s:%zu: cannot parse '%s'\n", path, lineno, line); fclose(f); return -1; }
            x->addr = a; x->size = b; x->stream = c; x->aux0 = d; x->aux1 = g;
            e->nev++;
            break;
        }
        default: break;
        }
    }
    free(line);
    fclose(f);
    return 0;
}

/* ------------------------------------------------------------------------ *
 *  Stacks
 * ------------------------------------------------------------------------ */
typedef struct { uint32_t id, parent; uint8_t kind; uint64_t addr; } node_t;
static node_t *g_nodes;   /* indexed by id; the checker is one-shot, so plain globals */
static uint8_t *g_have;
static size_t g_nnodes;

static void stacks_build(const trace_t *t)
{
    uint32_t maxid = 0;
    for (size_t i = 0; i < t->n; i++)
        if (t->recs[i].r.type == VT_REC_STACK && t->recs[i].r.id > maxid) maxid = t->recs[i].r.id;
    g_nnodes = (size_t)maxid + 1;
    g_nodes = calloc(g_nnodes, sizeof *g_nodes);
    g_have = calloc(g_nnodes, 1);
    for (size_t i = 0; i < t->n; i++) {
        const vt_rec *r = &t->recs[i].r;
        if (r->type != VT_REC_STACK) continue;
        if (r->id == 0) { err("STACK record with id 0"); continue; }
        node_t nd = { r->id, r->parent, r->kind, r->addr };
        if (g_have[r->id] && memcmp(&g_nodes[r->id], &nd, sizeof nd))
            err("STACK id %u defined twice, differently (parent %u/%u, addr 0x%" PRIx64 "/0x%" PRIx64 ")",
                r->id, g_nodes[r->id].parent, nd.parent, g_nodes[r->id].addr, nd.addr);
        g_nodes[r->id] = nd;
        g_have[r->id] = 1;
    }
}

/* Frames of stack id, innermost first; returns the count, or -1 if broken. */
static int stack_frames(uint32_t id, uint64_t *ips, int max, char *why, size_t whylen)
{
    int n = 0;
    while (id) {
        if (id >= g_nnodes || !g_have[id]) { snprintf(why, whylen, "stack node %u is not defined", id); return -1; }
        if (n >= max) { snprintf(why, whylen, "stack deeper than %d (a cycle?)", max); return -1; }
        ips[n++] = g_nodes[id].kind == VT_FRAME_NATIVE ? g_nodes[id].addr : 0;
        id = g_nodes[id].parent;
    }
    return n;
}

static const fn_t *fn_find(const expectation *e, int id)
{
    for (int i = 0; i < e->nfns; i++) if (e->fns[i].id == id) return &e->fns[i];
    return NULL;
}

/* The frame whose call site lies in fn (return address - 1 inside [lo, hi)), or 0. */
static uint64_t stack_hit(const uint64_t *ips, int n, const fn_t *fn)
{
    for (int i = 0; i < n; i++)
        if (ips[i] && ips[i] - 1 >= fn->lo && ips[i] - 1 < fn->hi) return ips[i];
    return 0;
}

/* ------------------------------------------------------------------------ *
 *  ELF facts for --check-modules
 * ------------------------------------------------------------------------ */
static int elf_facts(const char *path, uint64_t *extent, uint8_t *bid, uint32_t *bid_len)
{
    size_t len;
    uint8_t *f = read_file(path, &len);
    if (!f) return -1;
    Elf64_Ehdr eh;
    if (len < sizeof eh) { free(f); return -1; }
    memcpy(&eh, f, sizeof eh);
    if (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64) { free(f); return -1; }
    *extent = 0;
    *bid_len = 0;
    for (unsigned i = 0; i < eh.e_phnum; i++) {
        Elf64_Phdr ph;
        size_t o = eh.e_phoff + (size_t)i * eh.e_phentsize;
        if (o + sizeof ph > len) break;
        memcpy(&ph, f + o, sizeof ph);
        if (ph.p_type == PT_LOAD && ph.p_vaddr + ph.p_memsz > *extent) *extent = ph.p_vaddr + ph.p_memsz;
        if (ph.p_type == PT_NOTE && ph.p_offset + ph.p_filesz <= len) {
            size_t p = ph.p_offset, end = ph.p_offset + ph.p_filesz;
            while (p + 12 <= end) {
                uint32_t nsz, dsz, type;
                memcpy(&nsz, f + p, 4); memcpy(&dsz, f + p + 4, 4); memcpy(&type, f + p + 8, 4);
                size_t name = p + 12, desc = name + ((nsz + 3) & ~3u);
                if (desc + dsz > end) break;
                if (type == NT_GNU_BUILD_ID && nsz == 4 && !memcmp(f + name, "GNU", 4) && dsz <= 64) {
                    memcpy(bid, f + desc, dsz);
                    *bid_len = dsz;
                }
                p = desc + ((dsz + 3) & ~3u);
            }
        }
    }
    free(f);
    return 0;
}

/* ------------------------------------------------------------------------ *
 *  verify
 * ------------------------------------------------------------------------ */
typedef struct {
    int killed, depth, free_stacks, check_devices, check_modules, structure_only;
} options;

typedef struct { uint8_t type, kind; uint64_t key; size_t idx; } tkey;

static int tkey_cmp(const void *a, const void *b)
{
    const tkey *x = a, *y = b;
    if (x->type != y->type) return x->type < y->type ? -1 : 1;
    if (x->kind != y->kind) return x->kind < y->kind ? -1 : 1;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static uint8_t ev_type(char c)
{
    return c == 'A' ? VT_REC_ALLOC : c == 'F' ? VT_REC_FREE : c == 'O' ? VT_REC_OOM : c == 'V' ? VT_REC_VMM : VT_REC_POOL_TRIM;
}

static int is_event(uint8_t t)
{
    return t == VT_REC_ALLOC || t == VT_REC_FREE || t == VT_REC_OOM || t == VT_REC_VMM || t == VT_REC_POOL_TRIM;
}

static uint64_t rec_key(const vt_rec *r) { return r->type == VT_REC_OOM ? r->size : r->addr; }
static uint8_t rec_kind(const vt_rec *r) { return r->type == VT_REC_POOL_TRIM ? 0 : r->kind; }

static void describe_expect(const expect_t *x, char *buf, size_t n)
{
    snprintf(buf, n, "%s kind/op=%d addr=0x%" PRIx64 " size=%" PRIu64 " stream=0x%" PRIx64 " flags=0x%x tid=%u dev=%d "
             "aux0=0x%" PRIx64 " aux1=0x%" PRIx64 " (expect line %zu)", type_name(ev_type(x->type)), x->kind, x->addr,
             x->size, x->stream, x->flags, x->tid, x->dev, x->aux0, x->aux1, x->line);
}

static void rec_text(const vt_rec *r, char *buf, size_t n)
{
    FILE *f = fmemopen(buf, n, "w");
    if (!f) { buf[0] = 0; return; }
    rec_print(f, r);
    fclose(f);
    buf[n - 1] = 0;
    char *nl = strchr(buf, '\n');
    if (nl) *nl = 0;
}

static void check_header(const trace_t *t, const expectation *e, const options *o)
{
    if (e->pid && t->hdr.pid != e->pid) err("header pid %u, the program's pid is %u", t->hdr.pid, e->pid);
    if (e->pid && t->hdr.ppid != e->ppid) err("header ppid %u, the program's ppid is %u", t->hdr.ppid, e->ppid);
    if (e->realtime) {
        uint64_t rt = t->hdr.start_realtime_ns;
        if (rt > e->realtime || e->realtime - rt > 60ull * 1000000000ull)
            err("header start_realtime_ns %" PRIu64 " is not within the minute before the program's main() (%" PRIu64 ")",
                rt, e->realtime);
    }
    if (e->exe[0] && (t->exe_len != strlen(e->exe) || memcmp(t->exe, e->exe, t->exe_len)))
        err("header exe '%.*s', expected '%s'", (int)t->exe_len, t->exe, e->exe);
    if (e->cmd && (t->cmd_len != e->cmd_len || memcmp(t->cmd, e->cmd, e->cmd_len))) {
        char a[512], b[512];
        size_t la = t->cmd_len < 511 ? t->cmd_len : 511, lb = e->cmd_len < 511 ? e->cmd_len : 511;
        memcpy(a, t->cmd, la); memcpy(b, e->cmd, lb);
        for (size_t i = 0; i < la; i++) if (!a[i]) a[i] = '|';
        for (size_t i = 0; i < lb; i++) if (!b[i]) b[i] = '|';
        a[la] = b[lb] = 0;
        err("header argv '%s' (NUL shown as |), expected '%s'", a, b);
    }
    if (t->host_len == 0) err("header hostname is empty");
    if (t->hdr.stack_depth != (uint32_t)o->depth) err("header stack_depth %u, expected %d", t->hdr.stack_depth, o->depth);
    if (e->have_rank && t->hdr.rank != e->rank) err("header rank %d, expected %d", t->hdr.rank, e->rank);
    if (!(t->hdr.flags & VT_HDR_LOCAL_RANK)) err("header flags 0x%x: LOCAL_RANK bit not set", t->hdr.flags);
    else if (e->have_rank && t->hdr.local_rank != e->local_rank)
        err("header local_rank %d, expected %d", t->hdr.local_rank, e->local_rank);
    if (!!(t->hdr.flags & VT_HDR_FREE_STACKS) != !!o->free_stacks)
        err("header flags 0x%x: FREE_STACKS bit should be %d", t->hdr.flags, o->free_stacks);
    if (t->hdr.flags & VT_HDR_FORK_CHILD) err("header flags 0x%x: FORK_CHILD is reserved and never set", t->hdr.flags);
}

static void check_devices(const trace_t *t, const expectation *e)
{
    for (int i = 0; i < e->ndevs; i++) {
        const dev_t_ *d = &e->devs[i];
        int found = 0;
        for (size_t k = 0; k < t->n && !found; k++) {
            const vt_rec *r = &t->recs[k].r;
            if (r->type != VT_REC_DEVICE || r->device != d->dev) continue;
            found = 1;
            char uuid[64] = "";
            for (uint32_t b = 0; b < r->bytes_len && b < 16; b++) sprintf(uuid + 2 * b, "%02x", r->bytes[b]);
            if (r->size != d->total) err("DEVICE %d: total %" PRIu64 ", driver says %" PRIu64, d->dev, r->size, d->total);
            if (r->aux0 != (uint64_t)d->major || r->aux1 != (uint64_t)d->minor)
                err("DEVICE %d: cc %" PRIu64 ".%" PRIu64 ", driver says %d.%d", d->dev, r->aux0, r->aux1, d->major, d->minor);
            if (r->bytes_len != 16 || strcmp(uuid, d->uuid)) err("DEVICE %d: uuid %s (%u bytes), driver says %s", d->dev, uuid, r->bytes_len, d->uuid);
            if (r->str_len != strlen(d->name) || memcmp(r->str, d->name, r->str_len))
                err("DEVICE %d: name '%.*s', driver says '%s'", d->dev, (int)r->str_len, r->str, d->name);
        }
        if (!found) err("no DEVICE record for device %d", d->dev);
    }
    if (e->driver >= 0) {
        int found = 0;
        for (size_t k = 0; k < t->n; k++) {
            const vt_rec *r = &t->recs[k].r;
            if (r->type != VT_REC_DRIVER) continue;
            found = 1;
            if ((long)r->aux0 != e->driver) err("DRIVER version %" PRIu64 ", driver says %ld", r->aux0, e->driver);
        }
        if (!found) err("no DRIVER record");
    }
}

static void check_modules(const trace_t *t, const expectation *e)
{
    for (int i = 0; i < e->nfns; i++) {
        const fn_t *fn = &e->fns[i];
        const vt_rec *m = NULL;
        for (size_t k = 0; k < t->n; k++) {
            const vt_rec *r = &t->recs[k].r;
            if (r->type == VT_REC_MODULE && fn->lo >= r->addr && fn->lo < r->addr + r->size &&
                r->str_len == strlen(fn->path) && !memcmp(r->str, fn->path, r->str_len))
                m = r;
        }
        if (!m) {
            err("no MODULE record for %s covers %s at 0x%" PRIx64 " (load bias 0x%" PRIx64 ")", fn->path, fn->name, fn->lo, fn->bias);
            continue;
        }
        if (m->addr != fn->bias) err("MODULE %s: base 0x%" PRIx64 ", load bias is 0x%" PRIx64, fn->path, m->addr, fn->bias);
        uint64_t extent = 0;
        uint8_t bid[64];
        uint32_t bid_len = 0;
        if (elf_facts(fn->path, &extent, bid, &bid_len)) { err("cannot read ELF %s", fn->path); continue; }
        if (m->size != extent) err("MODULE %s: size 0x%" PRIx64 ", PT_LOAD extent is 0x%" PRIx64, fn->path, m->size, extent);
        if (m->bytes_len != bid_len || memcmp(m->bytes, bid, bid_len))
            err("MODULE %s: build-id of %u bytes differs from the file's (%u bytes)", fn->path, m->bytes_len, bid_len);
    }
}

/* The recorder's own frames must not fill the stacks: the innermost frame of an
 * allocation's stack is the program's call site, never inside libvramtrace.so. */
static void check_no_recorder_frames(const trace_t *t)
{
    uint64_t lo = 0, hi = 0;
    for (size_t k = 0; k < t->n; k++) {
        const vt_rec *r = &t->recs[k].r;
        static const char lib[] = "/libvramtrace.so";
        if (r->type == VT_REC_MODULE && r->str_len >= sizeof lib - 1 &&
            !memcmp(r->str + r->str_len - (sizeof lib - 1), lib, sizeof lib - 1)) {
            lo = r->addr;
            hi = r->addr + r->size;
        }
    }
    if (!hi) { err("no MODULE record for libvramtrace.so"); return; }
    for (size_t k = 0; k < t->n; k++) {
        const vt_rec *r = &t->recs[k].r;
        if ((r->type != VT_REC_ALLOC && r->type != VT_REC_OOM) || !r->stack_id) continue;
        uint64_t ips[300];
        char why[128], got[512];
        int n = stack_frames(r->stack_id, ips, 300, why, sizeof why);
        if (n > 0 && ips[0] >= lo && ips[0] < hi) {
            rec_text(r, got, sizeof got);
            err("innermost frame 0x%" PRIx64 " is inside libvramtrace.so: %s", ips[0], got);
            return;
        }
    }
}

static int verify(const char *expect_path, const char *trace_path, const options *o)
{
    expectation e;
    if (expect_load(expect_path, &e)) return 2;
    if (!trace_path) trace_path = e.trace;
    if (!trace_path[0]) { fprintf(stderr, "vt_tracecheck: no trace path (no T line in %s)\n", expect_path); return 2; }
    trace_t t;
    if (trace_load(trace_path, &t)) return 1;
    printf("trace %s: %zu records in %u chunks%s\n", trace_path, t.n, t.nchunks, t.partial ? ", then a partial chunk" : "");
    if (t.partial && !o->killed)
        err("partial chunk at offset %" PRIu64 " in a trace of a process that exited normally", t.partial_off);

    check_header(&t, &e, o);
    stacks_build(&t);

    /* Records per type; the trailer. */
    uint64_t count[VT_REC_TYPE_MAX] = { 0 };
    const vt_rec *trailer = NULL;
    for (size_t i = 0; i < t.n; i++) {
        const vt_rec *r = &t.recs[i].r;
        if (r->type < VT_REC_TYPE_MAX) count[r->type]++;
        if (r->type == VT_REC_TRAILER) trailer = r;
        if (r->type == VT_REC_LOST) err("LOST record: %" PRIu64 " events dropped", r->size);
        if (r->type == VT_REC_STACK && o->depth == 0) err("STACK record with VRAMTRACE_DEPTH=0");
        if ((r->type == VT_REC_ALLOC || r->type == VT_REC_OOM || r->type == VT_REC_FREE || r->type == VT_REC_VMM) &&
            r->stack_id) {
            uint64_t ips[300];
            char why[128];
            int n = stack_frames(r->stack_id, ips, 300, why, sizeof why);
            if (n < 0) err("%s record %zu: %s", type_name(r->type), i, why);
            else if (o->depth && n > o->depth) err("%s record %zu: stack of %d frames, VRAMTRACE_DEPTH is %d", type_name(r->type), i, n, o->depth);
        }
    }
    if (count[VT_REC_TRAILER] > 1) err("%" PRIu64 " TRAILER records", count[VT_REC_TRAILER]);
    if (!trailer && !o->killed) err("no TRAILER: the trace did not end cleanly");
    if (trailer) {
        if (!(trailer->flags & 1)) err("TRAILER flags 0x%x: clean-exit bit not set", trailer->flags);
        for (unsigned k = 1; k < VT_REC_TYPE_MAX; k++) {
            if (k == VT_REC_TRAILER) continue;
            if (trailer->counts[k] != count[k])
                err("TRAILER counts %s = %" PRIu64 ", the trace holds %" PRIu64, type_name(k), trailer->counts[k], count[k]);
        }
    }
    size_t matched = 0;
    if (o->structure_only) goto done;
    /* The fake driver's own counters against the trace. */
    static const uint8_t xtype[5] = { VT_REC_ALLOC, VT_REC_FREE, VT_REC_OOM, VT_REC_VMM, VT_REC_POOL_TRIM };
    for (int k = 0; k < 5; k++) {
        if (e.x[k] < 0) continue;
        uint64_t have = trailer ? trailer->counts[xtype[k]] : count[xtype[k]];
        if (have != (uint64_t)e.x[k])
            err("%s %s = %" PRIu64 ", the fake driver counted %lld", trailer ? "TRAILER counts" : "records of type",
                type_name(xtype[k]), have, e.x[k]);
    }

    /* Match expected events to records: same type, kind and address (size for OOM). */
    size_t nt = 0;
    tkey *keys = malloc(sizeof *keys * (t.n + 1));
    for (size_t i = 0; i < t.n; i++) {
        const vt_rec *r = &t.recs[i].r;
        if (!is_event(r->type)) continue;
        keys[nt].type = r->type; keys[nt].kind = rec_kind(r); keys[nt].key = rec_key(r); keys[nt].idx = i;
        nt++;
    }
    qsort(keys, nt, sizeof *keys, tkey_cmp);
    uint8_t *used = calloc(t.n + 1, 1);
    for (size_t i = 0; i < e.nev; i++) {
        expect_t *x = &e.ev[i];
        tkey probe = { ev_type(x->type), x->type == 'P' ? 0 : (uint8_t)x->kind, x->type == 'O' ? x->size : x->addr, 0 };
        size_t lo = 0, hi = nt;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (tkey_cmp(&keys[mid], &probe) < 0) lo = mid + 1; else hi = mid;
        }
        for (; lo < nt && keys[lo].type == probe.type && keys[lo].kind == probe.kind && keys[lo].key == probe.key; lo++)
            if (!used[keys[lo].idx]) { x->match = (long)keys[lo].idx; used[keys[lo].idx] = 1; break; }
        char want[512], got[512];
        describe_expect(x, want, sizeof want);
        if (x->match < 0) {
            /* Say what was there instead: a record of the same type at that address. */
            const vt_rec *near = NULL;
            for (size_t k = 0; k < t.n && !near; k++) {
                const vt_rec *r = &t.recs[k].r;
                if (r->type == probe.type && rec_key(r) == probe.key) near = r;
            }
            if (near) { rec_text(near, got, sizeof got); err("not in the trace: %s; nearest: %s", want, got); }
            else err("not in the trace: %s", want);
            continue;
        }
        matched++;
        const vt_rec *r = &t.recs[x->match].r;
        rec_text(r, got, sizeof got);
#define FIELD(cond, what) do { if (!(cond)) err("%s: %s\n      record: %s", what, want, got); } while (0)
        FIELD(r->tid == x->tid, "wrong tid");
        if (x->type == 'A' || x->type == 'F' || x->type == 'O') {
            /* A free need not know its device (-1): the allocation it matches does. */
            FIELD(x->dev == -2 || r->device == x->dev || (x->type == 'F' && r->device == -1), "wrong device");
            FIELD(r->stream == x->stream, "wrong stream");
            FIELD(r->flags == x->flags, "wrong flags");
        }
        if (x->type == 'A' || x->type == 'P') FIELD(r->size == x->size, "wrong size");
        if (x->type == 'O') {
            FIELD(r->aux0 == x->aux0, "wrong free bytes (aux0)");
            FIELD(r->aux1 == x->aux1, "wrong total bytes (aux1)");
        }
        if (x->type == 'V') {
            if (x->kind != VT_VMM_RETAIN) FIELD(r->size == x->size, "wrong size");
            if (x->kind == VT_VMM_MAP || x->kind == VT_VMM_RESERVE) FIELD(r->aux0 == x->aux0, "wrong aux0");
            if (x->kind == VT_VMM_MAP || x->kind == VT_VMM_RESERVE || x->kind == VT_VMM_RETAIN)
                FIELD(r->aux1 == x->aux1, "wrong aux1");
        }
        /* Stacks: allocations and OOMs always carry one with the calling function; frees
         * only with VRAMTRACE_FREE_STACKS=1; VMM operations, when they carry one, must be right. */
        const fn_t *fn = fn_find(&e, x->fn);
        int need = x->type == 'A' || x->type == 'O' || (x->type == 'F' && o->free_stacks);
        if (o->depth == 0) {
            FIELD(x->type == 'P' || r->stack_id == 0, "a stack with VRAMTRACE_DEPTH=0");
        } else if (x->type == 'F' && !o->free_stacks) {
            FIELD(r->stack_id == 0, "a free carries a stack without VRAMTRACE_FREE_STACKS=1");
        } else if (x->type != 'P' && fn && (need || r->stack_id)) {
            uint64_t ips[300];
            char why[128];
            int n = r->stack_id ? stack_frames(r->stack_id, ips, 300, why, sizeof why) : 0;
            if (r->stack_id == 0) FIELD(0, "no stack");
            else if (n >= 0 && !stack_hit(ips, n, fn)) {
                char msg[900];
                int l = snprintf(msg, sizeof msg, "stack (%d frames:", n);
                for (int k = 0; k < n && k < 8 && l < (int)sizeof msg - 40; k++) l += snprintf(msg + l, sizeof msg - (size_t)l, " 0x%" PRIx64, ips[k]);
                snprintf(msg + l, sizeof msg - (size_t)l, "%s) misses %s [0x%" PRIx64 ", 0x%" PRIx64 ")", n > 8 ? " ..." : "",
                         fn->name, fn->lo, fn->hi);
                FIELD(0, msg);
            }
        }
#undef FIELD
    }
    for (size_t i = 0; i < t.n; i++) {
        if (!is_event(t.recs[i].r.type) || used[i]) continue;
        char got[512];
        rec_text(&t.recs[i].r, got, sizeof got);
        err("unexpected record (the program made no such call): %s", got);
    }
    /* Within a thread, events are in the order the program made them. */
    for (size_t i = 0; i < e.nev; i++) {
        if (e.ev[i].match < 0) continue;
        for (size_t j = i + 1; j < e.nev; j++) {
            if (e.ev[j].tid != e.ev[i].tid || e.ev[j].match < 0) continue;
            uint64_t ti = t.recs[e.ev[i].match].r.time_ns, tj = t.recs[e.ev[j].match].r.time_ns;
            if (tj < ti) err("time goes back in thread %u: expect line %zu at %" PRIu64 " ns, line %zu at %" PRIu64 " ns",
                             e.ev[i].tid, e.ev[i].line, ti, e.ev[j].line, tj);
            break;
        }
        if (trailer && t.recs[e.ev[i].match].r.time_ns > trailer->time_ns)
            err("event of expect line %zu is later than the TRAILER", e.ev[i].line);
    }
    if (o->check_devices) check_devices(&t, &e);
    if (o->check_modules) {
        check_modules(&t, &e);
        check_no_recorder_frames(&t);
    }
done:
    if (g_errors) {
        printf("%d failure(s); %zu of %zu expected events matched\n", g_errors, matched, e.nev);
        return 1;
    }
    if (o->structure_only) { printf("ok: structure (events not compared)\n"); return 0; }
    printf("ok: %zu events matched exactly%s\n", matched, trailer ? ", trailer agrees with the fake driver" : "");
    return 0;
}

/* ------------------------------------------------------------------------ *
 *  main
 * ------------------------------------------------------------------------ */
static int usage(void)
{
    fprintf(stderr, "usage: vt_tracecheck dump TRACE | counts TRACE | verify [--killed] [--depth N] [--free-stacks]\n"
                    "       [--check-devices] [--check-modules] EXPECT [TRACE]\n");
    return 2;
}

int main(int argc, char **argv)
{
    if (argc < 3) return usage();
    if (!strcmp(argv[1], "dump") || !strcmp(argv[1], "counts")) {
        trace_t t;
        g_max_errors = 1000;
        if (trace_load(argv[2], &t)) return 1;
        if (!strcmp(argv[1], "dump")) {
            header_print(stdout, &t);
            for (size_t i = 0; i < t.n; i++) rec_print(stdout, &t.recs[i].r);
        } else {
            uint64_t count[VT_REC_TYPE_MAX] = { 0 };
            const vt_rec *trailer = NULL;
            for (size_t i = 0; i < t.n; i++) {
                if (t.recs[i].r.type < VT_REC_TYPE_MAX) count[t.recs[i].r.type]++;
                if (t.recs[i].r.type == VT_REC_TRAILER) trailer = &t.recs[i].r;
            }
            printf("chunks %u\n", t.nchunks);
            for (unsigned k = 1; k < VT_REC_TYPE_MAX; k++)
                if (count[k]) printf("%s %" PRIu64 "\n", type_name(k), count[k]);
            printf("trailer %s\n", trailer ? (trailer->flags & 1 ? "clean" : "unclean") : "none");
        }
        if (t.partial) fprintf(stderr, "vt_tracecheck: warning: partial chunk at offset %" PRIu64 "\n", t.partial_off);
        return g_errors ? 1 : 0;
    }
    if (strcmp(argv[1], "verify")) return usage();
    options o = { 0, 64, 0, 0, 0, 0 };
    int i = 2;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (!strcmp(argv[i], "--killed")) o.killed = 1;
        else if (!strcmp(argv[i], "--free-stacks")) o.free_stacks = 1;
        else if (!strcmp(argv[i], "--check-devices")) o.check_devices = 1;
        else if (!strcmp(argv[i], "--check-modules")) o.check_modules = 1;
        else if (!strcmp(argv[i], "--structure-only")) o.structure_only = 1;
        else if (!strcmp(argv[i], "--depth") && i + 1 < argc) o.depth = atoi(argv[++i]);
        else return usage();
    }
    if (i >= argc) return usage();
    return verify(argv[i], i + 1 < argc ? argv[i + 1] : NULL, &o);
}
