// SPDX-License-Identifier: MIT
/* vt_codec.c - the record encoding: a type byte, a payload length, then LEB128
 * varints (times and addresses as zigzag deltas) and length-prefixed byte strings.
 * Why varints: a typical allocation record shrinks from 64 fixed bytes to ~15, which
 * halves what zstd and the analyzer have to chew through. */
#include "vt_codec.h"
#include <string.h>

/* ------------------------------------------------------------------------ *
 *  Primitives
 * ------------------------------------------------------------------------ */
static uint8_t *put_u(uint8_t *o, uint64_t v)
{
    while (v >= 0x80) { *o++ = (uint8_t)(v | 0x80); v >>= 7; }
    *o++ = (uint8_t)v;
    return o;
}

static uint8_t *put_s(uint8_t *o, int64_t v)
{
    return put_u(o, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

static uint8_t *put_b(uint8_t *o, const void *b, uint32_t n)
{
    o = put_u(o, n);
    if (n) memcpy(o, b, n);
    return o + n;
}

typedef struct { const uint8_t *p, *end; int bad; } rd;

static uint64_t get_u(rd *r)
{
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (r->p >= r->end) { r->bad = 1; return 0; }
        uint8_t b = *r->p++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) return v;
    }
    r->bad = 1;
    return 0;
}

static int64_t get_s(rd *r)
{
    uint64_t u = get_u(r);
    return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

static const uint8_t *get_b(rd *r, uint32_t *n)
{
    uint64_t len = get_u(r);
    if (r->bad || len > (uint64_t)(r->end - r->p)) { r->bad = 1; *n = 0; return NULL; }
    const uint8_t *b = r->p;
    r->p += len;
    *n = (uint32_t)len;
    return b;
}

/* ------------------------------------------------------------------------ *
 *  Encoding
 * ------------------------------------------------------------------------ */
void vt_codec_reset(vt_codec *c, uint64_t base_time_ns)
{
    c->last_time = base_time_ns;
    c->last_addr = 0;
}

size_t vt_codec_bound(const vt_rec *r)
{
    return 2 + 10 /* length */ + 16 * 10 + r->bytes_len + r->str_len + 2 * 10
         + (r->type == VT_REC_TRAILER ? VT_REC_TYPE_MAX * 10 : 0);
}

static uint8_t *enc_time(vt_codec *c, uint8_t *o, uint64_t t)
{
    o = put_s(o, (int64_t)(t - c->last_time));
    c->last_time = t;
    return o;
}

static uint8_t *enc_addr(vt_codec *c, uint8_t *o, uint64_t a)
{
    o = put_s(o, (int64_t)(a - c->last_addr));
    c->last_addr = a;
    return o;
}

static uint8_t *enc_payload(vt_codec *c, const vt_rec *r, uint8_t *o)
{
    switch (r->type) {
    case VT_REC_ALLOC:
    case VT_REC_FREE:
        o = enc_time(c, o, r->time_ns);
        o = put_u(o, r->tid); o = put_u(o, r->kind); o = put_s(o, r->device);
        o = enc_addr(c, o, r->addr);
        if (r->type == VT_REC_ALLOC) o = put_u(o, r->size);
        o = put_u(o, r->stream); o = put_u(o, r->stack_id); o = put_u(o, r->flags);
        break;
    case VT_REC_OOM:
        o = enc_time(c, o, r->time_ns);
        o = put_u(o, r->tid); o = put_u(o, r->kind); o = put_s(o, r->device);
        o = put_u(o, r->size); o = put_u(o, r->stream); o = put_u(o, r->stack_id);
        o = put_u(o, r->aux0); o = put_u(o, r->aux1); o = put_u(o, r->flags);
        break;
    case VT_REC_VMM:
        o = enc_time(c, o, r->time_ns);
        o = put_u(o, r->tid); o = put_u(o, r->kind); o = put_s(o, r->device);
        o = put_u(o, r->addr); o = put_u(o, r->size); o = put_u(o, r->aux0);
        o = put_u(o, r->aux1); o = put_u(o, r->stack_id);
        break;
    case VT_REC_POOL_TRIM:
        o = enc_time(c, o, r->time_ns);
        o = put_u(o, r->tid); o = put_s(o, r->device); o = put_u(o, r->addr); o = put_u(o, r->size);
        break;
    case VT_REC_STACK:
        o = put_u(o, r->id); o = put_u(o, r->parent); o = put_u(o, r->kind); o = put_u(o, r->addr);
        break;
    case VT_REC_MODULE:
        o = put_u(o, r->addr); o = put_u(o, r->size);
        o = put_b(o, r->bytes, r->bytes_len); o = put_b(o, r->str, r->str_len);
        break;
    case VT_REC_DEVICE:
        o = put_s(o, r->device); o = put_u(o, r->size); o = put_u(o, r->aux0); o = put_u(o, r->aux1);
        o = put_b(o, r->bytes, r->bytes_len); o = put_b(o, r->str, r->str_len);
        o = put_u(o, r->id); o = put_u(o, r->line);
        break;
    case VT_REC_DRIVER:
        o = enc_time(c, o, r->time_ns); o = put_u(o, r->aux0);
        break;
    case VT_REC_NVML:
        o = enc_time(c, o, r->time_ns); o = put_s(o, r->device);
        o = put_u(o, r->aux0); o = put_u(o, r->size); o = put_u(o, r->aux1);
        break;
    case VT_REC_NVML_DEVICE:
        o = put_s(o, r->device); o = put_b(o, r->str, r->str_len);
        break;
    case VT_REC_THREAD:
        o = put_u(o, r->tid); o = put_b(o, r->str, r->str_len);
        break;
    case VT_REC_STRING:
        o = put_u(o, r->id); o = put_b(o, r->str, r->str_len);
        break;
    case VT_REC_LOOKUP:
        o = enc_time(c, o, r->time_ns); o = put_u(o, r->tid); o = put_u(o, r->aux0);
        o = put_u(o, r->flags); o = put_u(o, r->addr); o = put_u(o, r->aux1);
        o = put_b(o, r->str, r->str_len);
        break;
    case VT_REC_LOST:
        o = enc_time(c, o, r->time_ns); o = put_u(o, r->size);
        break;
    case VT_REC_POOL:
        o = enc_time(c, o, r->time_ns); o = put_s(o, r->device);
        o = put_u(o, r->addr); o = put_u(o, r->aux0); o = put_u(o, r->aux1);
        break;
    case VT_REC_PAUSE:
        o = enc_time(c, o, r->time_ns); o = put_u(o, r->tid); o = put_u(o, r->aux0);
        break;
    case VT_REC_MARK:
        o = enc_time(c, o, r->time_ns); o = put_u(o, r->tid); o = put_b(o, r->str, r->str_len);
        break;
    case VT_REC_SOURCE:
        o = put_b(o, r->str, r->str_len); o = put_u(o, r->line); o = put_b(o, r->bytes, r->bytes_len);
        break;
    case VT_REC_SYMBOL:
        o = put_u(o, r->addr); o = put_u(o, r->aux0); o = put_u(o, r->aux1);
        o = put_b(o, r->str, r->str_len); o = put_b(o, r->bytes, r->bytes_len); o = put_u(o, r->line);
        break;
    case VT_REC_ANNOTATE:
        o = enc_time(c, o, r->time_ns); o = put_u(o, r->tid); o = put_s(o, r->device);
        o = put_u(o, r->addr); o = put_u(o, r->size); o = put_u(o, r->kind);
        o = put_u(o, r->aux0); o = put_u(o, r->aux1);
        break;
    case VT_REC_TRAILER:
        o = enc_time(c, o, r->time_ns); o = put_u(o, r->flags);
        o = put_u(o, VT_REC_TYPE_MAX);
        for (unsigned i = 0; i < VT_REC_TYPE_MAX; i++) o = put_u(o, r->counts ? r->counts[i] : 0);
        break;
    case VT_REC_PYFRAME:
        o = put_u(o, r->id); o = put_u(o, r->aux0); o = put_u(o, r->aux1); o = put_u(o, r->line);
        break;
    default:
        break;
    }
    return o;
}

size_t vt_codec_encode(vt_codec *c, const vt_rec *r, uint8_t *out)
{
    /* The payload is written after a 2-byte length slot and moved down when its
     * length needs fewer bytes: one memmove beats encoding twice. */
    uint8_t *payload = out + 1 + 10;
    uint8_t *end = enc_payload(c, r, payload);
    size_t plen = (size_t)(end - payload);
    out[0] = r->type;
    uint8_t *lp = put_u(out + 1, plen);
    memmove(lp, payload, plen);
    return (size_t)(lp - out) + plen;
}

/* ------------------------------------------------------------------------ *
 *  Decoding
 * ------------------------------------------------------------------------ */
static uint64_t dec_time(vt_codec *c, rd *d)
{
    c->last_time += (uint64_t)get_s(d);
    return c->last_time;
}

static uint64_t dec_addr(vt_codec *c, rd *d)
{
    c->last_addr += (uint64_t)get_s(d);
    return c->last_addr;
}

size_t vt_codec_decode(vt_codec *c, const uint8_t *p, size_t n, vt_rec *r)
{
    memset(r, 0, sizeof *r);
    r->device = -1;
    if (n < 2) return 0;
    rd h = { p + 1, p + n, 0 };
    uint64_t plen = get_u(&h);
    if (h.bad || plen > (uint64_t)(h.end - h.p)) return 0;
    rd d = { h.p, h.p + plen, 0 };
    size_t used = (size_t)(h.p - p) + (size_t)plen;
    r->type = p[0];

    switch (r->type) {
    case VT_REC_ALLOC:
    case VT_REC_FREE:
        r->time_ns = dec_time(c, &d);
        r->tid = (uint32_t)get_u(&d); r->kind = (uint8_t)get_u(&d); r->device = (int8_t)get_s(&d);
        r->addr = dec_addr(c, &d);
        if (r->type == VT_REC_ALLOC) r->size = get_u(&d);
        r->stream = get_u(&d); r->stack_id = (uint32_t)get_u(&d); r->flags = (uint8_t)get_u(&d);
        break;
    case VT_REC_OOM:
        r->time_ns = dec_time(c, &d);
        r->tid = (uint32_t)get_u(&d); r->kind = (uint8_t)get_u(&d); r->device = (int8_t)get_s(&d);
        r->size = get_u(&d); r->stream = get_u(&d); r->stack_id = (uint32_t)get_u(&d);
        r->aux0 = get_u(&d); r->aux1 = get_u(&d); r->flags = (uint8_t)get_u(&d);
        break;
    case VT_REC_VMM:
        r->time_ns = dec_time(c, &d);
        r->tid = (uint32_t)get_u(&d); r->kind = (uint8_t)get_u(&d); r->device = (int8_t)get_s(&d);
        r->addr = get_u(&d); r->size = get_u(&d); r->aux0 = get_u(&d);
        r->aux1 = get_u(&d); r->stack_id = (uint32_t)get_u(&d);
        break;
    case VT_REC_POOL_TRIM:
        r->time_ns = dec_time(c, &d);
        r->tid = (uint32_t)get_u(&d); r->device = (int8_t)get_s(&d);
        r->addr = get_u(&d); r->size = get_u(&d);
        break;
    case VT_REC_STACK:
        r->id = (uint32_t)get_u(&d); r->parent = (uint32_t)get_u(&d);
        r->kind = (uint8_t)get_u(&d); r->addr = get_u(&d);
        break;
    case VT_REC_MODULE:
        r->addr = get_u(&d); r->size = get_u(&d);
        r->bytes = get_b(&d, &r->bytes_len);
        r->str = (const char *)get_b(&d, &r->str_len);
        break;
    case VT_REC_DEVICE:
        r->device = (int8_t)get_s(&d); r->size = get_u(&d); r->aux0 = get_u(&d); r->aux1 = get_u(&d);
        r->bytes = get_b(&d, &r->bytes_len);
        r->str = (const char *)get_b(&d, &r->str_len);
        if (d.p < d.end) { r->id = (uint32_t)get_u(&d); r->line = (uint32_t)get_u(&d); }  /* older writers: absent */
        break;
    case VT_REC_DRIVER:
        r->time_ns = dec_time(c, &d); r->aux0 = get_u(&d);
        break;
    case VT_REC_NVML:
        r->time_ns = dec_time(c, &d); r->device = (int8_t)get_s(&d);
        r->aux0 = get_u(&d); r->size = get_u(&d); r->aux1 = get_u(&d);
        break;
    case VT_REC_NVML_DEVICE:
        r->device = (int8_t)get_s(&d); r->str = (const char *)get_b(&d, &r->str_len);
        break;
    case VT_REC_THREAD:
        r->tid = (uint32_t)get_u(&d); r->str = (const char *)get_b(&d, &r->str_len);
        break;
    case VT_REC_STRING:
        r->id = (uint32_t)get_u(&d); r->str = (const char *)get_b(&d, &r->str_len);
        break;
    case VT_REC_LOOKUP:
        r->time_ns = dec_time(c, &d); r->tid = (uint32_t)get_u(&d); r->aux0 = get_u(&d);
        r->flags = (uint8_t)get_u(&d); r->addr = get_u(&d); r->aux1 = get_u(&d);
        r->str = (const char *)get_b(&d, &r->str_len);
        break;
    case VT_REC_LOST:
        r->time_ns = dec_time(c, &d); r->size = get_u(&d);
        break;
    case VT_REC_POOL:
        r->time_ns = dec_time(c, &d); r->device = (int8_t)get_s(&d);
        r->addr = get_u(&d); r->aux0 = get_u(&d); r->aux1 = get_u(&d);
        break;
    case VT_REC_PAUSE:
        r->time_ns = dec_time(c, &d); r->tid = (uint32_t)get_u(&d); r->aux0 = get_u(&d);
        break;
    case VT_REC_MARK:
        r->time_ns = dec_time(c, &d); r->tid = (uint32_t)get_u(&d);
        r->str = (const char *)get_b(&d, &r->str_len);
        break;
    case VT_REC_SOURCE:
        r->str = (const char *)get_b(&d, &r->str_len); r->line = (uint32_t)get_u(&d);
        r->bytes = get_b(&d, &r->bytes_len);
        break;
    case VT_REC_SYMBOL:
        r->addr = get_u(&d); r->aux0 = get_u(&d); r->aux1 = get_u(&d);
        r->str = (const char *)get_b(&d, &r->str_len); r->bytes = get_b(&d, &r->bytes_len);
        r->line = (uint32_t)get_u(&d);
        break;
    case VT_REC_ANNOTATE:
        r->time_ns = dec_time(c, &d); r->tid = (uint32_t)get_u(&d); r->device = (int8_t)get_s(&d);
        r->addr = get_u(&d); r->size = get_u(&d); r->kind = (uint8_t)get_u(&d);
        r->aux0 = get_u(&d); r->aux1 = get_u(&d);
        break;
    case VT_REC_TRAILER: {
        r->time_ns = dec_time(c, &d); r->flags = (uint8_t)get_u(&d);
        uint64_t k = get_u(&d);
        memset(c->counts, 0, sizeof c->counts);
        for (uint64_t i = 0; i < k && !d.bad; i++) {
            uint64_t v = get_u(&d);
            if (i < VT_REC_TYPE_MAX) c->counts[i] = v;
        }
        r->counts = c->counts;
        break;
    }
    case VT_REC_PYFRAME:
        r->id = (uint32_t)get_u(&d); r->aux0 = get_u(&d); r->aux1 = get_u(&d);
        r->line = (uint32_t)get_u(&d);
        break;
    default:
        return used; /* unknown type: skipped by length */
    }
    return d.bad ? 0 : used;
}
