/* vt_reader.c - streams the records of one trace file.
 *
 * Why a second thread: decompression and decoding each cost about as much as the
 * other, so on two cores the reader decompresses chunk k+1 while the caller consumes
 * chunk k. Each side reuses its buffers; nothing is allocated per chunk once the
 * buffers have grown to the largest chunk. */
#include "vt_reader.h"
#include "vt_progress.h"

#include <errno.h>
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

/* Zero bytes after the records, so that the fast decoder below may read a whole
 * record's worth of varints past the end of a malformed last record without leaving
 * the buffer (it then sees the overrun and hands the record to vt_codec_decode). */
#define RAW_SLACK 128

typedef struct {
    uint8_t *comp;
    size_t comp_cap;
    uint8_t *raw;
    size_t raw_cap;
    size_t raw_len;
    uint64_t base_time;
    uint32_t nrecords;
    uint64_t start;        /* file offset of the chunk header */
    uint64_t end;          /* file offset just past the chunk */
    int status;            /* CHUNK_* */
    char err[200];
} chunk_buf;

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

static int grow(uint8_t **buf, size_t *cap, size_t need)
{
    if (need <= *cap) return 0;
    size_t n = *cap ? *cap : 65536;
    while (n < need) n *= 2;
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

/* Loads the chunk at *off into b and moves *off past it. */
static int chunk_load(int fd, uint64_t *off, ZSTD_DCtx *dctx, chunk_buf *b)
{
    vt_chunk_header ch;
    b->start = *off;
    b->err[0] = 0;
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
    if (grow(&b->comp, &b->comp_cap, ch.comp_size) || grow(&b->raw, &b->raw_cap, ch.raw_size + RAW_SLACK))
        return chunk_fail(b, "out of memory");
    n = read_full(fd, b->comp, ch.comp_size);
    if (n < 0) return chunk_fail(b, "read error: %s", strerror(errno));
    if ((size_t)n < ch.comp_size)
        return chunk_fail(b, "chunk cut short (%zd of %u bytes)", n, ch.comp_size);
    /* The destination is exactly raw_size bytes: a frame that holds more is corrupt and
     * zstd refuses it rather than writing past. */
    size_t d = ZSTD_decompressDCtx(dctx, b->raw, ch.raw_size, b->comp, ch.comp_size);
    if (ZSTD_isError(d)) return chunk_fail(b, "zstd: %s", ZSTD_getErrorName(d));
    if (d != ch.raw_size)
        return chunk_fail(b, "chunk holds %zu bytes, its header says %u", d, ch.raw_size);
    b->raw_len = d;
    memset(b->raw + d, 0, RAW_SLACK);
    b->base_time = ch.base_time_ns;
    b->nrecords = ch.nrecords;
    *off += sizeof ch + ch.comp_size;
    b->end = *off;
    return b->status = CHUNK_OK;
}

/* ------------------------------------------------------------------------ *
 *  The decompression thread: fills two chunk buffers in turn
 * ------------------------------------------------------------------------ */
#define NSLOTS 2

typedef size_t (*fast_decode_fn)(vt_codec *, const uint8_t *, const uint8_t *, vt_rec *);
static fast_decode_fn pick_decoder(void);

typedef struct {
    ZSTD_DCtx *dctx;
    chunk_buf sync;            /* the buffer of the single-threaded path */
    int async;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    chunk_buf slot[NSLOTS];
    int filled[NSLOTS];        /* 1: the worker filled it, the reader has not released it */
    int cur;                   /* slot the reader decodes from, -1 none */
    int next;                  /* slot the reader takes next */
    int quit;
    int fd;
    uint64_t off;
    fast_decode_fn fast;       /* the hot-path decoder this CPU runs best */
} reader_impl;

static void *worker(void *arg)
{
    reader_impl *im = arg;
    int i = 0;
    for (;;) {
        pthread_mutex_lock(&im->mu);
        while (im->filled[i] && !im->quit) pthread_cond_wait(&im->cv, &im->mu);
        int quit = im->quit;
        pthread_mutex_unlock(&im->mu);
        if (quit) break;
        int st = chunk_load(im->fd, &im->off, im->dctx, &im->slot[i]);
        pthread_mutex_lock(&im->mu);
        im->filled[i] = 1;
        pthread_cond_broadcast(&im->cv);
        pthread_mutex_unlock(&im->mu);
        if (st != CHUNK_OK) break;
        i = (i + 1) % NSLOTS;
    }
    return NULL;
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
    r->host = blob(&p, end, NULL);
    r->exe = r->host ? blob(&p, end, NULL) : NULL;
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
    if (!im || !(im->dctx = ZSTD_createDCtx())) {
        free(im);
        rc = VT_READ_NOMEM;
        snprintf(msg, msglen, "out of memory");
        goto fail;
    }
    im->cur = -1;
    im->fast = pick_decoder();
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

void vt_reader_start_async(vt_reader *r)
{
    reader_impl *im = r->impl;
    if (!im || im->async || r->nchunks) return;
    pthread_mutex_init(&im->mu, NULL);
    pthread_cond_init(&im->cv, NULL);
    if (pthread_create(&im->thread, NULL, worker, im) != 0) {
        pthread_mutex_destroy(&im->mu);
        pthread_cond_destroy(&im->cv);
        return;
    }
    im->async = 1;
}

/* ------------------------------------------------------------------------ *
 *  Records
 * ------------------------------------------------------------------------ */
static void stop(vt_reader *r, uint64_t at, const char *why)
{
    r->stopped = 1;
    r->eof = 1;
    r->err_offset = at;
    snprintf(r->err, sizeof r->err, "%s", why);
}

/* Makes the next chunk current. Returns 0 at the end. */
static int next_chunk(vt_reader *r)
{
    reader_impl *im = r->impl;
    chunk_buf *b;
    if (im->async) {
        pthread_mutex_lock(&im->mu);
        if (im->cur >= 0) {
            im->filled[im->cur] = 0;
            pthread_cond_broadcast(&im->cv);
        }
        while (!im->filled[im->next]) pthread_cond_wait(&im->cv, &im->mu);
        im->cur = im->next;
        im->next = (im->next + 1) % NSLOTS;
        pthread_mutex_unlock(&im->mu);
        b = &im->slot[im->cur];
    } else {
        b = &im->sync;
        chunk_load(r->fd, &im->off, im->dctx, b);
    }
    if (b->status == CHUNK_EOF) {
        r->eof = 1;
        return 0;
    }
    if (b->status == CHUNK_BAD) {
        stop(r, b->start, b->err);
        return 0;
    }
    r->pos = b->raw;
    r->end = b->raw + b->raw_len;
    r->chunk_offset = b->start;
    r->chunk_records = 0;
    r->chunk_base_time = b->base_time;
    r->offset = b->end;
    r->nchunks++;
    vt_codec_reset(&r->codec, b->base_time);
    if (r->progress) vt_progress_update(r->progress, r->offset);
    return 1;
}

/* LEB128 without bounds checks (see RAW_SLACK); at most 10 bytes. Branch-free for
 * values of up to 8 bytes (56 bits), which is every field but the rare huge one: the
 * lengths of consecutive fields vary at random, and a mispredicted branch per field
 * would cost more than the whole decode. `squeeze` packs the low 7 bits of each byte
 * of w (the bytes after the last one of the varint are already cleared). */
#define FAST_U(name, squeeze)                                                          \
    static inline const uint8_t *name(const uint8_t *p, uint64_t *v)                  \
    {                                                                                  \
        uint64_t w;                                                                    \
        memcpy(&w, p, 8);                                                              \
        uint64_t stop = ~w & 0x8080808080808080ull; /* clear top bit: last byte */     \
        if (__builtin_expect(stop != 0, 1)) {                                          \
            *v = squeeze(w & (stop ^ (stop - 1)));                                     \
            return p + (__builtin_ctzll(stop) >> 3) + 1;                               \
        }                                                                              \
        uint64_t x = squeeze(w);                                                       \
        p += 8;                                                                        \
        for (unsigned s = 56; s < 64; s += 7) {                                        \
            uint64_t b = *p++;                                                         \
            x |= (b & 0x7f) << s;                                                      \
            if (b < 0x80) break;                                                       \
        }                                                                              \
        *v = x;                                                                        \
        return p;                                                                      \
    }

static inline uint64_t squeeze_generic(uint64_t x)
{
    x &= 0x7f7f7f7f7f7f7f7full;
    x = (x & 0x007f007f007f007full) | ((x & 0x7f007f007f007f00ull) >> 1);
    x = (x & 0x00003fff00003fffull) | ((x & 0x3fff00003fff0000ull) >> 2);
    x = (x & 0x000000000fffffffull) | ((x & 0x0fffffff00000000ull) >> 4);
    return x;
}
FAST_U(fast_u_generic, squeeze_generic)

static inline int64_t unzig(uint64_t u)
{
    return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

/* Fields that are one byte in practice (kind, device, flags, and usually stream,
 * stack and thread id) take a predictable branch; the rest the branch-free path. */
#define SMALL_U(fast_u, q, v)                 \
    do {                                      \
        if (__builtin_expect(*(q) < 0x80, 1)) \
            (v) = *(q)++;                     \
        else                                  \
            (q) = fast_u((q), &(v));          \
    } while (0)

/* The hot path: ALLOC and FREE records (almost every record of a long trace) decoded
 * inline, with the same result as vt_codec_decode. Returns bytes consumed, or 0 to let
 * vt_codec_decode handle the record (another type, or anything unusual). */
#define FAST_DECODE(name, fast_u)                                                                     \
    static size_t name(vt_codec *c, const uint8_t *p, const uint8_t *end, vt_rec *r)                  \
    {                                                                                                 \
        unsigned type = p[0];                                                                         \
        if ((type != VT_REC_ALLOC && type != VT_REC_FREE) || end - p < 2 || p[1] >= 0x80) return 0;   \
        const uint8_t *q = p + 2, *pend = q + p[1];                                                   \
        if (pend > end) return 0;                                                                     \
        uint64_t dt, tid, kind, dev, da, size = 0, stream, stack, flags;                              \
        q = fast_u(q, &dt);                                                                           \
        SMALL_U(fast_u, q, tid);                                                                      \
        SMALL_U(fast_u, q, kind);                                                                     \
        SMALL_U(fast_u, q, dev);                                                                      \
        q = fast_u(q, &da);                                                                           \
        if (type == VT_REC_ALLOC) q = fast_u(q, &size);                                               \
        SMALL_U(fast_u, q, stream);                                                                   \
        SMALL_U(fast_u, q, stack);                                                                    \
        SMALL_U(fast_u, q, flags);                                                                    \
        if (q > pend) return 0; /* fields missing: malformed, vt_codec_decode says so */              \
        c->last_time += (uint64_t)unzig(dt);                                                          \
        c->last_addr += (uint64_t)unzig(da);                                                          \
        *r = (vt_rec){ .type = (uint8_t)type, .kind = (uint8_t)kind, .device = (int8_t)unzig(dev),    \
                       .flags = (uint8_t)flags, .tid = (uint32_t)tid, .stack_id = (uint32_t)stack,    \
                       .time_ns = c->last_time, .addr = c->last_addr, .size = size, .stream = stream }; \
        return (size_t)(pend - p); /* fields after the known ones are skipped */                      \
    }

FAST_DECODE(fast_decode_generic, fast_u_generic)

#if defined(__x86_64__) && defined(__GNUC__)
/* With BMI2, pext packs the 7-bit groups in one instruction. */
#include <immintrin.h>
__attribute__((target("bmi2"))) static inline uint64_t squeeze_bmi2(uint64_t x)
{
    return _pext_u64(x, 0x7f7f7f7f7f7f7f7full);
}
#define FAST_U_ATTR __attribute__((target("bmi2")))
FAST_U_ATTR FAST_U(fast_u_bmi2, squeeze_bmi2)
FAST_U_ATTR FAST_DECODE(fast_decode_bmi2, fast_u_bmi2)
#endif

static fast_decode_fn pick_decoder(void)
{
    /* VRAMTRACE_GENERIC_DECODER=1: the portable decoder (its test runs it on BMI2 CPUs). */
    const char *g = getenv("VRAMTRACE_GENERIC_DECODER");
    if (g && *g == '1') return fast_decode_generic;
#if defined(__x86_64__) && defined(__GNUC__)
    if (__builtin_cpu_supports("bmi2")) return fast_decode_bmi2;
#endif
    return fast_decode_generic;
}

int vt_reader_next(vt_reader *r, vt_rec *rec)
{
    while (r->pos >= r->end) {
        if (r->eof || !next_chunk(r)) return 0;
    }
    size_t n = ((reader_impl *)r->impl)->fast(&r->codec, r->pos, r->end, rec);
    if (!n) n = vt_codec_decode(&r->codec, r->pos, (size_t)(r->end - r->pos), rec);
    if (n == 0) {
        char why[96];
        snprintf(why, sizeof why, "malformed record %u of the chunk", r->chunk_records);
        stop(r, r->chunk_offset, why);
        r->pos = r->end = NULL;
        return 0;
    }
    r->pos += n;
    r->chunk_records++;
    r->nrecords++;
    return 1;
}

void vt_reader_close(vt_reader *r)
{
    reader_impl *im = r->impl;
    if (im) {
        if (im->async) {
            pthread_mutex_lock(&im->mu);
            im->quit = 1;
            pthread_cond_broadcast(&im->cv);
            pthread_mutex_unlock(&im->mu);
            pthread_join(im->thread, NULL);
            pthread_mutex_destroy(&im->mu);
            pthread_cond_destroy(&im->cv);
        }
        for (int i = 0; i < NSLOTS; i++) {
            free(im->slot[i].comp);
            free(im->slot[i].raw);
        }
        free(im->sync.comp);
        free(im->sync.raw);
        ZSTD_freeDCtx(im->dctx);
        free(im);
    }
    free(r->host);
    free(r->exe);
    free(r->cmdline);
    if (r->fd >= 0) close(r->fd);
    memset(r, 0, sizeof *r);
    r->fd = -1;
}
