// SPDX-License-Identifier: MIT
/* gen_trace.c - writes a synthetic vramtrace trace in the real format, for the analyzer
 * benchmark (bench_analyzer.sh) and the bench smoke test.
 *
 *   gen_trace [-n EVENTS] [-k STACKS] [-l LIVE] [-s SEED] [-c CHUNK_BYTES] [-z LEVEL]
 *             [-r] -o OUT.vtrace
 *
 * The events look like a training loop: weights allocated once, then per step a
 * forward pass that allocates ~LIVE activations (with short-lived temporaries between
 * them) and a backward pass that frees them in reverse order, so the live set is a
 * sawtooth bounded by about LIVE allocations. Every step replays the same "program" of
 * call sites (as real training does), with a few sizes changed per step. The call
 * stacks are STACKS distinct leaves of a shared tree, 20 to 40 frames deep, emitted
 * lazily (parents first) the first time a stack is used, as the recorder does.
 * Return addresses lie inside a few MODULE records: fake paths by default, or with -r
 * the objects this generator itself has loaded (real files and build-ids, at fixed
 * fake load biases) so that the analyzer's symbolizer has real work to do.
 *
 * Output is a deterministic function of the options (and, with -r, of the files on this
 * machine). The last line on stdout is key=value figures for scripts. */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "vt_codec.h"
#include "vt_format.h"

/* ------------------------------------------------------------------------ *
 *  Random numbers (splitmix64: small, fast, and the same everywhere)
 * ------------------------------------------------------------------------ */
static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t rng_below(uint64_t *s, uint64_t n) { return n ? rng_next(s) % n : 0; }
static double rng_unit(uint64_t *s) { return (double)(rng_next(s) >> 11) * (1.0 / 9007199254740992.0); }

static void *xcalloc(size_t n, size_t sz)
{
    void *p = calloc(n ? n : 1, sz);
    if (!p) { fprintf(stderr, "gen_trace: out of memory\n"); exit(1); }
    return p;
}

/* ------------------------------------------------------------------------ *
 *  Chunked writer: records -> raw buffer -> one zstd frame per chunk
 * ------------------------------------------------------------------------ */
typedef struct {
    FILE *f;
    ZSTD_CCtx *zc;
    int level;
    vt_codec codec;
    uint8_t *raw;
    size_t raw_cap, raw_len;
    uint32_t nrec;
    uint64_t base_time;   /* base_time_ns of the chunk being filled */
    uint64_t last_time;   /* time of the last timed record written */
    uint8_t *comp;
    size_t comp_cap;
    uint64_t counts[VT_REC_TYPE_MAX];
    uint64_t file_bytes;
    uint64_t chunks;
} writer;

static void w_flush(writer *w)
{
    if (!w->nrec) return;
    size_t n = ZSTD_compressCCtx(w->zc, w->comp, w->comp_cap, w->raw, w->raw_len, w->level);
    if (ZSTD_isError(n)) { fprintf(stderr, "gen_trace: zstd: %s\n", ZSTD_getErrorName(n)); exit(1); }
    vt_chunk_header h = { VT_CHUNK_MAGIC, (uint32_t)n, (uint32_t)w->raw_len, w->nrec, w->base_time };
    if (fwrite(&h, sizeof h, 1, w->f) != 1 || fwrite(w->comp, 1, n, w->f) != n) {
        fprintf(stderr, "gen_trace: write: %s\n", strerror(errno));
        exit(1);
    }
    w->file_bytes += sizeof h + n;
    w->chunks++;
    w->raw_len = 0;
    w->nrec = 0;
}

static void w_put(writer *w, const vt_rec *r)
{
    size_t bound = vt_codec_bound(r);
    if (w->nrec && w->raw_len + bound > w->raw_cap) w_flush(w);
    if (!w->nrec) {
        /* A chunk's times count from its base; the last time written keeps deltas small. */
        w->base_time = w->last_time;
        vt_codec_reset(&w->codec, w->base_time);
    }
    w->raw_len += vt_codec_encode(&w->codec, r, w->raw + w->raw_len);
    w->nrec++;
    w->counts[r->type]++;
    if (r->time_ns > w->last_time) w->last_time = r->time_ns;
}

static void w_blob(FILE *f, const void *p, uint32_t n)
{
    fwrite(&n, sizeof n, 1, f);
    if (n) fwrite(p, 1, n, f);
}

static void w_header(writer *w, uint32_t depth)
{
    static const char host[] = "bench-host";
    static const char exe[] = "/usr/bin/python3.11";
    static const char argv[] = "python3\0train.py\0--steps\0" "1000"; /* NUL-joined, no final NUL */
    vt_file_header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, VT_MAGIC, VT_MAGIC_LEN);
    h.version_major = VT_VERSION_MAJOR;
    h.version_minor = VT_VERSION_MINOR;
    h.header_size = (uint32_t)(sizeof h + 3 * 4 + (sizeof host - 1) + (sizeof exe - 1) + (sizeof argv - 1));
    h.pid = 4242;
    h.ppid = 4200;
    h.start_realtime_ns = 1795910400ull * 1000000000ull; /* 2026-11-29T00:00:00Z */
    h.start_monotonic_ns = 1000ull * 1000000000ull;
    h.stack_depth = depth;
    h.rank = -1;
    fwrite(&h, sizeof h, 1, w->f);
    w_blob(w->f, host, sizeof host - 1);
    w_blob(w->f, exe, sizeof exe - 1);
    w_blob(w->f, argv, sizeof argv - 1);
    w->file_bytes += h.header_size;
}

/* ------------------------------------------------------------------------ *
 *  Modules: where the return addresses live
 * ------------------------------------------------------------------------ */
typedef struct {
    char path[512];
    uint8_t build_id[64];
    uint32_t build_id_len;
    uint64_t bias, extent;
    uint64_t text_lo, text_hi;  /* an executable range, relative to the bias */
} module;

#define MAX_MODULES 16

typedef struct { module *m; int n; } module_list;

static int collect_module(struct dl_phdr_info *info, size_t size, void *arg)
{
    module_list *ml = arg;
    if (ml->n >= MAX_MODULES) return 1;
    module m;
    memset(&m, 0, sizeof m);
    if (info->dlpi_name && info->dlpi_name[0]) {
        snprintf(m.path, sizeof m.path, "%s", info->dlpi_name);
    } else if (ml->n == 0) {
        ssize_t k = readlink("/proc/self/exe", m.path, sizeof m.path - 1);
        if (k <= 0) return 0;
        m.path[k] = 0;
    } else {
        return 0; /* the vDSO: no file to symbolize from */
    }
    if (m.path[0] != '/') return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD) {
            if (ph->p_vaddr + ph->p_memsz > m.extent) m.extent = ph->p_vaddr + ph->p_memsz;
            if ((ph->p_flags & PF_X) && ph->p_memsz > m.text_hi - m.text_lo) {
                m.text_lo = ph->p_vaddr;
                m.text_hi = ph->p_vaddr + ph->p_memsz;
            }
        } else if (ph->p_type == PT_NOTE) {
            const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
            const uint8_t *end = p + ph->p_memsz;
            while (p + sizeof(ElfW(Nhdr)) <= end) {
                const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
                const uint8_t *name = p + sizeof *nh;
                const uint8_t *desc = name + ((nh->n_namesz + 3) & ~3u);
                if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && !memcmp(name, "GNU", 4)
                    && nh->n_descsz <= sizeof m.build_id) {
                    memcpy(m.build_id, desc, nh->n_descsz);
                    m.build_id_len = nh->n_descsz;
                }
                p = desc + ((nh->n_descsz + 3) & ~3u);
            }
        }
    }
    if (m.text_hi <= m.text_lo + 4096) return 0;
    /* Fixed biases keep the output independent of ASLR; a non-PIE executable keeps 0. */
    m.bias = info->dlpi_addr ? 0x7f1000000000ull + (uint64_t)ml->n * 0x100000000ull : 0;
    ml->m[ml->n++] = m;
    return 0;
}

static int fake_modules(module *m)
{
    static const struct { const char *path; uint64_t size; } fake[] = {
        { "/opt/venv/bin/python3.11", 7u << 20 },
        { "/opt/venv/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so", 900u << 20 },
        { "/opt/venv/lib/python3.11/site-packages/torch/lib/libtorch_cpu.so", 500u << 20 },
        { "/opt/venv/lib/python3.11/site-packages/torch/lib/libc10_cuda.so", 2u << 20 },
        { "/opt/venv/lib/python3.11/site-packages/torch/lib/libtorch_python.so", 30u << 20 },
        { "/opt/venv/lib/libc.so.6", 2u << 20 },
    };
    int n = (int)(sizeof fake / sizeof fake[0]);
    for (int i = 0; i < n; i++) {
        memset(&m[i], 0, sizeof m[i]);
        snprintf(m[i].path, sizeof m[i].path, "%s", fake[i].path);
        m[i].bias = i == 0 ? 0x555555554000ull : 0x7f2000000000ull + (uint64_t)i * 0x100000000ull;
        m[i].extent = fake[i].size;
        m[i].text_lo = 0x1000;
        m[i].text_hi = fake[i].size - 0x1000;
        m[i].build_id_len = 20;
        uint64_t s = 0xb1d0000 + (uint64_t)i;
        for (unsigned b = 0; b < 20; b++) m[i].build_id[b] = (uint8_t)rng_next(&s);
    }
    return n;
}

/* ------------------------------------------------------------------------ *
 *  The stack tree: nodes keyed by (parent, choice), emitted on first use
 * ------------------------------------------------------------------------ */
typedef struct {
    uint32_t *parent;   /* internal index of the parent, 0 = root */
    uint32_t *wire_id;  /* id in the trace, 0 = not emitted yet */
    uint64_t *ip;
    uint32_t n, cap, next_wire;
    uint64_t *hkey;     /* open addressing: (parent << 8 | choice) + 1, 0 = empty */
    uint32_t *hval;
    size_t hcap;
} tree;

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33; x *= 0xff51afd7ed558ccdull; x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
}

static void tree_init(tree *t, size_t cap)
{
    memset(t, 0, sizeof *t);
    t->cap = (uint32_t)cap;
    t->parent = xcalloc(cap, sizeof *t->parent);
    t->wire_id = xcalloc(cap, sizeof *t->wire_id);
    t->ip = xcalloc(cap, sizeof *t->ip);
    t->hcap = 1;
    while (t->hcap < cap * 2) t->hcap <<= 1;
    t->hkey = xcalloc(t->hcap, sizeof *t->hkey);
    t->hval = xcalloc(t->hcap, sizeof *t->hval);
    t->n = 1; /* index 0 is the root, no frame */
    t->next_wire = 1;
}

/* The child of `parent` along `choice`; its return address is drawn from a pool of
 * call sites so that the same function shows up under several callers. */
static uint32_t tree_child(tree *t, uint32_t parent, uint32_t choice, const module *mods, int nmods,
                           uint64_t seed)
{
    uint64_t key = (((uint64_t)parent << 8) | choice) + 1;
    size_t h = mix(key) & (t->hcap - 1);
    while (t->hkey[h]) {
        if (t->hkey[h] == key) return t->hval[h];
        h = (h + 1) & (t->hcap - 1);
    }
    if (t->n >= t->cap) { fprintf(stderr, "gen_trace: stack tree full\n"); exit(1); }
    uint32_t id = t->n++;
    t->hkey[h] = key;
    t->hval[h] = id;
    t->parent[id] = parent;
    uint64_t site = mix(key ^ seed) % 50000; /* 50k distinct call sites in all */
    uint64_t s = site * 7919 + seed;
    const module *m = &mods[rng_below(&s, (uint64_t)nmods)];
    uint64_t off = m->text_lo + rng_below(&s, m->text_hi - m->text_lo);
    t->ip[id] = m->bias + off;
    return id;
}

/* Emits the STACK records of node and its not yet emitted ancestors, outermost first. */
static uint32_t tree_emit(tree *t, writer *w, uint32_t node)
{
    if (!node) return 0;
    if (t->wire_id[node]) return t->wire_id[node];
    uint32_t pw = tree_emit(t, w, t->parent[node]);
    vt_rec r;
    memset(&r, 0, sizeof r);
    r.type = VT_REC_STACK;
    r.kind = VT_FRAME_NATIVE;
    r.id = t->next_wire++;
    r.parent = pw;
    r.addr = t->ip[node];
    w_put(w, &r);
    t->wire_id[node] = r.id;
    return r.id;
}

/* Fan-out per level: a shared interpreter/launcher prefix, then branching. */
static uint32_t fanout(int level) { return level < 6 ? 1 : level < 12 ? 2 : 3; }

/* ------------------------------------------------------------------------ *
 *  The step program
 * ------------------------------------------------------------------------ */
enum { OP_ALLOC_ACT, OP_FREE_ACT, OP_ALLOC_TMP, OP_FREE_TMP };

typedef struct {
    uint8_t op;
    uint8_t kind;       /* vt_kind of an alloc */
    uint32_t site;      /* activation index, or temp index */
    uint32_t stack;     /* index into leaves */
    uint64_t size;
    uint64_t stream;
} op;

static uint64_t draw_size(uint64_t *s)
{
    /* About log-uniform between 512 B and 4 MiB (mean ~0.5 MiB, so ~100k live blocks
     * make a ~50 GB peak), rounded to 512 B like the caching allocators: a power of two,
     * then a random fraction of it on top. */
    uint64_t v = 1ull << (9 + rng_below(s, 13));
    v += rng_below(s, v);
    return (v + 511) & ~511ull;
}

static uint32_t draw_stack(uint64_t *s, uint32_t nleaves)
{
    /* Skewed: a few call sites allocate most, as in real programs. */
    double u = rng_unit(s);
    return (uint32_t)(u * u * nleaves) % nleaves;
}

/* ------------------------------------------------------------------------ *
 *  Address slots: every live allocation holds a distinct slot; freed slots are reused
 *  LIFO, so addresses recur the way they do under a caching allocator.
 * ------------------------------------------------------------------------ */
typedef struct { uint32_t *free; uint32_t nfree, next; } slots;

static uint32_t slot_get(slots *s) { return s->nfree ? s->free[--s->nfree] : s->next++; }
static void slot_put(slots *s, uint32_t v) { s->free[s->nfree++] = v; }
static uint64_t slot_addr(uint32_t v) { return 0x10000000000ull + (uint64_t)v * (32ull << 20); }

/* ------------------------------------------------------------------------ */
static void usage(void)
{
    fprintf(stderr,
        "usage: gen_trace [-n EVENTS] [-k STACKS] [-l LIVE] [-s SEED] [-c CHUNK_BYTES]\n"
        "                 [-z LEVEL] [-r] -o OUT.vtrace\n"
        "  -n  alloc+free events (default 50000000)\n"
        "  -k  distinct stacks (default 10000)\n"
        "  -l  activations live at the top of a step (default 100000)\n"
        "  -s  seed (default 1)\n"
        "  -c  raw bytes per chunk (default 1048576)\n"
        "  -z  zstd level (default 3)\n"
        "  -r  return addresses inside this program's real loaded objects\n");
    exit(2);
}

int main(int argc, char **argv)
{
    uint64_t nevents = 50000000, seed = 1;
    uint32_t nstacks = 10000, live = 100000;
    size_t chunk = 1u << 20;
    int level = 3, real = 0;
    const char *out = NULL;
    int c;
    while ((c = getopt(argc, argv, "n:k:l:s:c:z:ro:h")) != -1) {
        switch (c) {
        case 'n': nevents = strtoull(optarg, NULL, 0); break;
        case 'k': nstacks = (uint32_t)strtoul(optarg, NULL, 0); break;
        case 'l': live = (uint32_t)strtoul(optarg, NULL, 0); break;
        case 's': seed = strtoull(optarg, NULL, 0); break;
        case 'c': chunk = strtoull(optarg, NULL, 0); break;
        case 'z': level = atoi(optarg); break;
        case 'r': real = 1; break;
        case 'o': out = optarg; break;
        default: usage();
        }
    }
    if (!out || nstacks < 1 || live < 1 || chunk < 4096 || chunk > VT_CHUNK_MAX_RAW) usage();

    module mods[MAX_MODULES];
    int nmods;
    if (real) {
        module_list ml = { mods, 0 };
        dl_iterate_phdr(collect_module, &ml);
        nmods = ml.n;
        if (!nmods) { fprintf(stderr, "gen_trace: no loaded objects found\n"); return 1; }
    } else {
        nmods = fake_modules(mods);
    }

    writer w;
    memset(&w, 0, sizeof w);
    w.f = fopen(out, "wb");
    if (!w.f) { fprintf(stderr, "gen_trace: %s: %s\n", out, strerror(errno)); return 1; }
    setvbuf(w.f, NULL, _IOFBF, 1u << 20);
    w.zc = ZSTD_createCCtx();
    w.level = level;
    w.raw_cap = chunk;
    w.raw = xcalloc(chunk + 4096, 1);
    w.comp_cap = ZSTD_compressBound(chunk + 4096);
    w.comp = xcalloc(w.comp_cap, 1);
    w_header(&w, 64);

    /* ---- process start: modules, driver, device, threads, NVML ---- */
    vt_rec r;
    for (int i = 0; i < nmods; i++) {
        memset(&r, 0, sizeof r);
        r.type = VT_REC_MODULE;
        r.addr = mods[i].bias;
        r.size = mods[i].extent;
        r.bytes = mods[i].build_id;
        r.bytes_len = mods[i].build_id_len;
        r.str = mods[i].path;
        r.str_len = (uint32_t)strlen(mods[i].path);
        w_put(&w, &r);
    }
    uint64_t t = 50000000; /* 50 ms after start: imports */
    const uint32_t tid_main = 4242, tid_loader = 4250;
    memset(&r, 0, sizeof r);
    r.type = VT_REC_DRIVER; r.time_ns = t; r.aux0 = 13000;
    w_put(&w, &r);
    static const uint8_t uuid[16] = { 0x5a, 0x1b, 0x2c, 0x3d, 0x4e, 0x5f, 0x60, 0x71,
                                      0x82, 0x93, 0xa4, 0xb5, 0xc6, 0xd7, 0xe8, 0xf9 };
    static const char gpu[] = "NVIDIA H200";
    const uint64_t total = 150754820096ull;
    memset(&r, 0, sizeof r);
    r.type = VT_REC_DEVICE; r.device = 0; r.size = total; r.aux0 = 9; r.aux1 = 0;
    r.bytes = uuid; r.bytes_len = 16; r.str = gpu; r.str_len = sizeof gpu - 1;
    w_put(&w, &r);
    static const char nvuuid[] = "GPU-5a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9";
    memset(&r, 0, sizeof r);
    r.type = VT_REC_NVML_DEVICE; r.device = 0; r.str = nvuuid; r.str_len = sizeof nvuuid - 1;
    w_put(&w, &r);
    memset(&r, 0, sizeof r);
    r.type = VT_REC_THREAD; r.tid = tid_main; r.str = "python3"; r.str_len = 7;
    w_put(&w, &r);
    memset(&r, 0, sizeof r);
    r.type = VT_REC_THREAD; r.tid = tid_loader; r.str = "pt_data_pin"; r.str_len = 11;
    w_put(&w, &r);

    /* ---- the stack tree and its leaves ---- */
    uint64_t rs = seed;
    tree tr;
    tree_init(&tr, (size_t)nstacks * 45 + 64);
    uint32_t *leaves = xcalloc(nstacks, sizeof *leaves);
    uint8_t *is_leaf = xcalloc(tr.cap, 1);
    for (uint32_t j = 0; j < nstacks; ) {
        int depth = 20 + (int)rng_below(&rs, 21);
        uint32_t node = 0;
        for (int lv = 0; lv < depth; lv++)
            node = tree_child(&tr, node, (uint32_t)rng_below(&rs, fanout(lv)), mods, nmods, seed);
        if (is_leaf[node]) continue; /* the same path again: draw another */
        is_leaf[node] = 1;
        leaves[j++] = node;
    }

    /* ---- the step program ---- */
    uint32_t ntmp_max = live;
    size_t nops_cap = (size_t)live * 4 + 16, nops = 0;
    op *prog = xcalloc(nops_cap, sizeof *prog);
    uint32_t ntmp = 0;
    for (uint32_t i = 0; i < live; i++) { /* forward */
        op o = { OP_ALLOC_ACT, VT_KIND_MEM_ALLOC, i, 0, draw_size(&rs), 0 };
        o.stack = i < nstacks ? i : draw_stack(&rs, nstacks); /* every stack used at least once */
        if (rng_below(&rs, 10) == 0) { o.kind = VT_KIND_MEM_ALLOC_ASYNC; o.stream = 0x5600000 + rng_below(&rs, 4) * 0x1000; }
        prog[nops++] = o;
        if (rng_below(&rs, 2) && ntmp < ntmp_max) {
            op a = { OP_ALLOC_TMP, VT_KIND_MEM_ALLOC, ntmp, draw_stack(&rs, nstacks), draw_size(&rs), 0 };
            prog[nops++] = a;
            op f = a; f.op = OP_FREE_TMP;
            prog[nops++] = f;
            ntmp++;
        }
    }
    for (uint32_t i = live; i-- > 0; ) { /* backward */
        if (rng_below(&rs, 2) && ntmp < ntmp_max) {
            op a = { OP_ALLOC_TMP, VT_KIND_MEM_ALLOC, ntmp, draw_stack(&rs, nstacks), draw_size(&rs), 0 };
            prog[nops++] = a;
            op f = a; f.op = OP_FREE_TMP;
            prog[nops++] = f;
            ntmp++;
        }
        op o = { OP_FREE_ACT, 0, i, 0, 0, 0 }; /* kind and stream: those of the alloc */
        prog[nops++] = o;
    }
    /* Frees carry the kind matching their alloc; find each activation's alloc once. */
    uint8_t *act_kind = xcalloc(live, 1);
    uint64_t *act_stream = xcalloc(live, sizeof *act_stream);
    for (size_t i = 0; i < nops; i++)
        if (prog[i].op == OP_ALLOC_ACT) { act_kind[prog[i].site] = prog[i].kind; act_stream[prog[i].site] = prog[i].stream; }

    /* ---- weights: allocated once, never freed (a typical trace ends with them live) ---- */
    slots sl = { xcalloc((size_t)live + ntmp + 4096, sizeof(uint32_t)), 0, 0 };
    uint32_t nweights = 2000;
    uint64_t done = 0, live_bytes = 0, peak_bytes = 0, next_nvml = 0;
    uint32_t cur_live = 0, peak_live = 0;
    uint32_t *act_slot = xcalloc(live, sizeof *act_slot);
    uint64_t *act_size = xcalloc(live, sizeof *act_size);

    memset(&r, 0, sizeof r);
#define EMIT_ALLOC(KIND, SLOT, SIZE, STACK, STREAM, TID) do {            \
        memset(&r, 0, sizeof r);                                          \
        r.type = VT_REC_ALLOC; r.kind = (KIND); r.device = 0;             \
        r.stack_id = tree_emit(&tr, &w, leaves[(STACK)]);                 \
        r.time_ns = t; r.tid = (TID); r.addr = slot_addr(SLOT);           \
        r.size = (SIZE); r.stream = (STREAM);                             \
        w_put(&w, &r); done++; cur_live++; live_bytes += (SIZE);          \
        if (cur_live > peak_live) peak_live = cur_live;                   \
        if (live_bytes > peak_bytes) peak_bytes = live_bytes;             \
    } while (0)
#define EMIT_FREE(KIND, SLOT, SIZE, STREAM, TID) do {                     \
        memset(&r, 0, sizeof r);                                          \
        r.type = VT_REC_FREE;                                             \
        r.kind = (KIND) == VT_KIND_MEM_ALLOC_ASYNC ? VT_KIND_MEM_FREE_ASYNC : VT_KIND_MEM_FREE; \
        r.device = 0; r.time_ns = t; r.tid = (TID); r.addr = slot_addr(SLOT); \
        r.stream = (STREAM);                                              \
        w_put(&w, &r); done++; cur_live--; live_bytes -= (SIZE);          \
    } while (0)

    for (uint32_t i = 0; i < nweights && done < nevents; i++) {
        t += 2000 + rng_below(&rs, 20000);
        uint64_t sz = draw_size(&rs);
        EMIT_ALLOC(VT_KIND_MEM_ALLOC, slot_get(&sl), sz, draw_stack(&rs, nstacks), 0, tid_main);
    }

    uint64_t steps = 0;
    while (done < nevents) {
        t += 5000000; /* 5 ms between steps: optimizer, data loading */
        uint32_t tmp_slot = 0;
        uint64_t tmp_size = 0;
        for (size_t i = 0; i < nops && done < nevents; i++) {
            const op *o = &prog[i];
            t += 200 + rng_below(&rs, 3000);
            if (t >= next_nvml) {
                /* NVML samples every 10 ms of trace time, as VRAMTRACE_NVML_MS=10 does. */
                memset(&r, 0, sizeof r);
                r.type = VT_REC_NVML; r.time_ns = t; r.device = 0;
                r.aux0 = live_bytes + (512ull << 20) + 1; r.size = live_bytes + (600ull << 20); r.aux1 = total;
                w_put(&w, &r);
                next_nvml = t + 10000000;
            }
            switch (o->op) {
            case OP_ALLOC_ACT: {
                /* 1% of sizes change per step: shapes are not perfectly static. */
                uint64_t sz = rng_below(&rs, 100) == 0 ? draw_size(&rs) : o->size;
                act_slot[o->site] = slot_get(&sl);
                act_size[o->site] = sz;
                EMIT_ALLOC(o->kind, act_slot[o->site], sz, o->stack, o->stream, tid_main);
                break;
            }
            case OP_FREE_ACT:
                EMIT_FREE(act_kind[o->site], act_slot[o->site], act_size[o->site], act_stream[o->site], tid_main);
                slot_put(&sl, act_slot[o->site]);
                break;
            case OP_ALLOC_TMP: {
                /* A few temporaries are pinned host buffers from the data loader thread. */
                tmp_slot = slot_get(&sl);
                tmp_size = o->size;
                int host = (o->site % 50) == 0;
                EMIT_ALLOC(host ? VT_KIND_HOST_ALLOC_HOST : VT_KIND_MEM_ALLOC, tmp_slot, tmp_size, o->stack, 0,
                           host ? tid_loader : tid_main);
                break;
            }
            case OP_FREE_TMP: {
                int host = (o->site % 50) == 0;
                memset(&r, 0, sizeof r);
                r.type = VT_REC_FREE;
                r.kind = host ? VT_KIND_HOST_FREE : VT_KIND_MEM_FREE;
                r.device = 0; r.time_ns = t; r.tid = host ? tid_loader : tid_main;
                r.addr = slot_addr(tmp_slot);
                w_put(&w, &r); done++; cur_live--; live_bytes -= tmp_size;
                slot_put(&sl, tmp_slot);
                break;
            }
            }
        }
        steps++;
    }

    /* ---- trailer ---- */
    t += 1000000;
    memset(&r, 0, sizeof r);
    r.type = VT_REC_TRAILER; r.time_ns = t; r.flags = 1;
    uint64_t counts[VT_REC_TYPE_MAX];
    memcpy(counts, w.counts, sizeof counts);
    counts[VT_REC_TRAILER] = 1;
    r.counts = counts;
    w_put(&w, &r);
    w_flush(&w);
    if (fclose(w.f) != 0) { fprintf(stderr, "gen_trace: %s: %s\n", out, strerror(errno)); return 1; }

    printf("file=%s events=%llu allocs=%llu frees=%llu stacks=%u stack_nodes=%llu modules=%d nvml=%llu "
           "steps=%llu peak_live=%u peak_bytes=%llu chunks=%llu bytes=%llu bytes_per_event=%.3f\n",
           out, (unsigned long long)done, (unsigned long long)w.counts[VT_REC_ALLOC],
           (unsigned long long)w.counts[VT_REC_FREE], nstacks, (unsigned long long)w.counts[VT_REC_STACK],
           nmods, (unsigned long long)w.counts[VT_REC_NVML], (unsigned long long)steps, peak_live,
           (unsigned long long)peak_bytes, (unsigned long long)w.chunks, (unsigned long long)w.file_bytes,
           done ? (double)w.file_bytes / (double)done : 0.0);
    ZSTD_freeCCtx(w.zc);
    return 0;
}
