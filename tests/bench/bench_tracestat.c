// SPDX-License-Identifier: MIT
/* bench_tracestat.c - reads a vramtrace trace with nothing but vt_codec and zstd, and
 * prints what the benchmarks need: records per type, events, bytes per event, LOST
 * events, the depth of the recorded stacks, and the live set (peak count and bytes,
 * frees that match no alloc).
 *
 *   bench_tracestat TRACE
 *
 * It is the benchmarks' independent check of the traces they make or read (it does not
 * share code with the analyzer), and its speed is that of a plain reader of the format:
 * one thread, vt_codec_decode, a live-set hash table without prefetching, nothing
 * else (the analyzer's pipeline is 2.5-3x faster: docs/benchmarks.md,
 * section 2). One key=value line on stdout. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zstd.h>

#include "vt_codec.h"
#include "vt_format.h"

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n);
    if (!p) { fprintf(stderr, "bench_tracestat: out of memory\n"); exit(1); }
    return p;
}

/* ------------------------------------------------------------------------ *
 *  Live set: open addressing on (space, addr) with tombstones
 * ------------------------------------------------------------------------ */
typedef struct { uint64_t key; uint64_t size; } slot;  /* key 0 empty, 1 tombstone */

typedef struct { slot *s; size_t cap, used, live; } live_map;

static uint64_t key_of(unsigned space, uint64_t addr) { return (addr * 8 + space) | 0x8000000000000000ull; }

static size_t hash(uint64_t k)
{
    k ^= k >> 33; k *= 0xff51afd7ed558ccdull; k ^= k >> 33;
    return (size_t)k;
}

static void lm_grow(live_map *m)
{
    size_t ncap = m->cap ? m->cap * 2 : 1024;
    slot *ns = calloc(ncap, sizeof *ns);
    if (!ns) { fprintf(stderr, "bench_tracestat: out of memory\n"); exit(1); }
    for (size_t i = 0; i < m->cap; i++) {
        if (m->s[i].key > 1) {
            size_t h = hash(m->s[i].key) & (ncap - 1);
            while (ns[h].key) h = (h + 1) & (ncap - 1);
            ns[h] = m->s[i];
        }
    }
    free(m->s);
    m->s = ns;
    m->cap = ncap;
    m->used = m->live;
}

static int lm_put(live_map *m, uint64_t k, uint64_t size) /* 0: replaced an existing entry */
{
    if ((m->used + 1) * 2 > m->cap) lm_grow(m);
    size_t h = hash(k) & (m->cap - 1), tomb = (size_t)-1;
    while (m->s[h].key) {
        if (m->s[h].key == k) { m->s[h].size = size; return 0; }
        if (m->s[h].key == 1 && tomb == (size_t)-1) tomb = h;
        h = (h + 1) & (m->cap - 1);
    }
    if (tomb != (size_t)-1) h = tomb; else m->used++;
    m->s[h].key = k;
    m->s[h].size = size;
    m->live++;
    return 1;
}

static int lm_del(live_map *m, uint64_t k, uint64_t *size)
{
    if (!m->cap) return 0;
    size_t h = hash(k) & (m->cap - 1);
    while (m->s[h].key) {
        if (m->s[h].key == k) { *size = m->s[h].size; m->s[h].key = 1; m->live--; return 1; }
        h = (h + 1) & (m->cap - 1);
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: bench_tracestat TRACE\n"); return 2; }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    FILE *f = fopen(argv[1], "rb");
    if (!f) { fprintf(stderr, "bench_tracestat: %s: %s\n", argv[1], strerror(errno)); return 1; }
    vt_file_header h;
    if (fread(&h, sizeof h, 1, f) != 1 || memcmp(h.magic, VT_MAGIC, VT_MAGIC_LEN) != 0
        || h.version_major != VT_VERSION_MAJOR || h.header_size < sizeof h) {
        fprintf(stderr, "bench_tracestat: %s: not a vramtrace v%d trace\n", argv[1], VT_VERSION_MAJOR);
        return 1;
    }
    if (fseek(f, (long)h.header_size, SEEK_SET) != 0) { fprintf(stderr, "bench_tracestat: bad header\n"); return 1; }

    uint64_t counts[VT_REC_TYPE_MAX + 1] = { 0 }, lost = 0, chunks = 0, bytes = h.header_size;
    uint64_t live_bytes = 0, peak_bytes = 0, peak_live = 0, unmatched = 0, dup = 0;
    uint64_t depth_sum = 0, depth_n = 0;
    uint32_t depth_max = 0, depth_min = UINT32_MAX;
    int truncated = 0, trailer = 0, clean = 0;
    uint16_t *depth = NULL;  /* per STACK id: frames from the outermost one */
    size_t depth_cap = 0;
    live_map lm = { 0 };
    uint8_t *comp = NULL, *raw = NULL;
    size_t comp_cap = 0;
    ZSTD_DCtx *dz = ZSTD_createDCtx();
    raw = xrealloc(NULL, VT_CHUNK_MAX_RAW);

    for (;;) {
        vt_chunk_header ch;
        size_t n = fread(&ch, 1, sizeof ch, f);
        if (n == 0) break;
        if (n != sizeof ch || ch.magic != VT_CHUNK_MAGIC || ch.raw_size > VT_CHUNK_MAX_RAW) { truncated = 1; break; }
        if (ch.comp_size > comp_cap) { comp_cap = ch.comp_size; comp = xrealloc(comp, comp_cap); }
        if (fread(comp, 1, ch.comp_size, f) != ch.comp_size) { truncated = 1; break; }
        size_t rn = ZSTD_decompressDCtx(dz, raw, VT_CHUNK_MAX_RAW, comp, ch.comp_size);
        if (ZSTD_isError(rn) || rn != ch.raw_size) { truncated = 1; break; }
        bytes += sizeof ch + ch.comp_size;
        chunks++;
        vt_codec c;
        vt_codec_reset(&c, ch.base_time_ns);
        size_t off = 0;
        for (uint32_t i = 0; i < ch.nrecords; i++) {
            vt_rec r;
            size_t used = vt_codec_decode(&c, raw + off, rn - off, &r);
            if (!used) { truncated = 1; break; }
            off += used;
            if (r.type <= VT_REC_TYPE_MAX) counts[r.type]++;
            switch (r.type) {
            case VT_REC_ALLOC: {
                if (!lm_put(&lm, key_of(vt_kind_space(r.kind), r.addr), r.size)) dup++;
                else live_bytes += r.size;
                if (lm.live > peak_live) peak_live = lm.live;
                if (live_bytes > peak_bytes) peak_bytes = live_bytes;
                uint32_t d = r.stack_id && r.stack_id < depth_cap ? depth[r.stack_id] : 0;
                depth_sum += d; depth_n++;
                if (d > depth_max) depth_max = d;
                if (d < depth_min) depth_min = d;
                break;
            }
            case VT_REC_FREE: {
                uint64_t sz;
                if (lm_del(&lm, key_of(vt_kind_space(r.kind), r.addr), &sz)) live_bytes -= sz;
                else unmatched++;
                break;
            }
            case VT_REC_STACK:
                if (r.id >= depth_cap) {
                    size_t nc = depth_cap ? depth_cap : 4096;
                    while (nc <= r.id) nc *= 2;
                    depth = xrealloc(depth, nc * sizeof *depth);
                    memset(depth + depth_cap, 0, (nc - depth_cap) * sizeof *depth);
                    depth_cap = nc;
                }
                depth[r.id] = (uint16_t)((r.parent && r.parent < depth_cap ? depth[r.parent] : 0) + 1);
                break;
            case VT_REC_LOST:
                lost += r.size;
                break;
            case VT_REC_TRAILER:
                trailer = 1;
                clean = r.flags & 1;
                break;
            default:
                break;
            }
        }
        if (truncated) break;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    uint64_t events = counts[VT_REC_ALLOC] + counts[VT_REC_FREE];
    printf("bytes=%llu chunks=%llu events=%llu allocs=%llu frees=%llu ooms=%llu stacks=%llu modules=%llu "
           "nvml=%llu lost=%llu trailer=%d clean=%d truncated=%d bytes_per_event=%.3f "
           "peak_live=%llu peak_bytes=%llu end_live=%zu unmatched_frees=%llu dup_allocs=%llu "
           "depth_min=%u depth_mean=%.1f depth_max=%u read_s=%.3f events_per_s=%.0f\n",
           (unsigned long long)bytes, (unsigned long long)chunks, (unsigned long long)events,
           (unsigned long long)counts[VT_REC_ALLOC], (unsigned long long)counts[VT_REC_FREE],
           (unsigned long long)counts[VT_REC_OOM], (unsigned long long)counts[VT_REC_STACK],
           (unsigned long long)counts[VT_REC_MODULE], (unsigned long long)counts[VT_REC_NVML],
           (unsigned long long)lost, trailer, clean, truncated,
           events ? (double)bytes / (double)events : 0.0,
           (unsigned long long)peak_live, (unsigned long long)peak_bytes, lm.live,
           (unsigned long long)unmatched, (unsigned long long)dup,
           depth_n ? depth_min : 0, depth_n ? (double)depth_sum / (double)depth_n : 0.0, depth_max,
           secs, secs > 0 ? (double)events / secs : 0.0);
    ZSTD_freeDCtx(dz);
    free(raw); free(comp); free(depth); free(lm.s);
    fclose(f);
    return truncated ? 3 : 0;
}
