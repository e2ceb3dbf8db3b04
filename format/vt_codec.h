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

#endif /* VT_CODEC_H */
