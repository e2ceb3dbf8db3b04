/* SPDX-License-Identifier: MIT */
/* vt_gen_hostile.c - writes traces made to hurt the analyzer (tests/fuzz/cases): the
 * attacks issue 17's review found, each small and deterministic.
 *
 *   vt_gen_hostile fifo MODULE_PATH OUT   a module at MODULE_PATH (a FIFO in the test)
 *   vt_gen_hostile stacks N OUT           N distinct stacks, one allocation each
 *   vt_gen_hostile bomb OUT               chunks of 16 MiB of records in ~1 KiB each
 *   vt_gen_hostile ctrl OUT               names with ESC and other control bytes
 *   vt_gen_hostile ub OUT                 device 200 and sizes near 2^64
 *   vt_gen_hostile cut OUT                two 600 KiB chunks, the file cut in the second
 *   vt_gen_hostile lost OUT               a LOST record among allocations left live */
#define _POSIX_C_SOURCE 200809L /* truncate */
#include "vt_codec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#define VT_GH_CHUNK (16u << 20)

/* One trace at a time: a test tool, so plain file-scope state. */
static FILE *gh_out;
static vt_codec gh_codec;
static uint8_t *gh_raw;
static size_t gh_len, gh_limit = 1u << 20;
static uint32_t gh_nrec;
static uint64_t gh_base, gh_now;
static long gh_chunk_at[64];
static int gh_nchunks;

static void gh_die(const char *what)
{
    perror(what);
    exit(1);
}

static void gh_flush(void)
{
    if (!gh_len) return;
    size_t bound = ZSTD_compressBound(gh_len);
    uint8_t *z = malloc(bound);
    if (!z) gh_die("malloc");
    size_t zn = ZSTD_compress(z, bound, gh_raw, gh_len, 19);
    if (ZSTD_isError(zn)) gh_die("zstd");
    vt_chunk_header h = { VT_CHUNK_MAGIC, (uint32_t)zn, (uint32_t)gh_len, gh_nrec, gh_base };
    if (gh_nchunks < 64) gh_chunk_at[gh_nchunks++] = ftell(gh_out);
    if (fwrite(&h, sizeof h, 1, gh_out) != 1 || fwrite(z, 1, zn, gh_out) != zn) gh_die("write");
    free(z);
    gh_len = 0;
    gh_nrec = 0;
}

static void gh_emit(const vt_rec *r)
{
    if (gh_len + vt_codec_bound(r) > gh_limit) gh_flush();
    if (!gh_len) {
        gh_base = gh_now;
        vt_codec_reset(&gh_codec, gh_base);
    }
    gh_len += vt_codec_encode(&gh_codec, r, gh_raw + gh_len);
    gh_nrec++;
}

static void gh_blob(const char *s, size_t n)
{
    uint32_t len = (uint32_t)n;
    if (fwrite(&len, 4, 1, gh_out) != 1 || (n && fwrite(s, 1, n, gh_out) != n)) gh_die("write");
}

static void gh_begin(const char *path, const char *host, const char *argv, size_t argv_len)
{
    gh_out = fopen(path, "wb");
    if (!gh_out) gh_die(path);
    if (!gh_raw && !(gh_raw = malloc(VT_GH_CHUNK + 4096))) gh_die("malloc");
    const char *exe = "/opt/test/hostile";
    vt_file_header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, VT_MAGIC, VT_MAGIC_LEN);
    h.version_major = VT_VERSION_MAJOR;
    h.header_size = (uint32_t)(sizeof h + 12 + strlen(host) + strlen(exe) + argv_len);
    h.pid = 1017;
    h.ppid = 1;
    h.start_realtime_ns = 1795946400000000000ull; /* 2026-11-29 10:00:00 UTC */
    h.start_monotonic_ns = 5000000000ull;
    h.stack_depth = 64;
    h.rank = -1;
    if (fwrite(&h, sizeof h, 1, gh_out) != 1) gh_die("write");
    gh_blob(host, strlen(host));
    gh_blob(exe, strlen(exe));
    gh_blob(argv, argv_len);
}

static void gh_end(void)
{
    vt_rec t = { .type = VT_REC_TRAILER, .time_ns = gh_now, .flags = 1 };
    uint64_t counts[VT_REC_TYPE_MAX] = { 0 };
    t.counts = counts;
    gh_emit(&t);
    gh_flush();
    if (fclose(gh_out)) gh_die("close");
}

static void gh_module(const char *path, uint64_t bias, uint64_t size)
{
    vt_rec r = { .type = VT_REC_MODULE, .addr = bias, .size = size, .str = path,
                 .str_len = (uint32_t)strlen(path) };
    gh_emit(&r);
}

static void gh_alloc(int device, uint64_t addr, uint64_t size, uint32_t stack)
{
    gh_now += 1000;
    vt_rec r = { .type = VT_REC_ALLOC, .time_ns = gh_now, .tid = 7, .kind = VT_KIND_MEM_ALLOC,
                 .device = (int8_t)device, .addr = addr, .size = size, .stack_id = stack };
    gh_emit(&r);
}

static void gh_free(int device, uint64_t addr)
{
    gh_now += 1000;
    vt_rec r = { .type = VT_REC_FREE, .time_ns = gh_now, .tid = 7, .kind = VT_KIND_MEM_FREE,
                 .device = (int8_t)device, .addr = addr };
    gh_emit(&r);
}

static uint32_t gh_node(uint32_t id, uint32_t parent, unsigned kind, uint64_t value)
{
    vt_rec r = { .type = VT_REC_STACK, .id = id, .parent = parent, .kind = (uint8_t)kind, .addr = value };
    gh_emit(&r);
    return id;
}

static const char gh_argv[] = "train\0--steps\0" "10";

/* Frames in a module whose path is a FIFO: the symbolizer must not wait on it. */
static void gen_fifo(const char *module, const char *path)
{
    gh_begin(path, "testhost", gh_argv, sizeof gh_argv);
    gh_module(module, 0x400000, 0x100000);
    uint32_t s = gh_node(2, gh_node(1, 0, 0, 0x401234), 0, 0x405678);
    gh_alloc(0, 0x7f0000000000, 1 << 20, s);
    gh_end();
}

/* n distinct stacks of three frames, one allocation each, half of them freed. */
static void gen_stacks(uint64_t n, const char *path)
{
    gh_begin(path, "testhost", gh_argv, sizeof gh_argv);
    gh_module("/opt/test/absent-module.so", 0x400000, 0x10000000);
    uint32_t root = gh_node(1, 0, 0, 0x400100), mid = gh_node(2, root, 0, 0x400200);
    uint32_t id = 3;
    for (uint64_t i = 0; i < n; i++) {
        uint32_t leaf = gh_node(id++, mid, 0, 0x401000 + 16 * i);
        gh_alloc(0, 0x7f0000000000 + (i << 12), 4096 + (i & 1023), leaf);
        if (i & 1) gh_free(0, 0x7f0000000000 + (i << 12));
    }
    gh_end();
}

/* The same record 16 MiB worth per chunk: zstd makes it a few hundred bytes. */
static void gen_bomb(const char *path)
{
    gh_begin(path, "testhost", gh_argv, sizeof gh_argv);
    gh_alloc(0, 0x7f0000000000, 1 << 20, 0);
    gh_flush(); /* one honest chunk first: what was read before the bomb is reported */
    gh_limit = VT_GH_CHUNK;
    for (int c = 0; c < 8; c++) {
        vt_rec r = { .type = VT_REC_THREAD, .tid = 7, .str = "w", .str_len = 1 };
        vt_codec_reset(&gh_codec, gh_now);
        uint8_t one[64];
        size_t k = vt_codec_encode(&gh_codec, &r, one);
        gh_base = gh_now;
        for (gh_len = 0; gh_len + k <= VT_GH_CHUNK; gh_len += k) memcpy(gh_raw + gh_len, one, k);
        gh_nrec = (uint32_t)(gh_len / k);
        gh_flush();
    }
    gh_limit = 1u << 20;
    gh_end();
}

/* Control bytes in every name a text view prints: host, command line, module path,
 * thread, NVTX scope, Python file and function. */
static void gen_ctrl(const char *path)
{
    static const char argv[] = "train\x1b[2J\0--title\0\x1b]0;pwned\x07";
    gh_begin(path, "host\x1b[31mred", argv, sizeof argv);
    gh_module("/opt/test/\x1b[1mbold\x7f.so", 0x400000, 0x100000);
    vt_rec th = { .type = VT_REC_THREAD, .tid = 7, .str = "thr\x1b[Kead\r", .str_len = 10 };
    gh_emit(&th);
    vt_rec s1 = { .type = VT_REC_STRING, .id = 1, .str = "scope\x1b[5m", .str_len = 9 };
    vt_rec s2 = { .type = VT_REC_STRING, .id = 2, .str = "file\b\b.py", .str_len = 9 };
    vt_rec s3 = { .type = VT_REC_STRING, .id = 3, .str = "fn\x1b]8;;http://x\x07", .str_len = 16 };
    gh_emit(&s1);
    gh_emit(&s2);
    gh_emit(&s3);
    vt_rec pf = { .type = VT_REC_PYFRAME, .id = 1, .aux0 = 2, .aux1 = 3, .line = 12 };
    gh_emit(&pf);
    uint32_t n1 = gh_node(1, 0, 2, 1);         /* scope "scope\e[5m" */
    uint32_t n2 = gh_node(2, n1, 0, 0x401234); /* native, in the module */
    uint32_t n3 = gh_node(3, n2, 1, 1);        /* Python frame */
    gh_alloc(0, 0x7f0000000000, 3 << 20, n3);
    gh_alloc(0, 0x7f0000400000, 1 << 20, n2);
    gh_free(0, 0x7f0000400000);
    vt_rec dev = { .type = VT_REC_DEVICE, .device = 0, .size = 80ull << 30, .aux0 = 9,
                   .bytes = (const uint8_t *)"0123456789abcdef", .bytes_len = 16,
                   .str = "GPU\x1b[2J\x9b" "2J", .str_len = 9 };
    gh_emit(&dev);
    gh_end();
}

/* What UBSan found: devices the arrays cannot index, sizes near 2^64 in the category
 * inference's running totals, in a saw-tooth it looks for phases in. */
static void gen_ub(const char *path)
{
    gh_begin(path, "testhost", gh_argv, sizeof gh_argv);
    uint32_t s = gh_node(1, 0, 0, 0x401234);
    for (int dev = 126; dev < 256; dev += 37) {
        gh_alloc(dev, 0x7f0000000000 + (uint64_t)dev * 4096, 1 << 20, s);
        gh_free(dev, 0x7f0000000000 + (uint64_t)dev * 4096);
    }
    for (int it = 0; it < 12; it++) {
        for (int k = 0; k < 6; k++) gh_alloc(0, 0x7e0000000000 + (uint64_t)k * 4096, UINT64_MAX - (uint64_t)k, s + 0);
        for (int k = 0; k < 6; k++) gh_free(0, 0x7e0000000000 + (uint64_t)k * 4096);
    }
    gh_end();
}

/* A recorder that lost events (its ring stayed full): three of the allocations have no
 * free in the trace, and 2 events were lost, so up to 2 of them may not be leaks. */
static void gen_lost(const char *path)
{
    gh_begin(path, "testhost", gh_argv, sizeof gh_argv);
    uint32_t s = gh_node(1, 0, 0, 0x401234);
    for (int i = 0; i < 6; i++) gh_alloc(0, 0x7f0000000000 + ((uint64_t)i << 20), 1 << 20, s);
    gh_now += 1000;
    vt_rec lost = { .type = VT_REC_LOST, .time_ns = gh_now, .size = 2 };
    gh_emit(&lost);
    for (int i = 0; i < 3; i++) gh_free(0, 0x7f0000000000 + ((uint64_t)i << 20));
    gh_end();
}

/* Two chunks of ~600 KiB of records (several zstd blocks each), the file cut in the
 * middle of the second: the first is read whole, and the second's complete blocks. */
static void gen_cut(const char *path)
{
    gh_begin(path, "testhost", gh_argv, sizeof gh_argv);
    gh_limit = 600u << 10;
    uint32_t s = gh_node(1, 0, 0, 0x401234);
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < 100000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        gh_now += x & 0xffff;
        uint64_t addr = 0x7f0000000000 + ((uint64_t)i << 16);
        gh_alloc(0, addr, 512 + (x >> 40 & 0xfffff), s);
        if (i >= 8) gh_free(0, 0x7f0000000000 + ((uint64_t)(i - 8) << 16));
    }
    gh_limit = 1u << 20;
    gh_end();
    if (gh_nchunks < 3) { fprintf(stderr, "vt_gen_hostile: cut: too few chunks\n"); exit(1); }
    long at = gh_chunk_at[1] + (gh_chunk_at[2] - gh_chunk_at[1]) / 2;
    if (truncate(path, at)) gh_die("truncate");
}

int main(int argc, char **argv)
{
    if (argc == 4 && !strcmp(argv[1], "fifo")) gen_fifo(argv[2], argv[3]);
    else if (argc == 4 && !strcmp(argv[1], "stacks")) gen_stacks(strtoull(argv[2], NULL, 10), argv[3]);
    else if (argc == 3 && !strcmp(argv[1], "bomb")) gen_bomb(argv[2]);
    else if (argc == 3 && !strcmp(argv[1], "ctrl")) gen_ctrl(argv[2]);
    else if (argc == 3 && !strcmp(argv[1], "ub")) gen_ub(argv[2]);
    else if (argc == 3 && !strcmp(argv[1], "cut")) gen_cut(argv[2]);
    else if (argc == 3 && !strcmp(argv[1], "lost")) gen_lost(argv[2]);
    else {
        fprintf(stderr, "usage: vt_gen_hostile fifo MODULE OUT | stacks N OUT | bomb OUT | ctrl OUT | ub OUT | cut OUT | lost OUT\n");
        return 2;
    }
    return 0;
}
