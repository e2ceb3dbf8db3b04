// SPDX-License-Identifier: MIT
/* codec_fields.c - every field of an ALLOC or FREE record comes out of the fast decoders
 * (format/vt_codec_fast.c: every set this CPU runs, their event decoders with and
 * without the streams) as it comes out of vt_codec_decode. The fields are walked with
 * vt_format.h's VT_REC_FIELDS and vt_codec.h's VT_EV_FIELDS, so a field added to the
 * record is checked without this file changing. A last check feeds a decoder that drops one field, to show that the
 * comparison fails when it should. */
#include "vt_codec.h"
#include "vt_format.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NREC 20000
#define BUF_CAP (NREC * 128 + VT_CODEC_FAST_SLACK)

/* 64 random bits from libc's random() (31 a call), seeded in main: the same records
 * every run. */
static uint64_t next_rand(void)
{
    return ((uint64_t)random() << 62) ^ ((uint64_t)random() << 31) ^ (uint64_t)random();
}

/* A value of every varint length, from one byte to the full width of the field. */
static uint64_t any_width(void)
{
    unsigned bits = (unsigned)(next_rand() % 64) + 1;
    uint64_t v = next_rand();
    return bits == 64 ? v : v & ((1ull << bits) - 1);
}

static int mismatches;
static int quiet;  /* the self-check's mismatches are expected */

static void differ(const char *what, size_t i, const char *field, uint64_t want, uint64_t got)
{
    if (mismatches++ < 10 && !quiet)
        fprintf(stderr, "%s: record %zu: %s is %" PRIu64 " after vt_codec_decode, %" PRIu64 " here\n",
                what, i, field, want, got);
}

static void same_rec(const char *what, size_t i, const vt_rec *want, const vt_rec *got)
{
#define CMP_(type, name) \
    if (want->name != got->name) differ(what, i, #name, (uint64_t)want->name, (uint64_t)got->name);
    VT_REC_FIELDS(CMP_)
#undef CMP_
}

static void same_ev(const char *what, size_t i, const vt_rec *want, const vt_ev *got)
{
#define CMP_(type, name) \
    if ((type)want->name != got->name) differ(what, i, #name, (uint64_t)want->name, (uint64_t)got->name);
    VT_EV_FIELDS(CMP_)
#undef CMP_
}

static uint8_t buf[BUF_CAP];
static vt_rec plain[NREC];
static vt_ev evs[NREC];
static uint64_t streams[NREC];
static size_t len;

/* NREC random ALLOC and FREE records, every field set, encoded into buf; plain[] is what
 * vt_codec_decode makes of them. */
static void make_records(void)
{
    vt_codec enc;
    vt_codec_reset(&enc, 1000);
    len = 0;
    for (size_t i = 0; i < NREC; i++) {
        vt_rec r;
        memset(&r, 0, sizeof r);
#define SET_(type, name) r.name = (type)any_width();
        VT_REC_FIELDS(SET_)
#undef SET_
        r.type = (next_rand() & 1) ? VT_REC_ALLOC : VT_REC_FREE;
        r.time_ns = 1000 + i * 1000 + next_rand() % 1000;  /* times go forward in a chunk */
        len += vt_codec_encode(&enc, &r, buf + len);
    }
    memset(buf + len, 0, VT_CODEC_FAST_SLACK);
    vt_codec dec;
    vt_codec_reset(&dec, 1000);
    size_t off = 0;
    for (size_t i = 0; i < NREC; i++) {
        size_t n = vt_codec_decode(&dec, buf + off, len - off, &plain[i]);
        if (!n) { fprintf(stderr, "vt_codec_decode refused record %zu\n", i); exit(1); }
        off += n;
    }
}

static void check_fast(const char *what, vt_codec_fast_fn fast)
{
    vt_codec c;
    vt_codec_reset(&c, 1000);
    const uint8_t *p = buf, *end = buf + len;
    for (size_t i = 0; i < NREC; i++) {
        vt_rec r;
        memset(&r, 0, sizeof r);
        size_t n = fast(&c, p, end, &r);
        if (!n) n = vt_codec_decode(&c, p, (size_t)(end - p), &r);
        same_rec(what, i, &plain[i], &r);
        p += n;
    }
}

/* with_streams: the decoder keeps the streams (vt_codec_fast.ev_stream) */
static void check_events(const char *what, vt_codec_events_fn events, int with_streams)
{
    vt_codec c;
    vt_codec_reset(&c, 1000);
    const uint8_t *p = buf, *end = buf + len;
    size_t i = 0;
    while (i < NREC) {
        size_t n = events(&c, &p, end, evs + i, streams + i, NREC - i);
        for (size_t k = 0; k < n; k++) {
            same_ev(what, i + k, &plain[i + k], &evs[i + k]);
            if (with_streams && streams[i + k] != plain[i + k].stream)
                differ(what, i + k, "stream", plain[i + k].stream, streams[i + k]);
        }
        i += n;
        if (!n) {  /* a record left to the codec, as the reader does */
            vt_rec r;
            size_t used = vt_codec_decode(&c, p, (size_t)(end - p), &r);
            if (!used) { fprintf(stderr, "%s: stuck at record %zu\n", what, i); exit(1); }
            p += used;
            i++;
        }
    }
}

/* A fast decoder with one field dropped, as a decoder not told of a new field would. */
static vt_codec_fast_fn real_fast;
static size_t drops_stream(vt_codec *c, const uint8_t *p, const uint8_t *end, vt_rec *r)
{
    size_t n = real_fast(c, p, end, r);
    if (n) r->stream = 0;
    return n;
}

int main(void)
{
    srandom(15);
    make_records();
    vt_codec_fast f;
    int nsets = 0;
    char names[200] = "";
    for (int w = 0; w < VT_CODEC_FAST_N; w++) {
        if (vt_codec_fast_pick(w, &f)) continue;  /* not on this CPU */
        char what[80];
        snprintf(what, sizeof what, "%s record decoder", f.name);
        check_fast(what, f.rec);
        snprintf(what, sizeof what, "%s event decoder", f.name);
        check_events(what, f.ev, 0);
        snprintf(what, sizeof what, "%s event decoder with streams", f.name);
        check_events(what, f.ev_stream, 1);
        nsets++;
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", nsets > 1 ? ", " : "", f.name);
    }
    if (vt_codec_fast_pick(VT_CODEC_FAST_BEST, &f) || !nsets) {
        fprintf(stderr, "codec_fields: no decoder picked\n");
        return 1;
    }
    if (mismatches) {
        fprintf(stderr, "codec_fields: %d fields differ\n", mismatches);
        return 1;
    }
    real_fast = f.rec;
    quiet = 1;
    check_fast("decoder without stream (must differ)", drops_stream);
    if (!mismatches) {
        fprintf(stderr, "codec_fields: a decoder that drops a field went unnoticed\n");
        return 1;
    }
    printf("codec_fields: %d records, every field the same through vt_codec_decode and the fast decoders (%s; "
           "this CPU's best: %s)\n", NREC, names, f.name);
    return 0;
}
