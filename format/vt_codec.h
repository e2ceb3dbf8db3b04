// SPDX-License-Identifier: MIT
/* vt_codec.h - records to bytes and back (docs/trace-format.md, "Records").
 *
 * Both directions keep a small state (last time, last address) that makes times and
 * addresses delta-coded within one chunk; reset it at every chunk boundary with
 * vt_codec_reset(). */
#ifndef VT_CODEC_H
#define VT_CODEC_H

#include "vt_format.h"

typedef struct {
    uint64_t last_time;
    uint64_t last_addr;
    uint64_t counts[VT_REC_TYPE_MAX]; /* decoder: storage behind vt_rec.counts */
} vt_codec;

/* Starts a chunk whose base time is base_time_ns. */
void vt_codec_reset(vt_codec *c, uint64_t base_time_ns);

/* Upper bound of the bytes vt_codec_encode writes for r. */
size_t vt_codec_bound(const vt_rec *r);

/* Encodes r at out (which holds vt_codec_bound(r) bytes); returns bytes written. */
size_t vt_codec_encode(vt_codec *c, const vt_rec *r, uint8_t *out);

/* Decodes one record from [p, p+n). Returns bytes consumed, or 0 when the bytes are
 * malformed (truncated record, bad length). Records of unknown type decode with only
 * r->type set; the caller skips them. Pointers in r point into [p, p+n). */
size_t vt_codec_decode(vt_codec *c, const uint8_t *p, size_t n, vt_rec *r);

/* A record's time is meaningful (it carries one on the wire). */
static inline int vt_rec_timed(unsigned type)
{
    return type == VT_REC_ALLOC || type == VT_REC_FREE || type == VT_REC_OOM ||
           type == VT_REC_VMM || type == VT_REC_POOL_TRIM || type == VT_REC_DRIVER ||
           type == VT_REC_NVML || type == VT_REC_LOOKUP || type == VT_REC_LOST ||
           type == VT_REC_TRAILER || type == VT_REC_PAUSE || type == VT_REC_MARK
           || type == VT_REC_ANNOTATE || type == VT_REC_POOL;
}

/* ------------------------------------------------------------------------ *
 *  The fast decoders of ALLOC and FREE records (vt_codec_fast.c)
 * ------------------------------------------------------------------------ */
/* They read up to this many bytes past the end of a record without bounds checks: the
 * buffer they decode must have that many readable bytes (zeros) after its end. */
#define VT_CODEC_FAST_SLACK 128

/* The fields of an event: an ALLOC or FREE record with only what the replay reads
 * (vt_rec less tid and stream), 32 bytes. X(type, name) */
#define VT_EV_FIELDS(X) \
    X(uint64_t, time_ns) \
    X(uint64_t, addr) \
    X(uint64_t, size)      /* ALLOC; 0 for FREE */ \
    X(uint32_t, stack_id) \
    X(uint8_t,  type)      /* VT_REC_ALLOC or VT_REC_FREE */ \
    X(uint8_t,  kind) \
    X(int8_t,   device) \
    X(uint8_t,  flags)     /* VT_RF_*: a PyTorch block's private pool */

#define VT_EV_FIELD_(type, name) type name;
typedef struct {
    VT_EV_FIELDS(VT_EV_FIELD_)
} vt_ev;
#undef VT_EV_FIELD_

/* One ALLOC or FREE record at p, decoded as vt_codec_decode would. Returns the bytes
 * consumed, or 0 to let vt_codec_decode have the record (another type, or anything
 * unusual). */
typedef size_t (*vt_codec_fast_fn)(vt_codec *c, const uint8_t *p, const uint8_t *end, vt_rec *r);
/* A run of ALLOC and FREE records from *pp into ev, up to max of them; stops before
 * any other record or one vt_codec_decode must judge. Advances *pp; returns how many.
 * stream: the events' streams (vt_rec.stream) go to stream[0..n) when the decoder is
 * one that keeps them (vt_codec_fast.ev_stream); the others leave it alone. */
typedef size_t (*vt_codec_events_fn)(vt_codec *c, const uint8_t **pp, const uint8_t *end,
                                     vt_ev *ev, uint64_t *stream, size_t max);

/* One set of fast decoders. */
typedef struct {
    const char *name;
    vt_codec_fast_fn rec;
    vt_codec_events_fn ev;         /* drops the streams (vt_ev has no room for them) */
    vt_codec_events_fn ev_stream;  /* the same, and the streams into stream[] */
} vt_codec_fast;

/* VT_CODEC_FAST_BEST: the fastest set this CPU runs. 0, 1, ...: every set there is
 * (0 is the portable one), for tests; returns -1 for one this CPU cannot run or past
 * the last (VT_CODEC_FAST_N), 0 otherwise. */
#define VT_CODEC_FAST_BEST (-1)
#define VT_CODEC_FAST_N 4
int vt_codec_fast_pick(int which, vt_codec_fast *f);

#endif /* VT_CODEC_H */
