/* SPDX-License-Identifier: MIT */ /* vt_gen.c - writes test traces in the real format, through vt_codec, for the CLI
 * golden tests (and big ones for benchmarks).
 *
 *   vt_gen SCENARIO OUT      scenarios: see the table at the end of this file
 *   vt_gen big N OUT         N alloc/free events over a few sites (benchmarks)
 *   vt_gen as-recorder [--spawn] [--exit N] [--kill]
 *                            behaves like a traced program: writes the `simple`
 *                            trace to $VRAMTRACE_OUTPUT (with %p expanded)
 *
 * Deterministic: fixed pid, host, start time and event times, so reports are stable.
 * The stacks are real: each allocation site below calls through libcudart_vtgen.so
 * and libvramtrace_vtgen.so (stand-ins for the CUDA runtime and the recorder) and
 * captures its own return addresses, and MODULE records describe this binary and those
 * libraries as loaded, so the analyzer symbolizes them for real. Built with -O0 -g so
 * each call stays on its line. */
#define _GNU_SOURCE
#include "vt_codec.h"

#include <elf.h>
#include <execinfo.h>
#include <limits.h>
#include <link.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#define MiB (1024ull * 1024ull)
#define GiB (1024ull * MiB)
#define MS  1000000ull
/* 2026-11-29 10:00:00 UTC */
#define T0_REALTIME 1795946400000000000ull

typedef void (*vt_gen_cb)(void *);
void cudart_vtgen_malloc(vt_gen_cb cb, void *ctx);
uint32_t vt_gen_cxx_site(int n);

/* ------------------------------------------------------------------------ *
 *  Writer (one trace at a time: a test tool, so plain globals)
 * ------------------------------------------------------------------------ */
static FILE *out;
static vt_codec codec;
static uint8_t chunk[1 << 20];
static size_t chunk_len, chunk_limit = 256;
static uint32_t chunk_nrec;
static uint64_t now;              /* ns since start */
static uint64_t counts[VT_REC_TYPE_MAX];
static uint64_t chunk_offsets[4096];
static size_t nchunks;
static int chunk_open;

static void die(const char *what)
{
    perror(what);
    exit(1);
}

static void flush_chunk(void)
{
    if (!chunk_open) return;
    chunk_open = 0;
    size_t bound = ZSTD_compressBound(chunk_len);
    uint8_t *z = malloc(bound);
    ZSTD_CCtx *cc = ZSTD_createCCtx();
    if (!z || !cc) die("zstd");
    /* Checksums, as the recorder writes them: a flipped byte is caught. */
    ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1);
    size_t zn = ZSTD_compress2(cc, z, bound, chunk, chunk_len);
    if (ZSTD_isError(zn)) die("zstd compress");
    vt_chunk_header h = { VT_CHUNK_MAGIC, (uint32_t)zn, (uint32_t)chunk_len, chunk_nrec, 0 };
    memcpy(&h.base_time_ns, chunk + sizeof chunk - 8, 8); /* stashed at chunk start */
    if (nchunks < 4096) chunk_offsets[nchunks++] = (uint64_t)ftell(out);
    if (fwrite(&h, sizeof h, 1, out) != 1 || fwrite(z, 1, zn, out) != zn) die("write");
    ZSTD_freeCCtx(cc);
    free(z);
    chunk_len = 0;
    chunk_nrec = 0;
}

static void start_chunk(void)
{
    chunk_open = 1;
    vt_codec_reset(&codec, now);
    memcpy(chunk + sizeof chunk - 8, &now, 8);
}

/* Appends bytes of one encoded record. */
static void put_raw(const uint8_t *p, size_t n, unsigned type)
{
    if (chunk_open && chunk_len + n > chunk_limit) flush_chunk();
    if (!chunk_open) start_chunk();
    memcpy(chunk + chunk_len, p, n);
    chunk_len += n;
    chunk_nrec++;
    if (type < VT_REC_TYPE_MAX) counts[type]++;
}

static void emit(vt_rec *r)
{
    uint8_t buf[4096];
    if (vt_codec_bound(r) > sizeof buf) die("record too big");
    if (chunk_open && chunk_len + vt_codec_bound(r) > chunk_limit) flush_chunk();
    if (!chunk_open) start_chunk();
    size_t n = vt_codec_encode(&codec, r, buf);
    put_raw(buf, n, r->type);
}

static void put_blob(const char *s, size_t n)
{
    uint32_t len = (uint32_t)n;
    if (fwrite(&len, 4, 1, out) != 1 || (n && fwrite(s, 1, n, out) != n)) die("write");
}

typedef struct {
    uint32_t pid;
    uint64_t realtime;
    const char *host, *exe;
    const char *argv;
    size_t argv_len;
    uint16_t minor;
    uint32_t extra_header;   /* bytes after the blobs (a later minor version's fields) */
    uint32_t depth;
} hdr_opts;

static void modules_emit(void);

static void begin(const char *path, const hdr_opts *o)
{
    out = fopen(path, "wb");
    if (!out) die(path);
    vt_file_header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, VT_MAGIC, VT_MAGIC_LEN);
    h.version_major = VT_VERSION_MAJOR;
    h.version_minor = o->minor;
    h.header_size = (uint32_t)(sizeof h + 12 + strlen(o->host) + strlen(o->exe) + o->argv_len + o->extra_header);
    h.pid = o->pid;
    h.ppid = 1;
    h.start_realtime_ns = o->realtime;
    h.start_monotonic_ns = 5000000000ull;
    h.stack_depth = o->depth;
    h.rank = -1;
    if (fwrite(&h, sizeof h, 1, out) != 1) die("write");
    put_blob(o->host, strlen(o->host));
    put_blob(o->exe, strlen(o->exe));
    put_blob(o->argv, o->argv_len);
    for (uint32_t i = 0; i < o->extra_header; i++) fputc(0xee, out);
    memset(counts, 0, sizeof counts);
    nchunks = 0;
    now = 0;
    chunk_len = 0;
    chunk_nrec = 0;
    chunk_open = 0;
    modules_emit();
}

/* as-recorder: the header carries the real start time, as the recorder's does. */
static int real_clock;

static void begin_simple(const char *path, uint32_t pid, const char *argv, size_t argv_len)
{
    uint64_t t0 = T0_REALTIME;
    if (real_clock) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        t0 = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
    }
    hdr_opts o = { pid, t0, "testhost", "/opt/test/train", argv, argv_len, 0, 0, 64 };
    begin(path, &o);
}

static void trailer(int clean)
{
    vt_rec r = { .type = VT_REC_TRAILER, .time_ns = now, .flags = clean ? 1 : 0 };
    counts[VT_REC_TRAILER]++;
    uint64_t c[VT_REC_TYPE_MAX];
    memcpy(c, counts, sizeof c);
    r.counts = c;
    counts[VT_REC_TRAILER]--;
    emit(&r);
}

static void end(void)
{
    flush_chunk();
    if (fclose(out)) die("close");
    out = NULL;
}

/* ------------------------------------------------------------------------ *
 *  Modules and stacks
 * ------------------------------------------------------------------------ */
typedef struct {
    char path[PATH_MAX];
    uint64_t bias, size;
    uint8_t id[64];
    uint32_t id_len;
} module;

static module mods[3]; /* this program, the runtime and recorder stand-ins */
static int nmods;

static int phdr_cb(struct dl_phdr_info *info, size_t sz, void *arg)
{
    (void)sz;
    (void)arg;
    const char *name = info->dlpi_name;
    int main_prog = !name || !*name;
    if (!main_prog && !strstr(name, "libcudart_vtgen") && !strstr(name, "libvramtrace_vtgen")) return 0;
    if (nmods == 3) return 0;
    module *m = &mods[nmods++];
    memset(m, 0, sizeof *m);
    if (main_prog) {
        if (!realpath("/proc/self/exe", m->path)) die("realpath");
    } else if (!realpath(name, m->path)) {
        snprintf(m->path, sizeof m->path, "%s", name);
    }
    m->bias = info->dlpi_addr;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *p = &info->dlpi_phdr[i];
        if (p->p_type == PT_LOAD && p->p_vaddr + p->p_memsz > m->size) m->size = p->p_vaddr + p->p_memsz;
        if (p->p_type == PT_NOTE) {
            const uint8_t *n = (const uint8_t *)(info->dlpi_addr + p->p_vaddr), *e = n + p->p_memsz;
            while (n + sizeof(ElfW(Nhdr)) <= e) {
                const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)n;
                const uint8_t *nm = n + sizeof *nh, *desc = nm + ((nh->n_namesz + 3) & ~3u);
                if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && !memcmp(nm, "GNU", 4) &&
                    nh->n_descsz <= sizeof m->id) {
                    memcpy(m->id, desc, nh->n_descsz);
                    m->id_len = nh->n_descsz;
                }
                n = desc + ((nh->n_descsz + 3) & ~3u);
            }
        }
    }
    return 0;
}

static void modules_emit(void)
{
    if (!nmods) dl_iterate_phdr(phdr_cb, NULL);
    for (int i = 0; i < nmods; i++) {
        vt_rec r = { .type = VT_REC_MODULE, .addr = mods[i].bias, .size = mods[i].size,
                     .bytes = mods[i].id, .bytes_len = mods[i].id_len, .str = mods[i].path,
                     .str_len = (uint32_t)strlen(mods[i].path) };
        emit(&r);
    }
}

static int in_modules(uint64_t ip)
{
    for (int i = 0; i < nmods; i++)
        if (ip - 1 >= mods[i].bias && ip - 1 < mods[i].bias + mods[i].size) return 1;
    return 0;
}

typedef struct { uint8_t kind; uint64_t value; } frame;

/* Stack tree nodes of the current trace: (parent, kind, value) -> id. */
static struct { uint32_t parent; uint8_t kind; uint64_t value; } nodes[4096];
static uint32_t nnodes;

/* Interns the stack f[0..n) (innermost first); returns the id of its innermost node. */
static uint32_t make_stack(const frame *f, int n)
{
    uint32_t parent = 0;
    for (int i = n - 1; i >= 0; i--) {
        uint32_t id = 0;
        for (uint32_t k = 0; k < nnodes; k++)
            if (nodes[k].parent == parent && nodes[k].kind == f[i].kind && nodes[k].value == f[i].value) {
                id = k + 1;
                break;
            }
        if (!id) {
            if (nnodes == 4096) die("too many stack nodes");
            nodes[nnodes].parent = parent;
            nodes[nnodes].kind = f[i].kind;
            nodes[nnodes].value = f[i].value;
            id = ++nnodes;
            vt_rec r = { .type = VT_REC_STACK, .id = id, .parent = parent, .kind = f[i].kind, .addr = f[i].value };
            emit(&r);
        }
        parent = id;
    }
    return parent;
}

/* The native frames of the current call, from the "recorder" frame out to main. */
static frame captured[64];
static int ncaptured;
uint32_t vt_gen_stack;
static int python_mode;         /* keep only the plumbing frames; Python frames follow */

void vt_gen_capture(void *ctx)
{
    (void)ctx;
    void *ips[64];
    int n = backtrace(ips, 64);
    ncaptured = 0;
    /* ips[0] is in this function (the real recorder's own frames are in libvramtrace);
     * past main come libc and _start, which vary by machine. */
    for (int i = 1; i < n; i++) {
        uint64_t ip = (uint64_t)(uintptr_t)ips[i];
        if (!in_modules(ip)) break;
        if (python_mode && i > 2) break;
        captured[ncaptured].kind = VT_FRAME_NATIVE;
        captured[ncaptured++].value = ip;
    }
    vt_gen_stack = 0;
}

/* Turns the last capture into a stack id (plus extra outer frames). */
static uint32_t stack_of_capture(const frame *outer, int nouter)
{
    frame f[96];
    int n = 0;
    for (int i = 0; i < ncaptured; i++) f[n++] = captured[i];
    for (int i = 0; i < nouter; i++) f[n++] = outer[i];
    return make_stack(f, n);
}

#define CAPTURE() (cudart_vtgen_malloc(vt_gen_capture, NULL), stack_of_capture(NULL, 0))

/* ------------------------------------------------------------------------ *
 *  Allocation sites (their names and lines are in the golden files)
 * ------------------------------------------------------------------------ */
static __attribute__((noinline)) uint32_t alloc_weights(void)
{
    return CAPTURE();
}

static __attribute__((noinline)) uint32_t alloc_activations(void)
{
    return CAPTURE();
}

static __attribute__((noinline)) uint32_t alloc_workspace(void)
{
    return CAPTURE();
}

static __attribute__((noinline)) uint32_t kv_cache(void)
{
    vt_gen_cxx_site(1);
    return stack_of_capture(NULL, 0);
}

static __attribute__((noinline)) uint32_t build_model(int which)
{
    uint32_t s = which == 0 ? alloc_weights() : which == 1 ? alloc_activations()
               : which == 2 ? alloc_workspace() : kv_cache();
    return s;
}

/* ------------------------------------------------------------------------ *
 *  Records
 * ------------------------------------------------------------------------ */
static uint32_t tid = 1000;

static void at(uint64_t t) { now = t; }

static void alloc_(unsigned kind, int dev, uint64_t addr, uint64_t size, uint32_t stack)
{
    vt_rec r = { .type = VT_REC_ALLOC, .kind = (uint8_t)kind, .device = (int8_t)dev, .tid = tid,
                 .stack_id = stack, .time_ns = now, .addr = addr, .size = size };
    emit(&r);
}

static void free_(unsigned kind, int dev, uint64_t addr)
{
    vt_rec r = { .type = VT_REC_FREE, .kind = (uint8_t)kind, .device = (int8_t)dev, .tid = tid,
                 .time_ns = now, .addr = addr };
    emit(&r);
}

static void vmm(unsigned op, uint64_t addr, uint64_t size, uint64_t aux0, uint64_t aux1)
{
    vt_rec r = { .type = VT_REC_VMM, .kind = (uint8_t)op, .device = 0, .tid = tid, .time_ns = now,
                 .addr = addr, .size = size, .aux0 = aux0, .aux1 = aux1 };
    emit(&r);
}

static void oom(unsigned kind, uint64_t size, uint32_t stack, uint64_t free_b, uint64_t total)
{
    vt_rec r = { .type = VT_REC_OOM, .kind = (uint8_t)kind, .device = 0, .tid = tid, .time_ns = now,
                 .size = size, .stack_id = stack, .aux0 = free_b, .aux1 = total };
    emit(&r);
}

static void device(int dev, const char *name, uint64_t total, int with_uuid)
{
    uint8_t uuid[16];
    for (int i = 0; i < 16; i++) uuid[i] = (uint8_t)(0x10 * (dev + 1) + i);
    vt_rec r = { .type = VT_REC_DEVICE, .device = (int8_t)dev, .size = total, .aux0 = 9, .aux1 = 0,
                 .bytes = with_uuid ? uuid : NULL, .bytes_len = with_uuid ? 16 : 0, .str = name,
                 .str_len = (uint32_t)strlen(name) };
    emit(&r);
}

static void preamble(void)
{
    nnodes = 0;
    device(0, "Test GPU 80GB", 80 * GiB, 1);
    vt_rec d = { .type = VT_REC_DRIVER, .time_ns = 0, .aux0 = 13000 };
    emit(&d);
    vt_rec t = { .type = VT_REC_THREAD, .tid = tid, .str = "main", .str_len = 4 };
    emit(&t);
}

static void string_(uint32_t id, const char *s)
{
    vt_rec r = { .type = VT_REC_STRING, .id = id, .str = s, .str_len = (uint32_t)strlen(s) };
    emit(&r);
}

/* ------------------------------------------------------------------------ *
 *  Scenarios
 * ------------------------------------------------------------------------ */
#define A0 0x7f0000000000ull
static const char argv_train[] = "train\0--steps\0" "10";

/* Peak 4.5 MiB at 4 ms: weights 2 MiB (2 live), activations 2 MiB, kv cache 512 KiB. */
static void body_simple(void)
{
    preamble();
    uint32_t w = build_model(0), a = build_model(1), k = build_model(3);
    at(1 * MS); alloc_(VT_KIND_MEM_ALLOC, 0, A0, 1 * MiB, w);
    at(2 * MS); alloc_(VT_KIND_MEM_ALLOC, 0, A0 + 1 * MiB, 1 * MiB, w);
    at(3 * MS); alloc_(VT_KIND_MEM_ALLOC_ASYNC, 0, A0 + 2 * MiB, 2 * MiB, a);
    at(4 * MS); alloc_(VT_KIND_MEM_ALLOC, 0, A0 + 4 * MiB, 512 * 1024, k);
    at(5 * MS); free_(VT_KIND_MEM_FREE_ASYNC, 0, A0 + 2 * MiB);
    at(6 * MS); alloc_(VT_KIND_MEM_ALLOC_ASYNC, 0, A0 + 2 * MiB, 1 * MiB, a);
    at(7 * MS); free_(VT_KIND_MEM_FREE_ASYNC, 0, A0 + 2 * MiB);
    at(8 * MS); free_(VT_KIND_MEM_FREE, 0, A0 + 4 * MiB);
    at(9 * MS); free_(VT_KIND_MEM_FREE, 0, A0);
    at(10 * MS); free_(VT_KIND_MEM_FREE, 0, A0 + 1 * MiB);
}

static void gen_simple(const char *path)
{
    begin_simple(path, 1000, argv_train, sizeof argv_train);
    body_simple();
    at(11 * MS);
    trailer(1);
    end();
}

/* VMM: physical memory lives from cuMemCreate until its references and mappings are
 * gone. Peak 6 MiB at 5 ms (H1 2 MiB + H2 4 MiB); 1 MiB (H3, released but still mapped)
 * live at the end. */
static void gen_vmm(const char *path)
{
    begin_simple(path, 1001, argv_train, sizeof argv_train);
    preamble();
    uint32_t w = build_model(0), a = build_model(1), ws = build_model(2);
    const uint64_t VA = 0x200000000ull;
    at(1 * MS); alloc_(VT_KIND_VMM_CREATE, 0, 0x100, 2 * MiB, w);
    at(2 * MS); vmm(VT_VMM_RESERVE, VA, 16 * MiB, 2 * MiB, 0);
    at(3 * MS); vmm(VT_VMM_MAP, VA, 2 * MiB, 0, 0x100);
    at(4 * MS); free_(VT_KIND_VMM_RELEASE, 0, 0x100);         /* release before unmap: still live */
    at(5 * MS); alloc_(VT_KIND_VMM_CREATE, 0, 0x200, 4 * MiB, a);
    at(6 * MS); vmm(VT_VMM_MAP, VA + 2 * MiB, 4 * MiB, 0, 0x200);
    at(7 * MS); vmm(VT_VMM_RETAIN, VA + 2 * MiB, 0, 0, 0x200);  /* a second reference */
    at(8 * MS); vmm(VT_VMM_UNMAP, VA, 6 * MiB, 0, 0);          /* both mappings: H1 goes */
    at(9 * MS); free_(VT_KIND_VMM_RELEASE, 0, 0x200);          /* one reference left */
    at(10 * MS); free_(VT_KIND_VMM_RELEASE, 0, 0x200);         /* H2 goes */
    at(11 * MS); alloc_(VT_KIND_VMM_CREATE, 0, 0x300, 1 * MiB, ws);
    at(12 * MS); vmm(VT_VMM_MAP, VA + 8 * MiB, 1 * MiB, 0, 0x300);
    at(13 * MS); free_(VT_KIND_VMM_RELEASE, 0, 0x300);         /* mapped: stays live */
    at(14 * MS);
    trailer(1);
    end();
}

/* Peak 4 MiB; an 8 GiB request fails with 512 MiB free of 80 GiB. */
static void gen_oom(const char *path)
{
    begin_simple(path, 1002, argv_train, sizeof argv_train);
    preamble();
    uint32_t w = build_model(0), a = build_model(1), k = build_model(3);
    at(1 * MS); alloc_(VT_KIND_MEM_ALLOC, 0, A0, 3 * MiB, w);
    at(2 * MS); alloc_(VT_KIND_MEM_ALLOC, 0, A0 + 3 * MiB, 1 * MiB, a);
    at(3 * MS); oom(VT_KIND_MEM_ALLOC, 8 * GiB, k, 512 * MiB, 80 * GiB);
    at(4 * MS); free_(VT_KIND_MEM_FREE, 0, A0 + 3 * MiB);
    at(5 * MS); free_(VT_KIND_MEM_FREE, 0, A0);
    at(6 * MS);
    trailer(1);
    end();
}

/* 2.75 MiB in 4 allocations live at the end; one free of an address never allocated. */
static void gen_leak(const char *path)
{
    begin_simple(path, 1003, argv_train, sizeof argv_train);
    preamble();
    uint32_t w = build_model(0), a = build_model(1), k = build_model(3);
    at(1 * MS); alloc_(VT_KIND_MEM_ALLOC, 0, A0, 2 * MiB, w);
    at(2 * MS); alloc_(VT_KIND_MEM_ALLOC, 0, A0 + 2 * MiB, 1 * MiB, a);
    for (int i = 0; i < 3; i++) {
        at((3 + (uint64_t)i) * MS);
        alloc_(VT_KIND_MEM_ALLOC, 0, A0 + 4 * MiB + (uint64_t)i * 256 * 1024, 256 * 1024, k);
    }
    at(7 * MS); free_(VT_KIND_MEM_FREE, 0, A0 + 2 * MiB);
    at(8 * MS); free_(VT_KIND_MEM_FREE, 0, 0xdead0000);
    at(9 * MS);
    trailer(1);
    end();
}

/* One program at two batch sizes: weights 4 MiB both; activations 2 MiB -> 6 MiB;
 * kv cache 1 MiB -> 512 KiB. Peaks 7 MiB and 10.5 MiB: +3.5 MiB, of which the
 * activations site grew +4 MiB and the kv cache shrank 512 KiB. */
static void gen_batch(const char *path, int big)
{
    begin_simple(path, big ? 1005 : 1004, argv_train, sizeof argv_train);
    preamble();
    uint32_t w = build_model(0), a = build_model(1), k = build_model(3);
    uint64_t act = big ? 3 * MiB : 1 * MiB, kv = big ? 512 * 1024 : 1 * MiB;
    at(1 * MS); alloc_(VT_KIND_MEM_ALLOC, 0, A0, 4 * MiB, w);
    at(2 * MS); alloc_(VT_KIND_MEM_ALLOC, 0, A0 + 4 * MiB, kv, k);
    at(3 * MS); alloc_(VT_KIND_MEM_ALLOC_ASYNC, 0, A0 + 8 * MiB, act, a);
    at(4 * MS); alloc_(VT_KIND_MEM_ALLOC_ASYNC, 0, A0 + 16 * MiB, act, a);
    at(5 * MS); free_(VT_KIND_MEM_FREE_ASYNC, 0, A0 + 16 * MiB);
    at(6 * MS); free_(VT_KIND_MEM_FREE_ASYNC, 0, A0 + 8 * MiB);
    at(7 * MS); free_(VT_KIND_MEM_FREE, 0, A0 + 4 * MiB);
    at(8 * MS); free_(VT_KIND_MEM_FREE, 0, A0);
    at(9 * MS);
    trailer(1);
    end();
}

/* Pinned host memory (64 MiB) and managed memory (8 MiB) are reported apart from the
 * device peak (1 MiB). */
static void gen_pinned(const char *path)
{
    begin_simple(path, 1006, argv_train, sizeof argv_train);
    preamble();
    uint32_t w = build_model(0), ws = build_model(2);
    at(1 * MS); alloc_(VT_KIND_HOST_ALLOC_HOST, 0, 0x7e0000000000ull, 64 * MiB, ws);
    at(2 * MS); alloc_(VT_KIND_MEM_ALLOC, 0, A0, 1 * MiB, w);
    at(3 * MS); alloc_(VT_KIND_MEM_ALLOC_MANAGED, 0, A0 + 16 * MiB, 8 * MiB, w);
    at(4 * MS); free_(VT_KIND_MEM_FREE, 0, A0);
    at(5 * MS); free_(VT_KIND_HOST_FREE, 0, 0x7e0000000000ull);
    at(6 * MS);
    trailer(1);
    end();
}

static void nvml(int index, uint64_t proc_plus1, uint64_t used, uint64_t total)
{
    vt_rec r = { .type = VT_REC_NVML, .device = (int8_t)index, .time_ns = now, .aux0 = proc_plus1,
                 .size = used, .aux1 = total };
    emit(&r);
}

/* NVML: on device 0 the process used at most 900 MiB while 300 MiB were traced live
 * (600 MiB unexplained). Device 1 has no UUIDs and no process figure. */
static void gen_nvml(const char *path)
{
    begin_simple(path, 1007, argv_train, sizeof argv_train);
    preamble();
    device(1, "Test GPU B", 16 * GiB, 0);
    char u[64];
    snprintf(u, sizeof u, "GPU-10111213-1415-1617-1819-1a1b1c1d1e1f");
    vt_rec nd = { .type = VT_REC_NVML_DEVICE, .device = 0, .str = u, .str_len = (uint32_t)strlen(u) };
    emit(&nd);
    uint32_t w = build_model(0), a = build_model(1);
    at(1 * MS); nvml(0, 300 * MiB + 1, 1 * GiB, 80 * GiB); nvml(1, 0, 2 * GiB, 16 * GiB);
    at(2 * MS); alloc_(VT_KIND_MEM_ALLOC, 0, A0, 100 * MiB, w);
    at(3 * MS); nvml(0, 612 * MiB + 1, 1 * GiB + 300 * MiB, 80 * GiB);
    at(4 * MS); alloc_(VT_KIND_MEM_ALLOC, 0, A0 + 128 * MiB, 200 * MiB, a);
    at(5 * MS); nvml(0, 900 * MiB + 1, 1 * GiB + 600 * MiB, 80 * GiB);
    at(6 * MS); alloc_(VT_KIND_MEM_ALLOC, 1, A0 + 1 * GiB, 10 * MiB, w);
    at(7 * MS); nvml(1, 0, 3 * GiB, 16 * GiB);
    at(8 * MS); free_(VT_KIND_MEM_FREE, 0, A0 + 128 * MiB);
    at(9 * MS); nvml(0, 700 * MiB + 1, 1 * GiB + 400 * MiB, 80 * GiB);
    at(10 * MS); free_(VT_KIND_MEM_FREE, 0, A0); free_(VT_KIND_MEM_FREE, 1, A0 + 1 * GiB);
    at(11 * MS);
    trailer(1);
    end();
}

/* Two processes on one GPU, the second started 1 ms after the first. On the common
 * clock: A holds 4 MiB over 1..3 ms; B 2 MiB over 2..5 ms and 4 MiB over 4..6 ms. The
 * peaks are 4 and 6 MiB, but the peak of the sum is 6 MiB (at 2 ms), not 10. */
static void gen_multi(const char *path, int second)
{
    hdr_opts o = { second ? 1011 : 1010, T0_REALTIME + (second ? 1 * MS : 0), "testhost", "/opt/test/train",
                   argv_train, sizeof argv_train, 0, 0, 64 };
    begin(path, &o);
    preamble();
    uint32_t w = build_model(0), a = build_model(1);
    if (!second) {
        at(1 * MS); alloc_(VT_KIND_MEM_ALLOC, 0, A0, 4 * MiB, w);
        at(3 * MS); free_(VT_KIND_MEM_FREE, 0, A0);
        at(7 * MS);
    } else { /* times on its own clock: 1 ms less */
        at(1 * MS); alloc_(VT_KIND_MEM_ALLOC, 0, A0, 2 * MiB, a);
        at(3 * MS); alloc_(VT_KIND_MEM_ALLOC, 0, A0 + 4 * MiB, 4 * MiB, w);
        at(4 * MS); free_(VT_KIND_MEM_FREE, 0, A0);
        at(5 * MS); free_(VT_KIND_MEM_FREE, 0, A0 + 4 * MiB);
        at(6 * MS);
    }
    trailer(1);
    end();
}

/* Python frames (PYFRAME/STRING records) outside the native ones, and an NVTX scope. */
static void gen_python(const char *path)
{
    static const char argv_py[] = "python\0train.py";
    begin_simple(path, 1012, argv_py, sizeof argv_py);
    preamble();
    string_(1, "model.py");
    string_(2, "forward");
    string_(3, "train.py");
    string_(4, "train_step");
    string_(5, "<module>");
    string_(6, "step 3");
    vt_rec pf[3] = {
        { .type = VT_REC_PYFRAME, .id = 1, .aux0 = 1, .aux1 = 2, .line = 42 },
        { .type = VT_REC_PYFRAME, .id = 2, .aux0 = 3, .aux1 = 4, .line = 17 },
        { .type = VT_REC_PYFRAME, .id = 3, .aux0 = 3, .aux1 = 5, .line = 88 },
    };
    for (int i = 0; i < 3; i++) emit(&pf[i]);
    python_mode = 1;
    cudart_vtgen_malloc(vt_gen_capture, NULL);
    python_mode = 0;
    frame outer[4] = { { VT_FRAME_PYTHON, 1 }, { VT_FRAME_SCOPE, 6 }, { VT_FRAME_PYTHON, 2 }, { VT_FRAME_PYTHON, 3 } };
    uint32_t s = stack_of_capture(outer, 4);
    frame outer2[2] = { { VT_FRAME_PYTHON, 2 }, { VT_FRAME_PYTHON, 3 } };
    python_mode = 1;
    cudart_vtgen_malloc(vt_gen_capture, NULL);
    python_mode = 0;
    uint32_t s2 = stack_of_capture(outer2, 2);
    at(1 * MS); alloc_(VT_KIND_MEM_ALLOC_ASYNC, 0, A0, 3 * MiB, s);
    at(2 * MS); alloc_(VT_KIND_MEM_ALLOC_ASYNC, 0, A0 + 4 * MiB, 1 * MiB, s2);
    at(3 * MS); free_(VT_KIND_MEM_FREE_ASYNC, 0, A0);
    at(4 * MS); free_(VT_KIND_MEM_FREE_ASYNC, 0, A0 + 4 * MiB);
    at(5 * MS);
    trailer(1);
    end();
}

/* Compatibility: minor version 9 with extra header bytes, a record type this reader
 * does not know, a known record with extra trailing fields, a LOST record and a lookup
 * the recorder could not wrap. Peak 3 MiB. */
static void gen_compat(const char *path)
{
    hdr_opts o = { 1013, T0_REALTIME, "testhost", "/opt/test/train", argv_train, sizeof argv_train, 9, 16, 64 };
    begin(path, &o);
    preamble();
    uint32_t w = build_model(0), a = build_model(1);
    at(1 * MS); alloc_(VT_KIND_MEM_ALLOC, 0, A0, 1 * MiB, w);
    const uint8_t unknown[] = { 30, 3, 0x01, 0x02, 0x03 };
    put_raw(unknown, sizeof unknown, 30);
    /* an ALLOC with two more varints after its known fields */
    at(2 * MS);
    vt_rec r = { .type = VT_REC_ALLOC, .kind = VT_KIND_MEM_ALLOC, .device = 0, .tid = tid, .stack_id = a,
                 .time_ns = now, .addr = A0 + 1 * MiB, .size = 2 * MiB };
    uint8_t buf[256], ext[260];
    if (chunk_open && chunk_len + 300 > chunk_limit) flush_chunk();
    if (!chunk_open) start_chunk();
    size_t n = vt_codec_encode(&codec, &r, buf);
    size_t plen = buf[1]; /* one length byte: payloads here are < 128 bytes */
    ext[0] = buf[0];
    ext[1] = (uint8_t)(plen + 2);
    memcpy(ext + 2, buf + 2, plen);
    ext[2 + plen] = 0x05;
    ext[3 + plen] = 0x07;
    (void)n;
    put_raw(ext, plen + 4, VT_REC_ALLOC);
    at(3 * MS);
    vt_rec lost = { .type = VT_REC_LOST, .time_ns = now, .size = 5 };
    emit(&lost);
    vt_rec lk = { .type = VT_REC_LOOKUP, .time_ns = now, .tid = tid, .aux0 = VT_LOOKUP_GETPROC_V2,
                  .flags = VT_RF_UNWRAPPED, .addr = 0x1234, .str = "cuMemAlloc_v9", .str_len = 13 };
    emit(&lk);
    at(4 * MS); free_(VT_KIND_MEM_FREE, 0, A0 + 1 * MiB);
    at(5 * MS); free_(VT_KIND_MEM_FREE, 0, A0);
    at(6 * MS);
    trailer(1);
    end();
}

/* VRAMTRACE_DEPTH=0: no stacks at all. */
static void gen_nostack(const char *path)
{
    hdr_opts o = { 1014, T0_REALTIME, "testhost", "/opt/test/train", argv_train, sizeof argv_train, 0, 0, 0 };
    begin(path, &o);
    preamble();
    at(1 * MS); alloc_(VT_KIND_MEM_ALLOC, 0, A0, 1 * MiB, 0);
    at(2 * MS); alloc_(VT_KIND_MEM_ALLOC_PITCH, 0, A0 + 1 * MiB, 1 * MiB, 0);
    at(3 * MS); alloc_(VT_KIND_ARRAY, 0, 0x42, 256 * 1024, 0);
    at(4 * MS); free_(VT_KIND_ARRAY_DESTROY, 0, 0x42);
    at(5 * MS);
    trailer(1);
    end();
}

/* Damaged copies of `simple`. */
static long file_size(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) die(path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fclose(f);
    return n;
}

static void patch(const char *path, long off, uint8_t x)
{
    FILE *f = fopen(path, "r+b");
    if (!f) die(path);
    fseek(f, off, SEEK_SET);
    int c = fgetc(f);
    fseek(f, off, SEEK_SET);
    fputc((uint8_t)c ^ x, f);
    fclose(f);
}

static void gen_damaged(const char *path, const char *how)
{
    gen_simple(path);
    if (nchunks < 4) { fprintf(stderr, "vt_gen: too few chunks\n"); exit(1); }
    if (!strcmp(how, "truncated")) {
        /* cut in the middle of the chunk that holds the frees after the peak */
        long cut = (long)(chunk_offsets[nchunks - 3] + (chunk_offsets[nchunks - 2] - chunk_offsets[nchunks - 3]) / 2);
        if (truncate(path, cut)) die("truncate");
    } else if (!strcmp(how, "corrupt-magic")) {
        patch(path, (long)chunk_offsets[nchunks - 3], 0x20);
    } else if (!strcmp(how, "corrupt-zstd")) {
        /* a byte in the middle of the compressed data: the checksum catches it */
        patch(path, (long)(chunk_offsets[nchunks - 3] + (chunk_offsets[nchunks - 2] - chunk_offsets[nchunks - 3]) / 2), 0x5a);
    } else if (!strcmp(how, "notrailer")) {
        if (truncate(path, (long)chunk_offsets[nchunks - 1])) die("truncate");
    } else if (!strcmp(how, "header-cut")) {
        if (truncate(path, 30)) die("truncate");
    } else if (!strcmp(how, "version2")) {
        patch(path, 8, 0x03); /* version_major 1 -> 2 */
    }
    (void)file_size;
}

/* Many events over a few sites, for benchmarks: a sliding window of live blocks,
 * about half allocations and half frees. */
static void gen_big(const char *path, uint64_t n)
{
    hdr_opts o = { 1020, T0_REALTIME, "benchhost", "/opt/test/bench", argv_train, sizeof argv_train, 0, 0, 64 };
    chunk_limit = 512 * 1024;
    begin(path, &o);
    preamble();
    uint32_t s[4] = { build_model(0), build_model(1), build_model(2), build_model(3) };
    enum { WINDOW = 4096 };
    static uint64_t ring_addr[WINDOW];
    static unsigned ring_kind[WINDOW];
    size_t head = 0, count = 0;
    uint64_t seed = 12345, next = A0;
    for (uint64_t i = 0; i < n; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        now += 100 + (seed >> 58);
        if (count == WINDOW || (count > WINDOW / 2 && ((seed >> 50) & 1))) {
            unsigned k = ring_kind[head];
            free_(k == VT_KIND_MEM_ALLOC_ASYNC ? VT_KIND_MEM_FREE_ASYNC : VT_KIND_MEM_FREE, 0, ring_addr[head]);
            head = (head + 1) % WINDOW;
            count--;
        } else {
            unsigned kind = ((seed >> 40) & 1) ? VT_KIND_MEM_ALLOC_ASYNC : VT_KIND_MEM_ALLOC;
            size_t slot = (head + count) % WINDOW;
            ring_addr[slot] = next;
            ring_kind[slot] = kind;
            alloc_(kind, 0, next, 4096 + ((seed >> 20) & 0xffff), s[(seed >> 33) & 3]);
            next += 1 << 17;
            count++;
        }
    }
    trailer(1);
    end();
}

/* ------------------------------------------------------------------------ *
 *  As a traced program, for `vramtrace run` tests
 * ------------------------------------------------------------------------ */
static int as_recorder(int argc, char **argv, const char *self)
{
    int spawn = 0, code = 0, killme = 0;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--spawn")) spawn = 1;
        else if (!strcmp(argv[i], "--exit") && i + 1 < argc) code = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--kill")) killme = 1;
    }
    const char *pat = getenv("VRAMTRACE_OUTPUT");
    const char *pre = getenv("LD_PRELOAD");
    printf("LD_PRELOAD has the recorder: %s\n", pre && strstr(pre, "vtgen") ? "yes" : "no");
    fflush(stdout);
    if (!pat) pat = "vramtrace-%p.vtrace";
    char owner[32];
    const char *o = getenv("VRAMTRACE_OWNER_PID");
    int descendant = o && atoi(o) != (int)getpid();
    if (!o) {
        snprintf(owner, sizeof owner, "%d", (int)getpid());
        setenv("VRAMTRACE_OWNER_PID", owner, 1);
    }
    if (spawn) {
        pid_t c = fork();
        if (c == 0) {
            execl(self, self, "as-recorder", (char *)NULL);
            _exit(127);
        }
        waitpid(c, NULL, 0);
    }
    char path[PATH_MAX];
    size_t k = 0;
    int has_p = 0;
    for (const char *p = pat; *p && k + 16 < sizeof path; p++) {
        if (p[0] == '%' && p[1] == 'p') {
            k += (size_t)snprintf(path + k, sizeof path - k, "%d", (int)getpid());
            p++;
            has_p = 1;
        } else if (p[0] == '%' && p[1] == '%') {
            path[k++] = '%';
            p++;
        } else {
            path[k++] = *p;
        }
    }
    path[k] = 0;
    if (descendant && !has_p) {
        size_t l = strlen(path);
        snprintf(path + l, sizeof path - l, ".%d", (int)getpid());
    }
    real_clock = 1; void vt_gen_as_rank(char *, size_t, int); vt_gen_as_rank(path, sizeof path, 0);  /* one line: main's keep theirs */
    gen_simple(path);
    /* The real pid in the header, as the recorder writes it (`vramtrace run` takes only
     * its own command's traces). Patched here, not in begin_simple: the golden reports
     * name code offsets of the functions above. */
    uint32_t me = (uint32_t)getpid();
    FILE *hf = fopen(path, "r+b");
    if (!hf || fseek(hf, offsetof(vt_file_header, pid), SEEK_SET) || fwrite(&me, 4, 1, hf) != 1 || fclose(hf)) return 2;
    vt_gen_as_rank(path, sizeof path, 1); if (killme) raise(SIGTERM);
    return code;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "as-recorder")) return as_recorder(argc - 2, argv + 2, argv[0]);
    if (argc == 4 && !strcmp(argv[1], "big")) {
        gen_big(argv[3], strtoull(argv[2], NULL, 10));
        return 0;
    }
    if (argc != 3) {
        fprintf(stderr, "usage: vt_gen SCENARIO OUT | vt_gen big N OUT | vt_gen as-recorder [...]\n");
        return 2;
    }
    const char *s = argv[1], *p = argv[2];
    if (!strcmp(s, "simple")) gen_simple(p);
    else if (!strcmp(s, "vmm")) gen_vmm(p);
    else if (!strcmp(s, "oom")) gen_oom(p);
    else if (!strcmp(s, "leak")) gen_leak(p);
    else if (!strcmp(s, "batch-small") || !strcmp(s, "batch-big"))
        gen_batch(p, !strcmp(s, "batch-big")); /* one call line: the two runs' stacks match */
    else if (!strcmp(s, "pinned")) gen_pinned(p);
    else if (!strcmp(s, "nvml")) gen_nvml(p);
    else if (!strcmp(s, "multi-a") || !strcmp(s, "multi-b"))
        gen_multi(p, !strcmp(s, "multi-b"));
    else if (!strcmp(s, "python")) gen_python(p);
    else if (!strcmp(s, "compat")) gen_compat(p);
    else if (!strcmp(s, "nostack")) gen_nostack(p);
    else if (!strcmp(s, "marks")) {
        void vt_gen_marks(const char *path); /* below main: the golden files name main's lines */
        vt_gen_marks(p);
    }
    else if (!strcmp(s, "truncated") || !strcmp(s, "corrupt-magic") || !strcmp(s, "corrupt-zstd") ||
             !strcmp(s, "notrailer") || !strcmp(s, "header-cut") || !strcmp(s, "version2"))
        gen_damaged(p, s);
    else if (!strncmp(s, "train-", 6)) { void vt_gen_train(const char *, unsigned, int); vt_gen_train(p, (unsigned)atoi(s + 6), 0); }
    else if (!strncmp(s, "trainz-", 7)) { void vt_gen_train(const char *, unsigned, int); vt_gen_train(p, (unsigned)atoi(s + 7), 1); }
    else if (!strcmp(s, "ckpt-0") || !strcmp(s, "ckpt-1")) { void vt_gen_ckpt(const char *, int); vt_gen_ckpt(p, s[5] == '1'); }
    else if (!strncmp(s, "rank-", 5)) { void vt_gen_rank(const char *, unsigned); vt_gen_rank(p, (unsigned)atoi(s + 5)); }
    else if (!strcmp(s, "gradkeep") || !strcmp(s, "graphpool")) { void vt_gen_gradkeep(const char *), vt_gen_graphpool(const char *); (s[3] == 'd' ? vt_gen_gradkeep : vt_gen_graphpool)(p); } /* one line: the goldens name main's lines below */
    else {
        fprintf(stderr, "vt_gen: unknown scenario %s\n", s);
        return 2;
    }
    return 0;
}

/* train-BATCH (after main: the sites above keep their lines in the golden files).
 * A training loop at batch size `batch`, every tensor through cuMemAllocAsync (a
 * per-tensor trace), for `fit` and `forecast`: weights (constant sizes, one under 1 MiB),
 * two steps of a forward pass keeping five activations of batch x 1.5 MiB + 4 KiB with a
 * batch x 256 KiB temporary after each, a backward pass freeing them in reverse, the
 * gradients and two optimizer states made in the first step and kept. NVML says the
 * process holds 300 MiB more than the live tensors (the context).
 * trainz-BATCH: the same, but below batch 16 each temporary is two of half the size (a
 * kernel choosing its path by size): that site's count differs between batches. */
void vt_gen_train(const char *path, unsigned batch, int split);
void vt_gen_train(const char *path, unsigned batch, int split)
{
    begin_simple(path, 1100 + batch, argv_train, sizeof argv_train);
    preamble();
    uint32_t w = build_model(0), a = build_model(1), ws = build_model(2), k = build_model(3);
    static const uint64_t wsz[4] = { 4 * MiB, 12 * MiB, 700 * 1024, 3 * MiB };
    uint64_t live = 0, t = 1;
    uint64_t next = A0;
#define TR_ALLOC(addr, size, st) do { at(t++ * MS); addr = next; next += 1ull << 32; \
        alloc_(VT_KIND_MEM_ALLOC_ASYNC, 0, addr, size, st); live += size; } while (0)
#define TR_FREE(addr, size) do { at(t++ * MS); free_(VT_KIND_MEM_FREE_ASYNC, 0, addr); live -= size; } while (0)
    at(0); nvml(0, 300 * MiB + 1, 300 * MiB, 80 * GiB);
    uint64_t wa[4], ga[4], oa[8], act[5], tmp;
    for (int i = 0; i < 4; i++) TR_ALLOC(wa[i], wsz[i], w);
    uint64_t asz = batch * (3 * MiB / 2) + 4096, tsz = batch * 256 * 1024;
    for (int step = 0; step < 2; step++) {
        for (int i = 0; i < 5; i++) {
            TR_ALLOC(act[i], asz, a);
            if (split && batch < 16) {
                uint64_t tmp2;
                TR_ALLOC(tmp, tsz / 2, ws);
                TR_ALLOC(tmp2, tsz / 2, ws);
                TR_FREE(tmp2, tsz / 2);
                TR_FREE(tmp, tsz / 2);
            } else {
                TR_ALLOC(tmp, tsz, ws);
                TR_FREE(tmp, tsz);
            }
        }
        at(t * MS); nvml(0, 300 * MiB + live + 1, 300 * MiB + live, 80 * GiB);
        for (int i = 4; i >= 0; i--) {
            if (step == 0 && i < 4) TR_ALLOC(ga[i], wsz[i], k);
            TR_FREE(act[i], asz);
        }
        if (step == 0)
            for (int i = 0; i < 8; i++) TR_ALLOC(oa[i], wsz[i / 2], k);
    }
#undef TR_ALLOC
#undef TR_FREE
    (void)wa; (void)ga; (void)oa;
    at(t * MS);
    trailer(1);
    end();
}

/* Marks (vramtrace.mark()): the simple run between "start" (0.5 ms, nothing live yet)
 * and "done" (10.5 ms, all freed). Marks inside a run are tested on real recordings
 * (tests/python/api_prog.py). */
static void mark(const char *name)
{
    vt_rec r = { .type = VT_REC_MARK, .device = -1, .tid = tid, .time_ns = now, .str = name,
                 .str_len = (uint32_t)strlen(name) };
    emit(&r);
}

void vt_gen_marks(const char *path)
{
    begin_simple(path, 1000, argv_train, sizeof argv_train);
    at(MS / 2);
    mark("start");
    body_simple();
    at(10 * MS + MS / 2);
    mark("done");
    at(11 * MS);
    trailer(1);
    end();
}

/* Python generators (after main): a stack of Python frames over the capture's plumbing, and
 * allocations 1 ms apart at fresh addresses (every tensor through cuMemAllocAsync). */
typedef struct { uint64_t t, next; } seq;
static uint32_t py_stack(const frame *fr, int n);
static uint64_t seq_alloc(seq *q, uint64_t size, uint32_t stack);
static void seq_free(seq *q, uint64_t addr);

/* ckpt-0, ckpt-1: two steps of a four-layer model in Python, every tensor through
 * cuMemAllocAsync, without (0) and with (1) activation checkpointing as PyTorch's
 * reentrant checkpoint does it. Forward: each layer keeps an activation of 8 MiB (with
 * checkpointing only the layer's 1 MiB output is kept; the 8 MiB are freed at once, made
 * under checkpoint.py's forward). Backward, from the last layer: with checkpointing the
 * layer's forward runs again under CheckpointFunction.backward (8 MiB, recomputed), then
 * its nested backward (torch/autograd) makes a 2 MiB input gradient; the 8 MiB go after
 * it (without checkpointing, under loss.backward()). Weights 4 x 4 MiB, their gradients
 * made in the first backward and kept. */
void vt_gen_ckpt(const char *path, int ckpt);
void vt_gen_ckpt(const char *path, int ckpt)
{
    static const char argv_py[] = "python\0train.py";
    begin_simple(path, 1200 + ckpt, argv_py, sizeof argv_py);
    preamble();
    string_(1, "train.py");
    string_(2, "<module>");
    string_(3, "/usr/lib/python3/dist-packages/torch/nn/modules/module.py");
    string_(4, "Module._call_impl");
    string_(5, "model.py");
    string_(6, "Block.forward");
    string_(7, "/usr/lib/python3/dist-packages/torch/utils/checkpoint.py");
    string_(8, "CheckpointFunction.forward");
    string_(9, "CheckpointFunction.backward");
    string_(10, "/usr/lib/python3/dist-packages/torch/autograd/__init__.py");
    string_(11, "backward");
    string_(12, "/usr/lib/python3/dist-packages/torch/autograd/function.py");
    string_(13, "BackwardCFunction.apply");
    string_(14, "Model.__init__");
    vt_rec pf[8] = {
        { .type = VT_REC_PYFRAME, .id = 1, .aux0 = 1, .aux1 = 2, .line = 30 },   /* train.py step */
        { .type = VT_REC_PYFRAME, .id = 2, .aux0 = 3, .aux1 = 4, .line = 1790 }, /* module call */
        { .type = VT_REC_PYFRAME, .id = 3, .aux0 = 5, .aux1 = 6, .line = 12 },   /* the layer */
        { .type = VT_REC_PYFRAME, .id = 4, .aux0 = 7, .aux1 = 8, .line = 260 },  /* checkpoint fwd */
        { .type = VT_REC_PYFRAME, .id = 5, .aux0 = 7, .aux1 = 9, .line = 320 },  /* checkpoint bwd */
        { .type = VT_REC_PYFRAME, .id = 6, .aux0 = 10, .aux1 = 11, .line = 353 }, /* nested backward */
        { .type = VT_REC_PYFRAME, .id = 7, .aux0 = 12, .aux1 = 13, .line = 307 }, /* engine -> Python */
        { .type = VT_REC_PYFRAME, .id = 8, .aux0 = 5, .aux1 = 14, .line = 5 },   /* model init */
    };
    for (int i = 0; i < 8; i++) emit(&pf[i]);
    /* stacks: plumbing frames, then Python frames innermost first */
    const frame f_w[2] = { { VT_FRAME_PYTHON, 8 }, { VT_FRAME_PYTHON, 1 } };
    const frame f_fwd[3] = { { VT_FRAME_PYTHON, 3 }, { VT_FRAME_PYTHON, 2 }, { VT_FRAME_PYTHON, 1 } };
    const frame f_ckfwd[4] = { { VT_FRAME_PYTHON, 3 }, { VT_FRAME_PYTHON, 4 }, { VT_FRAME_PYTHON, 2 },
                               { VT_FRAME_PYTHON, 1 } };
    const frame f_out[2] = { { VT_FRAME_PYTHON, 4 }, { VT_FRAME_PYTHON, 1 } };
    const frame f_re[4] = { { VT_FRAME_PYTHON, 3 }, { VT_FRAME_PYTHON, 2 }, { VT_FRAME_PYTHON, 5 },
                            { VT_FRAME_PYTHON, 7 } };
    const frame f_gin[3] = { { VT_FRAME_PYTHON, 6 }, { VT_FRAME_PYTHON, 5 }, { VT_FRAME_PYTHON, 7 } };
    const frame f_grad[1] = { { VT_FRAME_PYTHON, 7 } };
    const frame f_gin0[2] = { { VT_FRAME_PYTHON, 6 }, { VT_FRAME_PYTHON, 1 } };
    uint32_t sw, sfwd, sckf, sout, sre, sgin, sgrad, sgin0;
#define PY_STACK(fr) py_stack(fr, (int)(sizeof fr / sizeof fr[0]))
    sw = PY_STACK(f_w);
    sfwd = PY_STACK(f_fwd);
    sckf = PY_STACK(f_ckfwd);
    sout = PY_STACK(f_out);
    sre = PY_STACK(f_re);
    sgin = PY_STACK(f_gin);
    sgrad = PY_STACK(f_grad);
    sgin0 = PY_STACK(f_gin0);
    seq q = { 1, A0 };
#define CK_ALLOC(addr, size, st) (addr = seq_alloc(&q, size, st))
#define CK_FREE(addr) seq_free(&q, addr)
    uint64_t w[4], g[4], act[4], out[4], re, gin;
    for (int i = 0; i < 4; i++) CK_ALLOC(w[i], 4 * MiB, sw);
    for (int step = 0; step < 2; step++) {
        for (int i = 0; i < 4; i++) {
            if (ckpt) {
                CK_ALLOC(act[i], 8 * MiB, sckf);
                CK_ALLOC(out[i], 1 * MiB, sout);
                CK_FREE(act[i]);
            } else {
                CK_ALLOC(act[i], 8 * MiB, sfwd);
            }
        }
        for (int i = 3; i >= 0; i--) {
            if (ckpt) CK_ALLOC(re, 8 * MiB, sre);
            CK_ALLOC(gin, 2 * MiB, ckpt ? sgin : sgin0);
            if (step == 0) CK_ALLOC(g[i], 4 * MiB, sgrad);
            if (ckpt) { CK_FREE(re); CK_FREE(out[i]); }
            else CK_FREE(act[i]);
            CK_FREE(gin);
        }
    }
#undef CK_ALLOC
#undef CK_FREE
    (void)w; (void)g;
    at(q.t * MS);
    trailer(1);
    end();
}

/* rank-R (after main: the sites above keep their lines in the golden files). Rank R of a
 * three-rank data-parallel job (pid 1200 + R, local rank R % 2, started R x 0.5 ms after
 * rank 0): ranks 0 and 1 share GPU A, rank 2 has GPU B (CUDA ordinal 0 in each process,
 * as under CUDA_VISIBLE_DEVICES). Each holds weights 8 MiB, an NCCL buffer 2 MiB (a frame
 * in libnccl.so.2, a module this machine does not have), a workspace 1 MiB, then two
 * activations of 2 MiB, 6 MiB on rank 1 (its bigger batch), freed, then 3 MiB kept (the
 * kv cache). Peaks: 15 MiB on ranks 0 and 2 at 5 ms, 23 MiB on rank 1: 1.53x, the
 * activations +8 MiB. */
void vt_gen_rank(const char *path, unsigned rank);
void vt_gen_rank(const char *path, unsigned rank)
{
    hdr_opts o = { 1200 + rank, T0_REALTIME + rank * (MS / 2), "testhost", "/opt/test/train", argv_train,
                   sizeof argv_train, 0, 0, 64 };
    begin(path, &o);
    /* the header's rank and local rank, as the recorder writes them */
    int32_t rk = (int32_t)rank;
    int16_t local = (int16_t)(rank % 2);
    uint32_t flags = VT_HDR_LOCAL_RANK;
    long here = ftell(out);
    if (fseek(out, (long)offsetof(vt_file_header, rank), SEEK_SET) || fwrite(&rk, 4, 1, out) != 1 ||
        fseek(out, (long)offsetof(vt_file_header, flags), SEEK_SET) || fwrite(&flags, 4, 1, out) != 1 ||
        fseek(out, (long)offsetof(vt_file_header, local_rank), SEEK_SET) || fwrite(&local, 2, 1, out) != 1 ||
        fseek(out, here, SEEK_SET))
        die("write header");
    nnodes = 0;
    uint8_t uuid[16];
    for (int i = 0; i < 16; i++) uuid[i] = (uint8_t)((rank == 2 ? 0xb0 : 0xa0) + i);
    const char *name = "Test GPU 80GB";
    vt_rec d = { .type = VT_REC_DEVICE, .device = 0, .size = 80 * GiB, .aux0 = 9, .bytes = uuid, .bytes_len = 16,
                 .str = name, .str_len = (uint32_t)strlen(name) };
    emit(&d);
    vt_rec dr = { .type = VT_REC_DRIVER, .aux0 = 13000 };
    emit(&dr);
    vt_rec th = { .type = VT_REC_THREAD, .tid = tid, .str = "main", .str_len = 4 };
    emit(&th);
    static const char nccl[] = "/usr/lib/x86_64-linux-gnu/libnccl.so.2";
    const uint64_t nccl_base = 0x7a0000000000ull;
    vt_rec m = { .type = VT_REC_MODULE, .addr = nccl_base, .size = 0x100000, .str = nccl,
                 .str_len = (uint32_t)strlen(nccl) };
    emit(&m);
    uint32_t w = build_model(0), a = build_model(1), ws = build_model(2), k = build_model(3);
    /* the NCCL buffer: the workspace site's stack with a libnccl frame inside its plumbing */
    cudart_vtgen_malloc(vt_gen_capture, NULL);
    frame f[96];
    int n = 0, inner = 1;
    for (int i = 0; i < ncaptured; i++) {
        int in_main = captured[i].value - 1 >= mods[0].bias && captured[i].value - 1 < mods[0].bias + mods[0].size;
        if (inner && in_main) {
            f[n].kind = VT_FRAME_NATIVE;
            f[n++].value = nccl_base + 0x4242;
            inner = 0;
        }
        f[n++] = captured[i];
    }
    uint32_t c = make_stack(f, n);
    uint64_t act = rank == 1 ? 6 * MiB : 2 * MiB;
    at(1 * MS); alloc_(VT_KIND_MEM_ALLOC, 0, A0, 8 * MiB, w);
    at(2 * MS); alloc_(VT_KIND_MEM_ALLOC, 0, A0 + 8 * MiB, 2 * MiB, c);
    at(3 * MS); alloc_(VT_KIND_MEM_ALLOC, 0, A0 + 10 * MiB, 1 * MiB, ws);
    at(4 * MS); alloc_(VT_KIND_MEM_ALLOC_ASYNC, 0, A0 + 16 * MiB, act, a);
    at(5 * MS); alloc_(VT_KIND_MEM_ALLOC_ASYNC, 0, A0 + 32 * MiB, act, a);
    at(6 * MS); free_(VT_KIND_MEM_FREE_ASYNC, 0, A0 + 32 * MiB);
    at(7 * MS); free_(VT_KIND_MEM_FREE_ASYNC, 0, A0 + 16 * MiB);
    at(8 * MS); alloc_(VT_KIND_MEM_ALLOC, 0, A0 + 12 * MiB, 3 * MiB, k);
    at(9 * MS); free_(VT_KIND_MEM_FREE, 0, A0 + 12 * MiB);
    at(10 * MS); free_(VT_KIND_MEM_FREE, 0, A0 + 10 * MiB); free_(VT_KIND_MEM_FREE, 0, A0 + 8 * MiB);
    free_(VT_KIND_MEM_FREE, 0, A0);
    at(11 * MS);
    trailer(1);
    end();
}

/* as-recorder under a launcher: %r in the path becomes the rank (the first of RANK,
 * SLURM_PROCID, OMPI_COMM_WORLD_RANK, PMI_RANK that is a number, else 0; stage 0), and
 * the header says it (stage 1, the trace written), as the recorder does. */
void vt_gen_as_rank(char *path, size_t n, int stage);
void vt_gen_as_rank(char *path, size_t n, int stage)
{
    static const char *const vars[] = { "RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK", "PMI_RANK" };
    int32_t rank = -1;
    for (int i = 0; i < 4 && rank < 0; i++) {
        const char *v = getenv(vars[i]);
        int digits = v && *v;
        for (const char *c = v; digits && *c; c++) digits = *c >= '0' && *c <= '9';
        if (digits) rank = (int32_t)atoi(v);
    }
    if (stage == 1) {
        FILE *f = fopen(path, "r+b");
        if (!f || fseek(f, (long)offsetof(vt_file_header, rank), SEEK_SET) || fwrite(&rank, 4, 1, f) != 1 || fclose(f))
            die(path);
        return;
    }
    char *r = strstr(path, "%r");
    if (!r) return;
    char tail[PATH_MAX];
    snprintf(tail, sizeof tail, "%s", r + 2);
    snprintf(r, n - (size_t)(r - path), "%d%s", rank < 0 ? 0 : rank, tail);
}

/* gradkeep: four steps of a two-layer model in Python, every tensor through
 * cuMemAllocAsync, with zero_grad(set_to_none=False): each weight's gradient is the
 * output of one backward op (one stack, under autograd's BackwardCFunction.apply), kept
 * as the parameter's .grad in step 0 and, in steps 1-3, added into it and freed at
 * once. By votes that site makes temporaries (3 x 8 MiB against 8 MiB); per allocation,
 * the first two are gradients. Weights 2 x 4 MiB, AdamW's two states 2 x 2 x 4 MiB
 * (torch/optim, step 0), activations 2 x 8 MiB a step, each freed before its layer's
 * gradient is made. Peak: 49 MiB at the end of each forward after the first: weights
 * 8, gradients 8, optimizer state 16, activations 16, the loss 1 MiB. */
void vt_gen_gradkeep(const char *path);
void vt_gen_gradkeep(const char *path)
{
    static const char argv_py[] = "python\0train.py";
    begin_simple(path, 1300, argv_py, sizeof argv_py);
    preamble();
    string_(1, "train.py");
    string_(2, "<module>");
    string_(3, "/usr/lib/python3/dist-packages/torch/nn/modules/module.py");
    string_(4, "Module._call_impl");
    string_(5, "model.py");
    string_(6, "Block.forward");
    string_(7, "/usr/lib/python3/dist-packages/torch/autograd/function.py");
    string_(8, "BackwardCFunction.apply");
    string_(9, "Model.__init__");
    string_(10, "/usr/lib/python3/dist-packages/torch/optim/adamw.py");
    string_(11, "AdamW.step");
    vt_rec pf[5] = {
        { .type = VT_REC_PYFRAME, .id = 1, .aux0 = 1, .aux1 = 2, .line = 30 },   /* train.py step */
        { .type = VT_REC_PYFRAME, .id = 2, .aux0 = 3, .aux1 = 4, .line = 1790 }, /* module call */
        { .type = VT_REC_PYFRAME, .id = 3, .aux0 = 5, .aux1 = 6, .line = 12 },   /* the layer */
        { .type = VT_REC_PYFRAME, .id = 4, .aux0 = 7, .aux1 = 8, .line = 307 },  /* engine -> Python */
        { .type = VT_REC_PYFRAME, .id = 5, .aux0 = 5, .aux1 = 9, .line = 5 },    /* model init */
    };
    vt_rec pf2 = { .type = VT_REC_PYFRAME, .id = 6, .aux0 = 10, .aux1 = 11, .line = 190 }; /* AdamW */
    for (int i = 0; i < 5; i++) emit(&pf[i]);
    emit(&pf2);
    const frame f_w[2] = { { VT_FRAME_PYTHON, 5 }, { VT_FRAME_PYTHON, 1 } };
    const frame f_fwd[3] = { { VT_FRAME_PYTHON, 3 }, { VT_FRAME_PYTHON, 2 }, { VT_FRAME_PYTHON, 1 } };
    const frame f_grad[1] = { { VT_FRAME_PYTHON, 4 } };
    const frame f_opt[2] = { { VT_FRAME_PYTHON, 6 }, { VT_FRAME_PYTHON, 1 } };
    const frame f_loss[1] = { { VT_FRAME_PYTHON, 1 } };
    uint32_t sw, sfwd, sgrad, sopt, sloss;
    sw = PY_STACK(f_w);
    sfwd = PY_STACK(f_fwd);
    sgrad = PY_STACK(f_grad);
    sopt = PY_STACK(f_opt);
    sloss = PY_STACK(f_loss);
#undef PY_STACK
    seq q = { 1, A0 };
#define GK_ALLOC(addr, size, st) (addr = seq_alloc(&q, size, st))
#define GK_FREE(addr) seq_free(&q, addr)
    uint64_t w[2], g[2], m[4], act[2], loss, tmp;
    for (int i = 0; i < 2; i++) GK_ALLOC(w[i], 4 * MiB, sw);
    for (int step = 0; step < 4; step++) {
        for (int i = 0; i < 2; i++) GK_ALLOC(act[i], 8 * MiB, sfwd);
        GK_ALLOC(loss, 1 * MiB, sloss);
        for (int i = 1; i >= 0; i--) {
            GK_FREE(act[i]);
            if (step == 0) {
                GK_ALLOC(g[i], 4 * MiB, sgrad);
            } else {
                GK_ALLOC(tmp, 4 * MiB, sgrad);
                GK_FREE(tmp);
            }
        }
        q.t += 5;  /* the optimizer step */
        if (step == 0)
            for (int i = 0; i < 4; i++) GK_ALLOC(m[i], 4 * MiB, sopt);
        GK_FREE(loss);
    }
#undef GK_ALLOC
#undef GK_FREE
    (void)w; (void)g; (void)m;
    at(q.t * MS);
    trailer(1);
    end();
}

static uint32_t py_stack(const frame *fr, int n)
{
    python_mode = 1;
    cudart_vtgen_malloc(vt_gen_capture, NULL);
    python_mode = 0;
    return stack_of_capture(fr, n);
}

static uint64_t seq_alloc(seq *q, uint64_t size, uint32_t stack)
{
    at(q->t++ * MS);
    uint64_t addr = q->next;
    q->next += 1ull << 32;
    alloc_(VT_KIND_MEM_ALLOC_ASYNC, 0, addr, size, stack);
    return addr;
}

static void seq_free(seq *q, uint64_t addr)
{
    at(q->t++ * MS);
    free_(VT_KIND_MEM_FREE_ASYNC, 0, addr);
}

/* graphpool: torch.compile(mode="reduce-overhead") as PyTorch's blocks show it (a
 * blocks-mode trace: segments through cuMemAlloc and TORCH_SEGMENT, tensors as blocks).
 * Four steps of a two-parameter model under CUDA graphs, zero_grad(set_to_none=True):
 * steps 0 and 1 warm up (CUDAWarmupNode.run), step 2 records the graph
 * (CUDAGraphNode._record), step 3 replays it and allocates nothing from it. The graph's
 * blocks (three 8 MiB activations, a 4 MiB backward scratch, two 4 MiB gradients a step)
 * are in its private pool (VT_RF_PRIVATE_POOL): segment P1 (32 MiB) for the warm-ups,
 * P2 (32 MiB) grown for the recording. The generated code's lines are the same in every
 * step; the frames around them are not (step 0 runs under a wrapper step 1 has not,
 * step 2 under _record), so no stack repeats from one forward to the next. Outside the
 * pool: weights 2 x 4 MiB (segment A, 24 MiB), AdamW's state 4 x 4 MiB made in step 0,
 * its foreach scratch 2 x 4 MiB a step (segment B, 8 MiB; segment C, 8 MiB, grown for it
 * in step 2, as bert-ro's record step grew one). Peak: 104 MiB reserved, in step 2's
 * optimizer step: weights 8, gradients 8 (in the pool), optimizer state 16, temporary 8,
 * idle 8 (segment B), the graph pool's idle 56 (P1 32, P2 32 less the gradients). */
void vt_gen_graphpool(const char *path);
void vt_gen_graphpool(const char *path)
{
    static const char argv_py[] = "python\0train.py";
    static const char *const str[] = {
        NULL, "train.py", "main", "/usr/lib/python3/dist-packages/torch/nn/modules/module.py", "Module._apply",
        "/tmp/torchinductor_u/ab/cabc.py", "partition_0", "/usr/lib/python3/dist-packages/torch/_inductor/cudagraph_trees.py",
        "CUDAWarmupNode.run", "CUDAGraphNode._record",
        "/usr/lib/python3/dist-packages/torch/_functorch/_aot_autograd/runtime_wrappers.py",
        "AOTDispatchAutograd.post_compile.<locals>.CompiledFunction.forward",
        "EffectTokensWrapper.post_compile.<locals>.inner_fn", "SerializableCompiledFunction.__call__",
        "/usr/lib/python3/dist-packages/torch/autograd/function.py", "BackwardCFunction.apply",
        "/tmp/torchinductor_u/cd/ccdef.py", "/usr/lib/python3/dist-packages/torch/optim/adam.py",
        "Adam._init_group", "_multi_tensor_adam",
        "AOTDispatchAutograd.post_compile.<locals>.CompiledFunction.backward",
    };
    /* PYFRAME id -> (file, function, line) */
    static const uint32_t pf[][3] = {
        { 0, 0, 0 },
        { 1, 2, 40 },      /* 1 main: run(ids) */
        { 1, 2, 20 },      /* 2 main: model.to() */
        { 3, 4, 965 },     /* 3 Module._apply */
        { 5, 6, 100 },     /* 4 the forward's generated line */
        { 7, 8, 724 },     /* 5 CUDAWarmupNode.run */
        { 7, 9, 1316 },    /* 6 CUDAGraphNode._record */
        { 10, 11, 2503 },  /* 7 CompiledFunction.forward */
        { 10, 12, 1011 },  /* 8 a wrapper of the first call only */
        { 10, 13, 2298 },  /* 9 the wrapper of the later calls */
        { 14, 15, 307 },   /* 10 autograd -> Python */
        { 16, 6, 300 },    /* 11 the backward's generated line: a gradient */
        { 16, 6, 310 },    /* 12 the backward's generated line: scratch */
        { 10, 20, 2200 },  /* 13 CompiledFunction.backward */
        { 17, 18, 178 },   /* 14 Adam._init_group */
        { 17, 19, 791 },   /* 15 _multi_tensor_adam */
        { 1, 2, 50 },      /* 16 main: opt.step() */
    };
    begin_simple(path, 1400, argv_py, sizeof argv_py);
    preamble();
    for (uint32_t i = 1; i < sizeof str / sizeof str[0]; i++) string_(i, str[i]);
    for (uint32_t i = 1; i < sizeof pf / sizeof pf[0]; i++) {
        vt_rec r = { .type = VT_REC_PYFRAME, .id = i, .aux0 = pf[i][0], .aux1 = pf[i][1], .line = pf[i][2] };
        emit(&r);
    }
#define PY(...) ((frame){ VT_FRAME_PYTHON, __VA_ARGS__ })
    const frame f_w[2] = { PY(3), PY(2) };
    const frame f_opt[2] = { PY(14), PY(16) };
    const frame f_fe[2] = { PY(15), PY(16) };
    uint32_t sw = py_stack(f_w, 2), sopt = py_stack(f_opt, 2), sfe = py_stack(f_fe, 2);
    uint32_t sfwd[3], sgrad[3], sbt[3];
    for (int s = 0; s < 3; s++) {
        uint64_t node = s < 2 ? 5 : 6, wrap = s == 0 ? 8 : 9;
        const frame f_fwd[5] = { PY(4), PY(node), PY(7), PY(wrap), PY(1) };
        const frame f_grad[4] = { PY(11), PY(node), PY(13), PY(10) };
        const frame f_bt[4] = { PY(12), PY(node), PY(13), PY(10) };
        sfwd[s] = py_stack(f_fwd, 5);
        sgrad[s] = py_stack(f_grad, 4);
        sbt[s] = py_stack(f_bt, 4);
    }
#undef PY
    uint64_t t = 1;
    const uint64_t SA = A0, SB = A0 + 1 * GiB, P1 = A0 + 2 * GiB, P2 = A0 + 3 * GiB, SC = A0 + 4 * GiB;
#define GP_AT() at(t++ * MS)
#define GP_SEG(base, size, st) do { GP_AT(); alloc_(VT_KIND_MEM_ALLOC, 0, base, size, st); \
        vmm(VT_VMM_TORCH_SEGMENT, base, size, 0, 0); } while (0)
#define GP_BLOCK(a_, n_, st_, fl_) do { GP_AT(); vt_rec r_ = { .type = VT_REC_ALLOC, \
        .kind = VT_KIND_TORCH_BLOCK, .device = 0, .tid = tid, .stack_id = st_, .time_ns = now, \
        .addr = a_, .size = n_, .flags = fl_ }; emit(&r_); } while (0)
#define GP_FREE(addr) do { GP_AT(); free_(VT_KIND_TORCH_BLOCK_FREE, 0, addr); } while (0)
    GP_SEG(SA, 24 * MiB, sw);
    for (int i = 0; i < 2; i++) GP_BLOCK(SA + i * 4 * MiB, 4 * MiB, sw, 0);
    for (int step = 0; step < 4; step++) {
        if (step < 3) {
            int s = step;
            uint64_t P = s < 2 ? P1 : P2;
            if (s != 1) GP_SEG(P, 32 * MiB, sfwd[s]);
            /* forward: activations 0..23 MiB; backward: scratch at 24, gradients at 28, 32-4 */
            for (int i = 0; i < 3; i++) GP_BLOCK(P + i * 8 * MiB, 8 * MiB, sfwd[s], VT_RF_PRIVATE_POOL);
            GP_BLOCK(P + 24 * MiB, 4 * MiB, sbt[s], VT_RF_PRIVATE_POOL);
            GP_FREE(P + 16 * MiB);
            GP_BLOCK(P + 28 * MiB, 4 * MiB, sgrad[s], VT_RF_PRIVATE_POOL);
            GP_FREE(P + 8 * MiB);
            GP_FREE(P + 24 * MiB);
            GP_BLOCK(P + 8 * MiB, 4 * MiB, sgrad[s], VT_RF_PRIVATE_POOL);
            GP_FREE(P);
        }
        t += 5;  /* opt.step() */
        if (step == 0) {
            for (int i = 0; i < 4; i++) GP_BLOCK(SA + (2 + i) * 4 * MiB, 4 * MiB, sopt, 0);
            GP_SEG(SB, 8 * MiB, sfe);
        }
        uint64_t F = step == 2 ? SC : SB;
        if (step == 2) GP_SEG(SC, 8 * MiB, sfe);
        for (int i = 0; i < 2; i++) GP_BLOCK(F + i * 4 * MiB, 4 * MiB, sfe, 0);
        for (int i = 0; i < 2; i++) GP_FREE(F + i * 4 * MiB);
        /* zero_grad(set_to_none=True): the graph's gradients go (step 3's are the replay's,
         * which the allocator never saw) */
        if (step < 3) {
            uint64_t P = step < 2 ? P1 : P2;
            GP_FREE(P + 28 * MiB);
            GP_FREE(P + 8 * MiB);
        }
    }
#undef GP_AT
#undef GP_SEG
#undef GP_BLOCK
#undef GP_FREE
    at(t * MS);
    trailer(1);
    end();
}
