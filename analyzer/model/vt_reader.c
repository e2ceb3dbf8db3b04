// SPDX-License-Identifier: MIT
/* vt_reader.c - streams the records of one trace file.
 *
 * Why threads: zstd costs more per record than decoding and replaying it together, so
 * with two cores or more, chunks are decompressed on worker threads (two of them from
 * two cores up: chunks are independent zstd frames) while the caller decodes and
 * replays the chunks already done. Workers claim chunks in file order and fill a small
 * ring of chunk buffers; the caller takes them in the same order. Each buffer is
 * reused; nothing is allocated per chunk once the buffers have grown to the largest
 * chunk, and they are all freed as soon as the last record has been read. */
#include "vt_reader.h"
#include "vt_cores.h"
#include "vt_progress.h"
#include "vt_ctrl.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

/* ------------------------------------------------------------------------ *
 *  One chunk: read, check, decompress
 * ------------------------------------------------------------------------ */
enum { CHUNK_OK = 0, CHUNK_EOF = 1, CHUNK_BAD = 2 };

/* Zero bytes after the records, so that the fast decoders below may read a whole
 * record's worth of varints past the end of a malformed last record without leaving
 * the buffer (they then see the overrun and hand the record to vt_codec_decode). */
#define RAW_SLACK VT_CODEC_FAST_SLACK

/* A decompressed chunk. */
typedef struct {
    uint8_t *raw;
    size_t raw_cap;
    size_t raw_len;
    uint32_t raw_size;     /* from the header, until decompressed */
    uint32_t comp_size;
    uint64_t base_time;
    uint32_t nrecords;
    uint64_t start;        /* file offset of the chunk header */
    uint64_t end;          /* file offset just past the chunk */
    int status;            /* CHUNK_* */
    int cut;               /* the file ends inside this chunk: its readable prefix is
                            * decoded, err says how much, and nothing is read after it */
    int state;             /* SLOT_*: who owns it (threaded reading) */
    char err[200];
    /* event mode: the records decoded (vt_reader_start_events) */
    vt_ev *ev;             /* every record: an ALLOC/FREE event, or a mark */
    uint64_t *stream;      /* with vt_reader_start_events_streams: ev[i]'s stream */
    size_t nev, ev_cap;
    uint32_t *marks;       /* indexes of the marks in ev, then nev */
    size_t nmarks, marks_cap;
} chunk_buf;

/* Marks: the records that are not fast ALLOC/FREE events, decoded on the caller's side
 * from the chunk's bytes (time_ns, addr: the codec state before the record; size: its
 * offset in the chunk); where a malformed record stops the reading (size: its index in
 * the chunk); and where a chunk of more than MAX_CHUNK_EVENTS records goes on to be
 * decoded on the caller's side, record by record (as EV_MARK), so that a huge chunk
 * does not make a huge array of events in every buffer of the ring. */
#define EV_MARK 0
#define EV_REST 0xfe
#define EV_BAD  0xff
#define MAX_CHUNK_EVENTS (1u << 18)   /* 8 MiB of events; a 1 MiB chunk holds ~70k */

/* Decompression bombs (chunk_read): a chunk over VT_CHUNK_MIN_BOUND bytes of records
 * may be at most VT_CHUNK_MAX_RATIO times its compressed size. */
#define VT_CHUNK_MAX_RATIO 1024u
#define VT_CHUNK_MIN_BOUND (64u << 10)

/* A decompressor: its zstd context and the compressed bytes of its current chunk. */
typedef struct {
    ZSTD_DCtx *dctx;
    uint8_t *comp;
    size_t comp_cap;
    pthread_t thread;
    struct reader_impl *im;
} inflater;

static ssize_t read_full(int fd, void *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t k = read(fd, (char *)buf + got, n - got);
        if (k < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        if (k == 0) break;
        got += (size_t)k;
    }
    return (ssize_t)got;
}

/* Grows to need bytes, rounded up to 64 KiB (not doubled: a 1 MiB chunk plus its
 * slack must not take 2 MiB in every buffer of the ring). */
static int grow(uint8_t **buf, size_t *cap, size_t need)
{
    if (need <= *cap) return 0;
    size_t n = (need + 65535) & ~(size_t)65535;
    uint8_t *p = realloc(*buf, n);
    if (!p) return -1;
    *buf = p;
    *cap = n;
    return 0;
}

static int chunk_fail(chunk_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int chunk_fail(chunk_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b->err, sizeof b->err, fmt, ap);
    va_end(ap);
    b->status = CHUNK_BAD;
    return CHUNK_BAD;
}

/* Reads the header and compressed bytes of the chunk at *off into b and z->comp and
 * moves *off past it. Reads happen in file order, one chunk after the other. */
static int chunk_read(int fd, uint64_t *off, inflater *z, chunk_buf *b)
{
    vt_chunk_header ch;
    b->start = *off;
    b->err[0] = 0;
    b->cut = 0;
    ssize_t n = read_full(fd, &ch, sizeof ch);
    if (n < 0) return chunk_fail(b, "read error: %s", strerror(errno));
    if (n == 0) return b->status = CHUNK_EOF;
    if ((size_t)n < sizeof ch)
        return chunk_fail(b, "partial chunk header (%zd of %zu bytes)", n, sizeof ch);
    if (ch.magic != VT_CHUNK_MAGIC)
        return chunk_fail(b, "bad chunk magic 0x%08x", ch.magic);
    if (ch.raw_size > VT_CHUNK_MAX_RAW)
        return chunk_fail(b, "chunk of %u bytes is over the %u-byte limit", ch.raw_size,
                          VT_CHUNK_MAX_RAW);
    if (ch.comp_size > ZSTD_compressBound(VT_CHUNK_MAX_RAW))
        return chunk_fail(b, "compressed chunk of %u bytes is over the limit", ch.comp_size);
    /* A decompression bomb: zstd turns a few dozen bytes into megabytes of repeated
     * records, and a small file of such chunks into gigabytes to replay. Real chunks
     * compress 3-4:1 (tests/data, vt_gen big); 1024:1 leaves room for any regular
     * program and bounds what a file can make to 1024 times its size. */
    if (ch.raw_size > VT_CHUNK_MIN_BOUND && ch.raw_size / VT_CHUNK_MAX_RATIO > ch.comp_size)
        return chunk_fail(b, "chunk declares %u bytes of records in %u compressed bytes, over "
                          "the %u:1 bound of real traces (a decompression bomb?)",
                          ch.raw_size, ch.comp_size, VT_CHUNK_MAX_RATIO);
    if (grow(&z->comp, &z->comp_cap, ch.comp_size))
        return chunk_fail(b, "out of memory");
    n = read_full(fd, z->comp, ch.comp_size);
    if (n < 0) return chunk_fail(b, "read error: %s", strerror(errno));
    b->cut = (size_t)n < ch.comp_size;
    if (b->cut)
        snprintf(b->err, sizeof b->err, "chunk cut short (%zd of %u bytes)", n, ch.comp_size);
    b->raw_size = ch.raw_size;
    b->comp_size = (uint32_t)n;
    b->base_time = ch.base_time_ns;
    b->nrecords = ch.nrecords;
    *off += sizeof ch + (uint64_t)n;
    b->end = *off;
    return b->status = CHUNK_OK;
}

/* The records of a cut chunk: zstd decodes a frame block by block (128 KiB at most), so
 * the blocks wholly in the file come out; the record cut by the end is dropped. */
static int chunk_inflate_cut(inflater *z, chunk_buf *b)
{
    ZSTD_DCtx_reset(z->dctx, ZSTD_reset_session_only);
    ZSTD_inBuffer in = { z->comp, b->comp_size, 0 };
    ZSTD_outBuffer out = { b->raw, b->raw_size, 0 };
    while (in.pos < in.size && out.pos < out.size) {
        size_t before = in.pos + out.pos;
        size_t r = ZSTD_decompressStream(z->dctx, &out, &in);
        if (ZSTD_isError(r) || in.pos + out.pos == before) break; /* damage: keep what came out */
    }
    /* Whole records only: [type][length: uleb128][payload], as every reader steps
     * over them. */
    const uint8_t *p = b->raw, *end = b->raw + out.pos;
    uint32_t whole = 0;
    while (p < end) {
        const uint8_t *q = p + 1;
        uint64_t len = 0;
        unsigned shift = 0;
        while (q < end && shift < 64 && (*q & 0x80)) len |= (uint64_t)(*q++ & 0x7f) << shift, shift += 7;
        if (q >= end || shift >= 64) break;
        len |= (uint64_t)*q++ << shift;
        if (len > (uint64_t)(end - q)) break;
        p = q + len;
        whole++;
    }
    b->raw_len = (size_t)(p - b->raw);
    memset(b->raw + b->raw_len, 0, RAW_SLACK);
    b->nrecords = whole;
    size_t k = strlen(b->err);
    snprintf(b->err + k, sizeof b->err - k, "; its first %u records were read", whole);
    return b->status = CHUNK_OK;
}

/* Decompresses the chunk chunk_read left in z->comp into b. */
static int chunk_inflate(inflater *z, chunk_buf *b)
{
    if (grow(&b->raw, &b->raw_cap, (size_t)b->raw_size + RAW_SLACK))
        return chunk_fail(b, "out of memory");
    if (b->cut) return chunk_inflate_cut(z, b);
    /* The destination is exactly raw_size bytes: a frame that holds more is corrupt and
     * zstd refuses it rather than writing past. */
    size_t d = ZSTD_decompressDCtx(z->dctx, b->raw, b->raw_size, z->comp, b->comp_size);
    if (ZSTD_isError(d)) return chunk_fail(b, "zstd: %s", ZSTD_getErrorName(d));
    if (d != b->raw_size)
        return chunk_fail(b, "chunk holds %zu bytes, its header says %u", d, b->raw_size);
    b->raw_len = d;
    memset(b->raw + d, 0, RAW_SLACK);
    return b->status = CHUNK_OK;
}

/* ------------------------------------------------------------------------ *
 *  The decompression threads: fill a ring of chunk buffers in file order
 * ------------------------------------------------------------------------ */
#define MAX_INFLATERS 3
#define MAX_SLOTS (MAX_INFLATERS + 2)

enum { SLOT_FREE = 0, SLOT_FILLING = 1, SLOT_READY = 2 };


typedef struct reader_impl {
    int async;
    int ninf;                  /* decompressors (threads when async) */
    int nslots;
    inflater inf[MAX_INFLATERS];
    inflater self;             /* the caller's, for when it helps (fill_next) */
    chunk_buf slot[MAX_SLOTS];
    pthread_mutex_t mu;        /* guards the slot states, the file and the counters below */
    pthread_cond_t cv;
    uint64_t claimed;          /* chunks claimed by the workers so far (file order) */
    uint64_t taken;            /* chunks taken by the reader so far */
    chunk_buf *cur;            /* the chunk being decoded, NULL none */
    int done;                  /* a worker met the end of the file or a bad chunk */
    int quit;
    int released;              /* buffers freed: the last record was read */
    int fd;
    uint64_t off;
    vt_codec_fast_fn fast;     /* the hot-path decoders this CPU runs best */
    vt_codec_events_fn events; /* with or without the streams (streams) */
    vt_codec_fast dec;
    int events_mode;           /* vt_reader_start_events: chunks come decoded */
    int streams;               /* vt_reader_start_events_streams: events keep their stream */
    size_t ev_at, mark_at;     /* event mode: next event and next mark of cur */
    int raw_rest;              /* event mode: the rest of cur is read from pos..end */
    const uint64_t *run_stream;/* the streams of the run vt_reader_events returned last */
    vt_ev evbuf[256];          /* record mode: what vt_reader_events returns */
    uint64_t evstream[256];    /* and their streams */
} reader_impl;

static int chunk_decode(reader_impl *im, chunk_buf *b);

/* Claims the next chunk in file order, when its slot is free, and fills it with
 * inflater z. Called with im->mu held, which it drops while it decompresses. Returns 0
 * when there was nothing to claim. */
static int fill_next(reader_impl *im, inflater *z)
{
    chunk_buf *b = &im->slot[im->claimed % (uint64_t)im->nslots];
    if (im->quit || im->done || b->state != SLOT_FREE) return 0;
    im->claimed++;
    b->state = SLOT_FILLING;
    /* Read under the lock, so that chunks are claimed in file order; the read is
     * a copy from the page cache, short next to the decompression. */
    int st = chunk_read(im->fd, &im->off, z, b);
    if (st == CHUNK_OK) {
        pthread_mutex_unlock(&im->mu);
        st = chunk_inflate(z, b);
        if (st == CHUNK_OK && im->events_mode) st = chunk_decode(im, b);
        pthread_mutex_lock(&im->mu);
    }
    if (st != CHUNK_OK || b->cut) im->done = 1; /* nothing after this chunk is read */
    b->state = SLOT_READY;
    pthread_cond_broadcast(&im->cv);
    return 1;
}

static void *worker(void *arg)
{
    inflater *z = arg;
    reader_impl *im = z->im;
    pthread_mutex_lock(&im->mu);
    while (!im->quit && !im->done) {
        if (!fill_next(im, z)) pthread_cond_wait(&im->cv, &im->mu);
    }
    pthread_mutex_unlock(&im->mu);
    return NULL;
}

/* Decompressors to run: the cores this process may use, less the caller's own
 * (which decodes and replays), but at least one and no more than MAX_INFLATERS. */
static int inflaters_for_cpus(void)
{
    int n = vt_cores();
    /* Two cores: one decompressor, the caller decompressing too whenever it would
     * wait (next_chunk): two threads for two cores. Two decompressors made three
     * threads share them, the replay's among them, and measured slower on the 2-core
     * dev machine (docs/benchmarks.md, section 2). */
    if (n <= 2) return 1;
    if (n == 3) return 2;
    return MAX_INFLATERS;
}

/* ------------------------------------------------------------------------ *
 *  Opening
 * ------------------------------------------------------------------------ */
static char *blob(const uint8_t **p, const uint8_t *end, uint32_t *len_out)
{
    if ((size_t)(end - *p) < 4) return NULL;
    uint32_t n;
    memcpy(&n, *p, 4);
    *p += 4;
    if (n > (size_t)(end - *p)) return NULL;
    char *s = malloc((size_t)n + 1);
    if (!s) return NULL;
    memcpy(s, *p, n);
    s[n] = 0;
    *p += n;
    if (len_out) *len_out = n;
    return s;
}

/* A blob every view prints as it is (host, executable): control bytes escaped. */
static char *blob_text(const uint8_t **p, const uint8_t *end)
{
    uint32_t n;
    char *s = blob(p, end, &n);
    if (!s || vt_ctrl_safe(s, n)) return s;
    char *e = vt_ctrl_dup(s, n);
    free(s);
    return e;
}

int vt_reader_open(vt_reader *r, const char *path, char *msg, size_t msglen)
{
    memset(r, 0, sizeof *r);
    r->path = path;
    r->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (r->fd < 0) {
        snprintf(msg, msglen, "cannot open %s: %s", path, strerror(errno));
        return VT_READ_IO;
    }
    struct stat st;
    if (fstat(r->fd, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            snprintf(msg, msglen, "cannot read %s: Is a directory", path);
            close(r->fd);
            return VT_READ_IO;
        }
        r->file_size = (uint64_t)st.st_size;
    }
    int rc = VT_READ_BAD_HEADER;
    uint8_t *hb = NULL;
    vt_file_header h;
    memset(&h, 0, sizeof h);
    ssize_t n = read_full(r->fd, &h, sizeof h);
    if (n < 0) {
        snprintf(msg, msglen, "cannot read %s: %s", path, strerror(errno));
        rc = VT_READ_IO;
        goto fail;
    }
    if ((size_t)n < VT_MAGIC_LEN || memcmp(h.magic, VT_MAGIC, VT_MAGIC_LEN) != 0) {
        snprintf(msg, msglen, "%s is not a vramtrace trace (bad magic)", path);
        rc = VT_READ_NOT_TRACE;
        goto fail;
    }
    if ((size_t)n < sizeof h) {
        snprintf(msg, msglen, "%s: trace header cut short (%zd of %zu bytes)", path, n, sizeof h);
        goto fail;
    }
    if (h.version_major != VT_VERSION_MAJOR) {
        snprintf(msg, msglen, "%s: trace format version %u.%u is not supported (this vramtrace reads %u.x)",
                 path, h.version_major, h.version_minor, VT_VERSION_MAJOR);
        rc = VT_READ_VERSION;
        goto fail;
    }
    /* 1 MiB is far more than three blobs can sensibly need; a larger value is damage. */
    if (h.header_size < sizeof h + 12 || h.header_size > (1u << 20)) {
        snprintf(msg, msglen, "%s: bad header size %u", path, h.header_size);
        goto fail;
    }
    size_t rest = h.header_size - sizeof h;
    hb = malloc(rest);
    if (!hb) { rc = VT_READ_NOMEM; snprintf(msg, msglen, "out of memory"); goto fail; }
    n = read_full(r->fd, hb, rest);
    if (n < 0 || (size_t)n < rest) {
        snprintf(msg, msglen, "%s: trace header cut short", path);
        goto fail;
    }
    /* Later minor versions may add bytes after the three blobs; they are skipped. */
    const uint8_t *p = hb, *end = hb + rest;
    r->host = blob_text(&p, end);
    r->exe = r->host ? blob_text(&p, end) : NULL;
    r->cmdline = r->exe ? blob(&p, end, &r->cmdline_len) : NULL;
    if (!r->cmdline) {
        snprintf(msg, msglen, "%s: bad header blobs", path);
        goto fail;
    }
    free(hb);
    hb = NULL;
    r->hdr = h;
    r->offset = h.header_size;

    reader_impl *im = calloc(1, sizeof *im);
    if (!im || !(im->inf[0].dctx = ZSTD_createDCtx())) {
        free(im);
        rc = VT_READ_NOMEM;
        snprintf(msg, msglen, "out of memory");
        goto fail;
    }
    im->ninf = 1;
    im->nslots = 1;
    /* VRAMTRACE_GENERIC_DECODER=1: the portable decoder (its test runs it on BMI2 CPUs). */
    const char *generic = getenv("VRAMTRACE_GENERIC_DECODER");
    vt_codec_fast_pick(generic && *generic == '1' ? 0 : VT_CODEC_FAST_BEST, &im->dec);
    im->fast = im->dec.rec;
    im->events = im->dec.ev;
    im->fd = r->fd;
    im->off = r->offset;
    r->impl = im;
    return VT_READ_OK;

fail:
    free(hb);
    free(r->host);
    free(r->exe);
    free(r->cmdline);
    close(r->fd);
    memset(r, 0, sizeof *r);
    r->fd = -1;
    return rc;
}

void vt_reader_start_events(vt_reader *r)
{
    reader_impl *im = r->impl;
    if (!im || im->async || r->nchunks) return;
    im->events_mode = 1;
    vt_reader_start_async(r);
}

void vt_reader_start_events_streams(vt_reader *r)
{
    reader_impl *im = r->impl;
    if (!im || im->async || r->nchunks) return;
    im->streams = 1;
    im->events = im->dec.ev_stream;
    vt_reader_start_events(r);
}

void vt_reader_start_async(vt_reader *r)
{
    reader_impl *im = r->impl;
    if (!im || im->async || r->nchunks) return;
    int want = inflaters_for_cpus();
    for (int i = 1; i < want; i++) {
        if (!(im->inf[i].dctx = ZSTD_createDCtx())) break;
        im->ninf = i + 1;
    }
    pthread_mutex_init(&im->mu, NULL);
    pthread_cond_init(&im->cv, NULL);
    im->nslots = im->ninf + 2;
    int started = 0;
    for (int i = 0; i < im->ninf; i++) {
        im->inf[i].im = im;
        if (pthread_create(&im->inf[i].thread, NULL, worker, &im->inf[i]) != 0) break;
        started++;
    }
    if (!started) {
        pthread_mutex_destroy(&im->mu);
        pthread_cond_destroy(&im->cv);
        im->nslots = 1;
        return;
    }
    im->ninf = started; /* contexts past those are freed with the rest */
    im->async = 1;
    im->self.dctx = ZSTD_createDCtx(); /* NULL: the caller only waits */
    im->self.im = im;
}

/* ------------------------------------------------------------------------ *
 *  Chunks, on the reader's side
 * ------------------------------------------------------------------------ */
static void stop(vt_reader *r, uint64_t at, const char *why)
{
    r->stopped = 1;
    r->eof = 1;
    r->err_offset = at;
    snprintf(r->err, sizeof r->err, "%s", why);
}

/* Stops the workers and frees every buffer: the last record has been read, and the
 * analysis that follows (symbols, sites) is where the peak memory is. */
static void release_buffers(reader_impl *im)
{
    if (im->released) return;
    if (im->async) {
        pthread_mutex_lock(&im->mu);
        im->quit = 1;
        pthread_cond_broadcast(&im->cv);
        pthread_mutex_unlock(&im->mu);
        for (int i = 0; i < im->ninf; i++) pthread_join(im->inf[i].thread, NULL);
        pthread_mutex_destroy(&im->mu);
        pthread_cond_destroy(&im->cv);
        im->async = 0;
    }
    for (int i = 0; i < MAX_SLOTS; i++) {
        free(im->slot[i].raw);
        free(im->slot[i].ev);
        free(im->slot[i].stream);
        free(im->slot[i].marks);
        im->slot[i].raw = NULL;
        im->slot[i].ev = NULL;
        im->slot[i].stream = NULL;
        im->slot[i].marks = NULL;
    }
    for (int i = 0; i < MAX_INFLATERS; i++) {
        free(im->inf[i].comp);
        ZSTD_freeDCtx(im->inf[i].dctx);
        memset(&im->inf[i], 0, sizeof im->inf[i]);
    }
    free(im->self.comp);
    ZSTD_freeDCtx(im->self.dctx);
    memset(&im->self, 0, sizeof im->self);
    im->cur = NULL;
    im->released = 1;
}

/* Makes the next chunk current. Returns 0 at the end. */
static int next_chunk(vt_reader *r)
{
    reader_impl *im = r->impl;
    chunk_buf *b;
    if (im->released) return 0;
    if (im->cur && im->cur->cut) {
        /* the file ended inside the chunk just read: that is where the reading stops */
        stop(r, im->cur->start, im->cur->err);
        r->pos = r->end = NULL;
        release_buffers(im);
        return 0;
    }
    if (im->async) {
        pthread_mutex_lock(&im->mu);
        if (im->cur) im->cur->state = SLOT_FREE;
        b = &im->slot[im->taken % (uint64_t)im->nslots];
        pthread_cond_broadcast(&im->cv);
        /* Rather than wait, fill a later chunk (or this one, when no worker has taken
         * it yet): with one worker on two cores the replay and the decompression then
         * share both cores without a third thread to share them with. */
        while (b->state != SLOT_READY)
            if (!im->self.dctx || !fill_next(im, &im->self)) pthread_cond_wait(&im->cv, &im->mu);
        im->taken++;
        pthread_mutex_unlock(&im->mu);
    } else {
        b = &im->slot[0];
        if (chunk_read(r->fd, &im->off, &im->inf[0], b) == CHUNK_OK && chunk_inflate(&im->inf[0], b) == CHUNK_OK &&
            im->events_mode)
            chunk_decode(im, b);
    }
    im->cur = b;
    if (b->status != CHUNK_OK) {
        if (b->status == CHUNK_EOF) r->eof = 1;
        else stop(r, b->start, b->err);
        r->pos = r->end = NULL;
        release_buffers(im);
        return 0;
    }
    /* event mode reads the raw bytes only from marks */
    r->pos = im->events_mode ? NULL : b->raw;
    r->end = im->events_mode ? NULL : b->raw + b->raw_len;
    im->ev_at = im->mark_at = 0;
    im->raw_rest = 0;
    r->chunk_offset = b->start;
    r->chunk_records = 0;
    r->chunk_base_time = b->base_time;
    r->offset = b->end;
    r->nchunks++;
    vt_codec_reset(&r->codec, b->base_time);
    if (r->progress) vt_progress_update(r->progress, r->offset);
    return 1;
}

/* ------------------------------------------------------------------------ *
 *  Records
 * ------------------------------------------------------------------------ */
/* Event mode: decodes the whole chunk into b->ev (on a worker thread). Records the
 * fast decoders leave are decoded here only to move the codec state past them, and
 * marked for the caller. */
static int chunk_decode(reader_impl *im, chunk_buf *b)
{
    vt_codec c;
    vt_codec_reset(&c, b->base_time);
    const uint8_t *p = b->raw, *end = b->raw + b->raw_len;
    size_t n = 0, nm = 0;
    uint32_t index = 0;
    /* a record takes 2 bytes at least: the header's count is a hint, not a promise */
    size_t want = b->nrecords < b->raw_len / 2 ? b->nrecords + 1 : b->raw_len / 2 + 1;
    if (want > MAX_CHUNK_EVENTS) want = MAX_CHUNK_EVENTS;
    if (!b->marks_cap) {
        if (!(b->marks = malloc(64 * sizeof *b->marks))) return chunk_fail(b, "out of memory");
        b->marks_cap = 64;
    }
    for (;;) {
        int rest = 0;
        if (n + 64 > b->ev_cap) {
            if (b->ev_cap >= MAX_CHUNK_EVENTS) {
                rest = 1; /* room for the mark is left: n < ev_cap */
            } else {
                size_t cap = b->ev_cap > want ? b->ev_cap * 2 : want + 64;
                if (cap > MAX_CHUNK_EVENTS) cap = MAX_CHUNK_EVENTS;
                vt_ev *e = realloc(b->ev, cap * sizeof *e);
                if (!e) return chunk_fail(b, "out of memory");
                b->ev = e;
                if (im->streams) {
                    uint64_t *st = realloc(b->stream, cap * sizeof *st);
                    if (!st) return chunk_fail(b, "out of memory");
                    b->stream = st;
                }
                b->ev_cap = cap;
            }
        }
        if (!rest) {
            size_t k = im->events(&c, &p, end, b->ev + n, b->stream ? b->stream + n : NULL, b->ev_cap - n - 1);
            n += k;
            index += (uint32_t)k;
            if (p >= end) break;
            if (n + 1 == b->ev_cap) continue; /* the array is full: grow it */
        }
        if (nm + 2 > b->marks_cap) {
            size_t cap = b->marks_cap ? b->marks_cap * 2 : 64;
            uint32_t *m = realloc(b->marks, cap * sizeof *m);
            if (!m) return chunk_fail(b, "out of memory");
            b->marks = m;
            b->marks_cap = cap;
        }
        vt_ev *m = &b->ev[n];
        memset(m, 0, sizeof *m);
        m->time_ns = c.last_time;
        m->addr = c.last_addr;
        m->size = (uint64_t)(p - b->raw);
        b->marks[nm++] = (uint32_t)n++;
        if (rest) {
            m->type = EV_REST;
            break;
        }
        vt_rec scratch;
        size_t used = vt_codec_decode(&c, p, (size_t)(end - p), &scratch);
        if (!used) {
            m->type = EV_BAD;
            m->size = index;
            break;
        }
        m->type = EV_MARK;
        p += used;
        index++;
    }
    b->nev = n;
    b->marks[nm] = (uint32_t)n; /* the end: a mark past the last event (room: nm + 2) */
    b->nmarks = nm;
    return CHUNK_OK;
}

static int next_bad(vt_reader *r, uint64_t index)
{
    char why[96];
    snprintf(why, sizeof why, "malformed record %" PRIu64 " of the chunk", index);
    stop(r, r->chunk_offset, why);
    r->pos = r->end = NULL;
    release_buffers(r->impl);
    return 0;
}

int vt_reader_next(vt_reader *r, vt_rec *rec)
{
    reader_impl *im = r->impl;
    if (!im) return 0;
    for (;;) {
        chunk_buf *b = im->cur;
        if (im->events_mode && !im->raw_rest) {
            if (b && !im->released && im->ev_at < b->nev) {
                const vt_ev *e = &b->ev[im->ev_at];
                if (e->type == EV_BAD) return next_bad(r, e->size);
                if (e->type == EV_REST) {
                    r->codec.last_time = e->time_ns;
                    r->codec.last_addr = e->addr;
                    r->pos = b->raw + e->size;
                    r->end = b->raw + b->raw_len;
                    im->raw_rest = 1;
                    im->ev_at++;
                    continue;
                }
                if (e->type == EV_MARK) {
                    r->codec.last_time = e->time_ns;
                    r->codec.last_addr = e->addr;
                    const uint8_t *p = b->raw + e->size, *end = b->raw + b->raw_len;
                    size_t n = im->fast(&r->codec, p, end, rec);
                    if (!n) n = vt_codec_decode(&r->codec, p, (size_t)(end - p), rec);
                    if (!n) return next_bad(r, r->chunk_records);
                    im->mark_at++;
                } else {
                    /* A run of events read one by one: what the events keep, no more. */
                    memset(rec, 0, sizeof *rec);
                    rec->type = e->type;
                    rec->kind = e->kind;
                    rec->device = e->device;
                    rec->stack_id = e->stack_id;
                    rec->flags = e->flags;
                    rec->time_ns = e->time_ns;
                    rec->addr = e->addr;
                    rec->size = e->size;
                    if (b->stream) rec->stream = b->stream[im->ev_at];
                }
                im->ev_at++;
                r->chunk_records++;
                r->nrecords++;
                return 1;
            }
        } else if (r->pos < r->end) {
            size_t n = im->fast(&r->codec, r->pos, r->end, rec);
            if (!n) n = vt_codec_decode(&r->codec, r->pos, (size_t)(r->end - r->pos), rec);
            if (n == 0) return next_bad(r, r->chunk_records);
            r->pos += n;
            r->chunk_records++;
            r->nrecords++;
            return 1;
        }
        if (r->eof || !next_chunk(r)) return 0;
    }
}

size_t vt_reader_events(vt_reader *r, const vt_ev **ev)
{
    reader_impl *im = r->impl;
    size_t n;
    if (!im) return 0;
    if (im->events_mode && !im->raw_rest) {
        chunk_buf *b = im->cur;
        if (!b || im->released) return 0;
        /* the run up to the next mark (or the end of the chunk) */
        size_t to = b->marks[im->mark_at];
        n = to - im->ev_at;
        *ev = b->ev + im->ev_at;
        im->run_stream = b->stream ? b->stream + im->ev_at : NULL;
        im->ev_at = to;
    } else {
        if (r->pos >= r->end) return 0;
        n = im->events(&r->codec, &r->pos, r->end, im->evbuf, im->evstream, sizeof im->evbuf / sizeof im->evbuf[0]);
        *ev = im->evbuf;
        im->run_stream = im->streams ? im->evstream : NULL;
    }
    r->chunk_records += (uint32_t)n;
    r->nrecords += n;
    return n;
}

const uint64_t *vt_reader_event_streams(const vt_reader *r)
{
    const reader_impl *im = r->impl;
    return im ? im->run_stream : NULL;
}

void vt_reader_close(vt_reader *r)
{
    reader_impl *im = r->impl;
    if (im) {
        release_buffers(im);
        free(im);
    }
    free(r->host);
    free(r->exe);
    free(r->cmdline);
    if (r->fd >= 0) close(r->fd);
    memset(r, 0, sizeof *r);
    r->fd = -1;
}
