// SPDX-License-Identifier: MIT
/* vt_codec_fast.c - the hot path of decoding: ALLOC and FREE records, unrolled, with
 * BMI2 and AVX2 variants picked at run time. Each gives what vt_codec_decode gives for
 * the records it takes (tests/format/codec_fields.c checks every field), and leaves
 * anything else to it. */
#include "vt_codec.h"

#include <stddef.h>
#include <string.h>

/* LEB128 without bounds checks (see VT_CODEC_FAST_SLACK); at most 10 bytes. Branch-free for
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

/* One ALLOC or FREE record decoded inline, with the same result as vt_codec_decode.
 * Returns bytes consumed, or 0 to let vt_codec_decode handle the record (another
 * type, or anything unusual). */
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

/* One event from its decoded fields (dev still zigzagged). */
static inline void put_ev(vt_ev *e, uint64_t t, uint64_t a, uint64_t size, uint64_t stack, unsigned type,
                          uint64_t kind, uint64_t dev, uint64_t flags)
{
    e->time_ns = t;
    e->addr = a;
    e->size = size;
    e->stack_id = (uint32_t)stack;
    e->type = (uint8_t)type;
    e->kind = (uint8_t)kind;
    e->device = (int8_t)unzig(dev);
    e->flags = (uint8_t)flags;
}

/* A run of ALLOC and FREE records into vt_ev, up to max of them; stops before any
 * other record (or one the codec must judge). Only what the replay reads is kept, so
 * nothing is written but 32 bytes per record (and the stream, with WS: the _stream
 * variant `fit` reads with), and the ALLOC/FREE difference (which comes at random)
 * costs no branch: both decode the size field's position, a FREE then keeps neither
 * the value nor the bytes it took. */
#define FAST_EVENTS(name, fast_u, WS)                                                                 \
    static size_t name(vt_codec *c, const uint8_t **pp, const uint8_t *end, vt_ev *ev,               \
                       uint64_t *streams, size_t max)                                                \
    {                                                                                                 \
        const uint8_t *p = *pp;                                                                       \
        uint64_t t = c->last_time, a = c->last_addr;                                                  \
        size_t n = 0;                                                                                 \
        (void)streams;                                                                                \
        while (n < max && p < end) {                                                                  \
            unsigned type = p[0];                                                                     \
            if ((type != VT_REC_ALLOC && type != VT_REC_FREE) || p[1] >= 0x80) break;                 \
            const uint8_t *q = p + 2, *pend = q + p[1];                                               \
            if (pend > end) break;                                                                    \
            uint64_t dt, tid, kind, dev, da, size, stream, stack, flags;                              \
            q = fast_u(q, &dt);                                                                       \
            SMALL_U(fast_u, q, tid);                                                                  \
            SMALL_U(fast_u, q, kind);                                                                 \
            SMALL_U(fast_u, q, dev);                                                                  \
            q = fast_u(q, &da);                                                                       \
            const uint8_t *qs = fast_u(q, &size);                                                     \
            uint64_t is_alloc = type == VT_REC_ALLOC;                                                 \
            size &= -is_alloc;                                                                        \
            q += (qs - q) & -(ptrdiff_t)is_alloc;                                                     \
            SMALL_U(fast_u, q, stream);                                                               \
            SMALL_U(fast_u, q, stack);                                                                \
            SMALL_U(fast_u, q, flags);                                                                \
            (void)tid;                                                                                \
            if (q > pend) break; /* malformed: vt_codec_decode says so */                             \
            t += (uint64_t)unzig(dt);                                                                 \
            a += (uint64_t)unzig(da);                                                                 \
            if (WS) streams[n] = stream;                                                              \
            put_ev(&ev[n++], t, a, size, stack, type, kind, dev, flags);                              \
            p = pend; /* fields after the known ones are skipped */                                   \
        }                                                                                             \
        c->last_time = t;                                                                             \
        c->last_addr = a;                                                                             \
        *pp = p;                                                                                      \
        return n;                                                                                     \
    }

FAST_DECODE(fast_decode_generic, fast_u_generic)
FAST_EVENTS(fast_events_generic, fast_u_generic, 0)
FAST_EVENTS(fast_events_generic_stream, fast_u_generic, 1)

#if defined(__x86_64__) && defined(__GNUC__)
/* With BMI2, pext packs the 7-bit groups in one instruction: one cycle or so on Intel
 * and AMD from Zen 3, but microcode of some 8 micro-ops per bit of the mask before
 * (AMD families 15h-18h: Zen 1 and 2, EPYC 7001 and 7002): there the shifts of
 * squeeze_generic are several times faster (slow_pext). */
#include <immintrin.h>
#include <cpuid.h>
__attribute__((target("bmi2"))) static inline uint64_t squeeze_bmi2(uint64_t x)
{
    return _pext_u64(x, 0x7f7f7f7f7f7f7f7full);
}
#define FAST_U_ATTR __attribute__((target("bmi2")))
FAST_U_ATTR FAST_U(fast_u_bmi2, squeeze_bmi2)
FAST_U_ATTR FAST_DECODE(fast_decode_bmi2, fast_u_bmi2)
FAST_U_ATTR FAST_EVENTS(fast_events_bmi2, fast_u_bmi2, 0)
FAST_U_ATTR FAST_EVENTS(fast_events_bmi2_stream, fast_u_bmi2, 1)

/* With AVX2 too, one 32-byte load finds where every varint of a record ends (the bytes
 * whose top bit is clear), so that no field waits for the one before it to be decoded
 * and no field length is guessed by a branch. Records whose payload is over 32 bytes,
 * holds a varint over 8 bytes, or lacks fields go to `rest`, the one-field-at-a-time
 * path. `squeeze` packs a varint's 7-bit groups (pext, or shifts where pext is slow). */
#define M8 0x8080808080808080ull
/* The varint at q (at most 8 bytes). */
#define VT_U8(squeeze, q) __extension__({                     \
        uint64_t w_;                                          \
        memcpy(&w_, (q), 8);                                  \
        squeeze(w_ & _blsmsk_u64(~w_ & M8));                  \
    })
#define FAST_EVENTS_AVX2(name, squeeze, rest, WS)                                                     \
    static size_t name(vt_codec *c, const uint8_t **pp, const uint8_t *end, vt_ev *ev,               \
                       uint64_t *streams, size_t max)                                                \
    {                                                                                                 \
        const uint8_t *p = *pp;                                                                       \
        uint64_t t = c->last_time, a = c->last_addr;                                                  \
        size_t n = 0;                                                                                 \
        while (n < max && p < end) {                                                                  \
            unsigned type = p[0], plen = p[1];                                                        \
            const uint8_t *q = p + 2;                                                                 \
            if (type - VT_REC_ALLOC > VT_REC_FREE - VT_REC_ALLOC || plen > 32 || q + plen > end)      \
                break;                                                                                \
            uint64_t is_alloc = type == VT_REC_ALLOC;                                                 \
            /* bit i: byte i ends a varint; field k ends at the k-th set bit */                       \
            uint64_t m = ~(uint64_t)(uint32_t)_mm256_movemask_epi8(                                   \
                             _mm256_loadu_si256((const __m256i *)(const void *)q)) & 0xffffffffull;   \
            /* fields: time, tid, kind, device, addr, [size,] stream, stack, flags */                 \
            uint64_t m1 = _blsr_u64(m), m2 = _blsr_u64(m1), m3 = _blsr_u64(m2), m4 = _blsr_u64(m3);  \
            uint64_t m5 = _blsr_u64(m4), m6 = _blsr_u64(m5);                                          \
            uint64_t before_stack = is_alloc ? m6 : m5; /* its lowest bit ends the stream */          \
            uint64_t last = _blsr_u64(_blsr_u64(before_stack)); /* ends the flags */                  \
            uint64_t e_last = _tzcnt_u64(last);                 /* 64 when missing */                 \
            if (e_last >= plen) break;                                                                \
            /* A run of 8 continuation bytes is a varint over 8 bytes (or garbage). It takes      \
             * 16 bytes or more with the 7 other fields of at least one byte: shorter             \
             * records, most of them, need not look. */                                           \
            if (plen > 15) {                                                                          \
                uint64_t run = ~m & 0xffffffffull;                                                    \
                run &= run >> 1;                                                                      \
                run &= run >> 2;                                                                      \
                run &= run >> 4;                                                                      \
                if (run & ((2ull << e_last) - 1)) break; /* e_last < plen <= 32 */                     \
            }                                                                                         \
            uint64_t dt = VT_U8(squeeze, q);                                                          \
            uint64_t kind = VT_U8(squeeze, q + _tzcnt_u64(m1) + 1);                                   \
            uint64_t dev = VT_U8(squeeze, q + _tzcnt_u64(m2) + 1);                                    \
            uint64_t da = VT_U8(squeeze, q + _tzcnt_u64(m3) + 1);                                     \
            uint64_t size = VT_U8(squeeze, q + _tzcnt_u64(m4) + 1) & -is_alloc;                       \
            uint64_t stack = VT_U8(squeeze, q + _tzcnt_u64(before_stack) + 1);                        \
            uint64_t flags = VT_U8(squeeze, q + _tzcnt_u64(_blsr_u64(before_stack)) + 1);             \
            if (WS) streams[n] = VT_U8(squeeze, q + _tzcnt_u64(is_alloc ? m5 : m4) + 1);             \
            t += (uint64_t)unzig(dt);                                                                 \
            a += (uint64_t)unzig(da);                                                                 \
            put_ev(&ev[n++], t, a, size, stack, type, kind, dev, flags);                              \
            p = q + plen; /* fields after the known ones are skipped */                               \
        }                                                                                             \
        c->last_time = t;                                                                             \
        c->last_addr = a;                                                                             \
        *pp = p;                                                                                      \
        /* the record the loop left, if the slower path takes it */                                   \
        if (n < max) n += rest(c, pp, end, ev + n, streams ? streams + n : NULL, 1);                  \
        return n;                                                                                     \
    }
#define AVX2_ATTR __attribute__((target("avx2,bmi,bmi2")))
AVX2_ATTR FAST_EVENTS_AVX2(fast_events_avx2_bmi2, squeeze_bmi2, fast_events_bmi2, 0)
AVX2_ATTR FAST_EVENTS_AVX2(fast_events_avx2_bmi2_stream, squeeze_bmi2, fast_events_bmi2_stream, 1)
/* Where pext is slow: the same with shifts (BMI1's blsmsk, tzcnt, blsr stay fast). */
#define AVX2_NOPEXT_ATTR __attribute__((target("avx2,bmi")))
AVX2_NOPEXT_ATTR FAST_EVENTS_AVX2(fast_events_avx2, squeeze_generic, fast_events_generic, 0)
AVX2_NOPEXT_ATTR FAST_EVENTS_AVX2(fast_events_avx2_stream, squeeze_generic, fast_events_generic_stream, 1)

/* AMD before Zen 3 (families up to 18h; Hygon's Dhyana is 18h) runs pext in microcode. */
static int slow_pext(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(0, &a, &b, &c, &d)) return 0;
    int amd = (b == 0x68747541 && d == 0x69746e65 && c == 0x444d4163)    /* AuthenticAMD */
              || (b == 0x6f677948 && d == 0x6e65476e && c == 0x656e6975); /* HygonGenuine */
    if (!amd || !__get_cpuid(1, &a, &b, &c, &d)) return 0;
    unsigned family = (a >> 8) & 0xf;
    if (family == 0xf) family += (a >> 20) & 0xff;
    return family < 0x19;
}
#endif

/* Every set, the portable one first. */
static const vt_codec_fast fast_sets[VT_CODEC_FAST_N] = {
    { "generic", fast_decode_generic, fast_events_generic, fast_events_generic_stream },
#if defined(__x86_64__) && defined(__GNUC__)
    { "bmi2", fast_decode_bmi2, fast_events_bmi2, fast_events_bmi2_stream },
    { "avx2+bmi2", fast_decode_bmi2, fast_events_avx2_bmi2, fast_events_avx2_bmi2_stream },
    { "avx2", fast_decode_generic, fast_events_avx2, fast_events_avx2_stream },
#endif
};

int vt_codec_fast_pick(int which, vt_codec_fast *f)
{
    if (which >= VT_CODEC_FAST_N || !fast_sets[which < 0 ? 0 : which].name) return -1;
    int best = 0;
#if defined(__x86_64__) && defined(__GNUC__)
    int bmi2 = __builtin_cpu_supports("bmi2"), avx2 = __builtin_cpu_supports("avx2");
    int bmi = __builtin_cpu_supports("bmi");
    static const int need[VT_CODEC_FAST_N] = { 0, 1, 3, 2 }; /* bit 0: bmi2, bit 1: avx2 and bmi */
    int have = (bmi2 ? 1 : 0) | (avx2 && bmi ? 2 : 0);
    if (which >= 0 && (need[which] & ~have)) return -1;
    if (slow_pext()) best = (have & 2) ? 3 : 0;
    else if (have & 1) best = (have & 2) ? 2 : 1;
#endif
    *f = fast_sets[which < 0 ? best : which];
    return 0;
}
