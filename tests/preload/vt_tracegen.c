// SPDX-License-Identifier: MIT
/* vt_tracegen.c - writes a small synthetic trace and the expect file that describes it,
 * correct or broken on purpose (VARIANT), so the tests show vt_tracecheck can fail.
 *   vt_tracegen DIR VARIANT   -> DIR/trace.vtrace, DIR/1.expect, DIR/args (checker options) */
#define _GNU_SOURCE
#include "vt_codec.h"
#include "vt_format.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zstd.h>

static FILE *g_out;
static uint8_t g_buf[1 << 16];
static size_t g_len;
static uint32_t g_nrec;
static vt_codec g_codec;
static uint64_t g_counts[VT_REC_TYPE_MAX];

static void chunk_begin(uint64_t base)
{
    g_len = 0;
    g_nrec = 0;
    vt_codec_reset(&g_codec, base);
}

static void put(const vt_rec *r)
{
    g_len += vt_codec_encode(&g_codec, r, g_buf + g_len);
    g_nrec++;
    g_counts[r->type]++;
}

static void chunk_end(uint64_t base, int truncate)
{
    uint8_t comp[1 << 16];
    size_t c = ZSTD_compress(comp, sizeof comp, g_buf, g_len, 3);
    vt_chunk_header h = { VT_CHUNK_MAGIC, (uint32_t)c, (uint32_t)g_len, g_nrec, base };
    fwrite(&h, sizeof h, 1, g_out);
    fwrite(comp, 1, truncate ? c / 2 : c, g_out);
}

static void blob(const char *s)
{
    uint32_t n = (uint32_t)strlen(s);
    fwrite(&n, 4, 1, g_out);
    fwrite(s, 1, n, g_out);
}

int main(int argc, char **argv)
{
    if (argc != 3) { fprintf(stderr, "usage: vt_tracegen DIR VARIANT\n"); return 2; }
    const char *dir = argv[1], *v = argv[2];
#define IS(x) (strcmp(v, x) == 0)
    char path[4096];
    snprintf(path, sizeof path, "%s/trace.vtrace", dir);
    g_out = fopen(path, "wb");
    if (!g_out) return 2;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;

    const char *host = "genhost", *exe = "/gen/exe", *cmd = "gen";
    vt_file_header fh;
    memset(&fh, 0, sizeof fh);
    memcpy(fh.magic, VT_MAGIC, VT_MAGIC_LEN);
    fh.version_major = VT_VERSION_MAJOR;
    fh.version_minor = VT_VERSION_MINOR;
    fh.header_size = (uint32_t)(sizeof fh + 12 + strlen(host) + strlen(exe) + strlen(cmd));
    fh.pid = 1234;
    fh.ppid = 1;
    fh.start_realtime_ns = now - 1000000000ull;
    fh.start_monotonic_ns = 5;
    fh.stack_depth = 64;
    fh.rank = -1;
    fh.flags = VT_HDR_LOCAL_RANK;   /* as the recorder writes it: no local rank either */
    fh.local_rank = -1;
    fwrite(&fh, sizeof fh, 1, g_out);
    blob(host); blob(exe); blob(cmd);

    /* Chunk 1: stacks and the allocation. */
    chunk_begin(100);
    vt_rec r;
    memset(&r, 0, sizeof r);
    r.type = VT_REC_STACK; r.id = 1; r.parent = IS("bad_stack_parent") ? 9 : 0; r.addr = 0x5000; put(&r);
    memset(&r, 0, sizeof r);
    r.type = VT_REC_STACK; r.id = 2; r.parent = 1; r.addr = IS("stack_miss") ? 0x1200 : 0x1010; put(&r);
    memset(&r, 0, sizeof r);
    r.type = VT_REC_ALLOC; r.time_ns = 200; r.tid = IS("bad_tid") ? 8 : 7; r.kind = IS("bad_kind") ? 4 : 1;
    r.device = 0; r.addr = 0x2000; r.size = 100; r.stack_id = 2; put(&r);
    if (IS("extra_record")) { r.addr = 0x3000; put(&r); }
    if (IS("lost")) { memset(&r, 0, sizeof r); r.type = VT_REC_LOST; r.time_ns = 210; r.size = 3; put(&r); }
    chunk_end(100, 0);

    /* Chunk 2: the rest and the trailer. */
    chunk_begin(300);
    if (!IS("missing_record")) {
        memset(&r, 0, sizeof r);
        r.type = VT_REC_FREE; r.time_ns = 300; r.tid = 7; r.kind = 32; r.device = 0; r.addr = 0x2000; put(&r);
    }
    memset(&r, 0, sizeof r);
    r.type = VT_REC_OOM; r.time_ns = 310; r.tid = 7; r.kind = 1; r.device = 0; r.size = 1ull << 40;
    r.stack_id = 2; r.aux0 = 10; r.aux1 = 20; put(&r);
    memset(&r, 0, sizeof r);
    r.type = VT_REC_VMM; r.time_ns = 320; r.tid = 7; r.kind = VT_VMM_MAP; r.device = 0; r.addr = 0x400000;
    r.size = 0x200000; r.aux0 = 0; r.aux1 = 0x1001; r.stack_id = 2; put(&r);
    memset(&r, 0, sizeof r);
    r.type = VT_REC_POOL_TRIM; r.time_ns = 330; r.tid = 7; r.device = 0; r.addr = 0xf00; r.size = 5; put(&r);
    int killed = IS("partial_killed");
    if (!IS("no_trailer") && !killed) {
        uint64_t counts[VT_REC_TYPE_MAX];
        memcpy(counts, g_counts, sizeof counts);
        if (IS("trailer_count")) counts[VT_REC_ALLOC]++;
        memset(&r, 0, sizeof r);
        r.type = VT_REC_TRAILER; r.time_ns = 400; r.flags = 1; r.counts = counts; put(&r);
    }
    chunk_end(300, 0);
    if (IS("partial_chunk") || killed) {
        chunk_begin(500);
        memset(&r, 0, sizeof r);
        r.type = VT_REC_ALLOC; r.time_ns = 500; r.tid = 7; r.kind = 1; r.addr = 0x9000; r.size = 1; put(&r);
        chunk_end(500, 1);
    }
    fclose(g_out);

    snprintf(path, sizeof path, "%s/1.expect", dir);
    FILE *e = fopen(path, "w");
    if (!e) return 2;
    fprintf(e, "H 1234 1 %llu\nT %s/trace.vtrace\n", (unsigned long long)now, dir);
    fprintf(e, "N 1 0x1000 0x1100 0x0 /gen/exe gen_fn\n");
    fprintf(e, "A 1 0x2000 %d 0x0 0x0 7 0 1\n", IS("bad_size") ? 101 : 100);
    fprintf(e, "F 32 0x2000 0x0 0x0 7 0 1\n");
    fprintf(e, "O 1 %llu 0x0 0x0 7 0 10 20 1\n", 1ull << 40);
    fprintf(e, "V 1 0x400000 2097152 0x0 0x1001 7 0 1\n");
    fprintf(e, "P 0xf00 5 7 0 1\n");
    fprintf(e, "X alloc 1\nX free 1\nX oom 1\nX vmm 1\nX trim 1\n");
    fclose(e);
    snprintf(path, sizeof path, "%s/args", dir);
    e = fopen(path, "w");
    fprintf(e, "%s\n", killed ? "--killed" : "");
    fclose(e);
    return 0;
}
