// SPDX-License-Identifier: MIT
/* vt_roundtrip.c - the reader's fast ALLOC/FREE decoder must agree with vt_codec_decode
 * on every field, for values of every varint length (1..10 bytes), with and without
 * extra trailing fields. Writes a trace of random records, reads it back through
 * vt_reader, and decodes the same bytes with vt_codec_decode. */
#define _GNU_SOURCE
#include "vt_codec.h"
#include "vt_reader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

static uint64_t seed = 88172645463325252ull;
static uint64_t rnd(void)
{
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    return seed;
}
/* A value of a random bit length, so every varint length shows up. */
static uint64_t any(void) { return rnd() >> (rnd() % 64); }

static int same(const vt_rec *a, const vt_rec *b)
{
    return a->type == b->type && a->kind == b->kind && a->device == b->device && a->flags == b->flags &&
           a->tid == b->tid && a->stack_id == b->stack_id && a->time_ns == b->time_ns && a->addr == b->addr &&
           a->size == b->size && a->stream == b->stream && a->aux0 == b->aux0 && a->aux1 == b->aux1;
}

/* A minimal file header: magic, version, and three empty strings (host, exe, argv). */
static void write_header(FILE *f)
{
    vt_file_header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, VT_MAGIC, VT_MAGIC_LEN);
    h.version_major = VT_VERSION_MAJOR;
    h.header_size = sizeof h + 12;
    fwrite(&h, sizeof h, 1, f);
    uint32_t zero = 0;
    for (int i = 0; i < 3; i++) fwrite(&zero, 4, 1, f);
}

/* One chunk of more records than the event path keeps decoded per chunk: the rest of
 * it is read record by record, and must come out the same (with their streams, when
 * the events keep them). */
static int big_chunk(const char *path, int streams)
{
    enum { M = 300000 };
    uint8_t *raw = malloc((size_t)M * 40);
    vt_rec *recs = calloc(M, sizeof *recs);
    FILE *f = fopen(path, "wb");
    if (!raw || !recs || !f) { perror(path); return 1; }
    write_header(f);
    vt_codec c;
    vt_codec_reset(&c, 1000);
    size_t len = 0;
    for (size_t i = 0; i < M; i++) {
        vt_rec *r = &recs[i];
        r->type = (i % 1000 == 999) ? VT_REC_LOST : (i & 1) ? VT_REC_FREE : VT_REC_ALLOC;
        r->time_ns = 1000 + i * 10;
        if (r->type == VT_REC_LOST) { r->size = i; }
        else {
            r->kind = r->type == VT_REC_ALLOC ? VT_KIND_MEM_ALLOC : VT_KIND_MEM_FREE;
            r->addr = 0x7f0000000000ull + (i / 2) * 4096;
            r->size = r->type == VT_REC_ALLOC ? (rnd() & 0xfffff) : 0;
            r->stack_id = (uint32_t)(rnd() % 5000);
            r->stream = any();
            r->tid = 77;
        }
        len += vt_codec_encode(&c, r, raw + len);
    }
    size_t bound = ZSTD_compressBound(len);
    uint8_t *z = malloc(bound);
    size_t zn = ZSTD_compress(z, bound, raw, len, 1);
    vt_chunk_header ch = { VT_CHUNK_MAGIC, (uint32_t)zn, (uint32_t)len, M, 1000 };
    fwrite(&ch, sizeof ch, 1, f);
    fwrite(z, 1, zn, f);
    fclose(f);
    vt_reader rd;
    char msg[256];
    if (vt_reader_open(&rd, path, msg, sizeof msg) != VT_READ_OK) { fprintf(stderr, "%s\n", msg); return 1; }
    if (streams) vt_reader_start_events_streams(&rd);
    else vt_reader_start_events(&rd);
    size_t k = 0;
    for (;;) {
        const vt_ev *ev;
        size_t n = vt_reader_events(&rd, &ev);
        const uint64_t *st = vt_reader_event_streams(&rd);
        if (n && !st != !streams) {
            fprintf(stderr, "big chunk: streams %s\n", streams ? "missing" : "given unasked");
            return 1;
        }
        for (size_t i = 0; i < n; i++, k++)
            if (k >= M || ev[i].type != recs[k].type || ev[i].addr != recs[k].addr || ev[i].size != recs[k].size ||
                ev[i].time_ns != recs[k].time_ns || ev[i].stack_id != recs[k].stack_id ||
                (streams && st[i] != recs[k].stream)) {
                fprintf(stderr, "big chunk: event mismatch at record %zu\n", k);
                return 1;
            }
        if (n) continue;
        vt_rec x;
        if (!vt_reader_next(&rd, &x)) break;
        if (k >= M || x.type != recs[k].type || x.time_ns != recs[k].time_ns || x.size != recs[k].size ||
            (x.type != VT_REC_LOST && (x.addr != recs[k].addr || x.stack_id != recs[k].stack_id ||
                                       (streams && x.stream != recs[k].stream)))) {
            fprintf(stderr, "big chunk: record mismatch at record %zu\n", k);
            return 1;
        }
        k++;
    }
    if (rd.stopped || k != M) {
        fprintf(stderr, "big chunk: stopped after %zu of %d records: %s\n", k, M, rd.err);
        return 1;
    }
    vt_reader_close(&rd);
    unlink(path);
    free(raw);
    free(z);
    free(recs);
    return 0;
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "roundtrip.vtrace";
    enum { N = 300000, CHUNK = 60000 };
    vt_rec *recs = calloc(N, sizeof *recs);
    uint8_t *raw = malloc((size_t)CHUNK + 512), *enc = malloc(512);
    FILE *f = fopen(path, "wb");
    if (!recs || !raw || !enc || !f) { perror(path); return 2; }
    write_header(f);

    vt_codec c;
    size_t len = 0, nrec = 0;
    uint64_t base = 0;
    vt_codec_reset(&c, base);
    for (size_t i = 0; i < N; i++) {
        vt_rec *r = &recs[i];
        r->type = (rnd() % 8) ? ((rnd() & 1) ? VT_REC_ALLOC : VT_REC_FREE) : VT_REC_OOM;
        r->kind = (uint8_t)any();
        r->device = (int8_t)(rnd() % 130) - 1;
        r->flags = (uint8_t)any();
        r->tid = (uint32_t)any();
        r->stack_id = (uint32_t)any();
        r->time_ns = any();
        r->addr = any();
        r->size = r->type == VT_REC_FREE ? 0 : any();
        r->stream = any();
        if (r->type == VT_REC_OOM) { r->aux0 = any(); r->aux1 = any(); r->addr = 0; }
        size_t n = vt_codec_encode(&c, r, enc);
        /* every 7th ALLOC/FREE gets two extra trailing varints (a later minor version) */
        if (r->type != VT_REC_OOM && i % 7 == 0 && enc[1] < 0x7e) {
            enc[1] += 2;
            enc[n++] = 0x81;
            enc[n++] = 0x01;
        }
        memcpy(raw + len, enc, n);
        len += n;
        nrec++;
        if (len > CHUNK || i == N - 1) {
            size_t bound = ZSTD_compressBound(len);
            uint8_t *z = malloc(bound);
            size_t zn = ZSTD_compress(z, bound, raw, len, 1);
            vt_chunk_header ch = { VT_CHUNK_MAGIC, (uint32_t)zn, (uint32_t)len, (uint32_t)nrec, base };
            fwrite(&ch, sizeof ch, 1, f);
            fwrite(z, 1, zn, f);
            free(z);
            /* decode the same bytes with the codec alone */
            vt_codec d;
            vt_codec_reset(&d, base);
            size_t off = 0, k = i + 1 - nrec;
            while (off < len) {
                vt_rec x;
                size_t m = vt_codec_decode(&d, raw + off, len - off, &x);
                if (!m || !same(&x, &recs[k])) {
                    fprintf(stderr, "codec mismatch at record %zu\n", k);
                    return 1;
                }
                off += m;
                k++;
            }
            base = r->time_ns;
            vt_codec_reset(&c, base);
            len = 0;
            nrec = 0;
        }
    }
    fclose(f);

    vt_reader rd;
    char msg[256];
    if (vt_reader_open(&rd, path, msg, sizeof msg) != VT_READ_OK) { fprintf(stderr, "%s\n", msg); return 1; }
    vt_reader_start_async(&rd);
    vt_rec x;
    size_t k = 0;
    while (vt_reader_next(&rd, &x)) {
        if (k >= N || !same(&x, &recs[k])) {
            fprintf(stderr, "reader mismatch at record %zu (type %u)\n", k, x.type);
            return 1;
        }
        k++;
    }
    if (rd.stopped || k != N) {
        fprintf(stderr, "reader stopped after %zu of %d records: %s\n", k, N, rd.err);
        return 1;
    }
    vt_reader_close(&rd);

    /* The event path, all ways: decoded on the worker threads (start_events, and
     * start_events_streams: mode 2) and on this one (start_async), runs of events mixed
     * with vt_reader_next. */
    for (int mode = 0; mode < 3; mode++) {
        if (vt_reader_open(&rd, path, msg, sizeof msg) != VT_READ_OK) { fprintf(stderr, "%s\n", msg); return 1; }
        if (mode == 0) vt_reader_start_events(&rd);
        else if (mode == 1) vt_reader_start_async(&rd);
        else vt_reader_start_events_streams(&rd);
        k = 0;
        size_t nev = 0;
        for (int take_next = 0;; take_next = !take_next) {
            const vt_ev *ev;
            size_t n = take_next ? 0 : vt_reader_events(&rd, &ev);
            const uint64_t *st = vt_reader_event_streams(&rd);
            if (n && !st != (mode != 2)) {
                fprintf(stderr, "event streams %s (mode %d)\n", mode == 2 ? "missing" : "given unasked", mode);
                return 1;
            }
            for (size_t i = 0; i < n; i++, k++) {
                const vt_rec *r = k < N ? &recs[k] : NULL;
                if (!r || ev[i].type != r->type || ev[i].kind != r->kind || ev[i].device != r->device ||
                    ev[i].flags != r->flags || ev[i].stack_id != r->stack_id || ev[i].time_ns != r->time_ns || ev[i].addr != r->addr ||
                    ev[i].size != r->size || (mode == 2 && st[i] != r->stream)) {
                    fprintf(stderr, "event mismatch at record %zu (mode %d)\n", k, mode);
                    return 1;
                }
            }
            nev += n;
            if (n) continue;
            if (!vt_reader_next(&rd, &x)) break;
            /* an ALLOC or FREE read one by one carries what vt_ev keeps (event mode: its
             * flags too), and its stream with start_events_streams */
            vt_rec want = recs[k];
            if (mode != 1 && (x.type == VT_REC_ALLOC || x.type == VT_REC_FREE) && x.tid == 0 &&
                (mode == 2 || x.stream == 0))
                want.tid = 0, want.stream = mode == 2 ? want.stream : 0;
            if (k >= N || !same(&x, &want)) {
                fprintf(stderr, "reader mismatch at record %zu (type %u, mode %d)\n", k, x.type, mode);
                return 1;
            }
            k++;
        }
        if (rd.stopped || k != N || !nev) {
            fprintf(stderr, "event reader (mode %d) stopped after %zu of %d records (%zu events): %s\n", mode, k, N,
                    nev, rd.err);
            return 1;
        }
        vt_reader_close(&rd);
    }
    unlink(path);
    if (big_chunk(path, 0) || big_chunk(path, 1)) return 1;
    printf("%d records: the reader and vt_codec_decode agree\n", N);
    return 0;
}
