// SPDX-License-Identifier: MIT
/* vt_layergen.c - writes small traces with scope and Python frames, in the real format,
 * for the `top --by layer`, `report` and `diff` golden tests. Deterministic: fixed pid,
 * host, times; no modules (the native frames stay unsymbolized: layers need none).
 *
 *   vt_layergen SEQ OUT.vtrace
 *
 * A two-layer encoder trained one step at sequence length SEQ (128 or 512): per layer
 * an attention block (scores ~ SEQ^2) and a feed-forward block (~ SEQ), an embedding,
 * weights allocated from the training script (no scope: the layer is the innermost
 * Python frame of the script's own code, not PyTorch's), a temporary in layer 0's
 * feed-forward that is freed before the peak (so its most-held is above its at-peak
 * bytes), a Python frame of the library only (no layer), and gradients allocated on a
 * second thread in backward scopes. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "vt_codec.h"
#include "vt_format.h"

#define MiB (1ull << 20)
#define MS 1000000ull

static FILE *out;
static vt_codec codec;
static uint8_t raw[1 << 20];
static size_t raw_len;
static uint32_t nrec;
static uint64_t counts[VT_REC_TYPE_MAX];
static uint64_t now;

static void flush(void)
{
    if (!nrec) return;
    static uint8_t comp[1 << 21];
    size_t n = ZSTD_compress(comp, sizeof comp, raw, raw_len, 3);
    if (ZSTD_isError(n)) { fprintf(stderr, "vt_layergen: zstd failed\n"); exit(1); }
    vt_chunk_header h = { VT_CHUNK_MAGIC, (uint32_t)n, (uint32_t)raw_len, nrec, 0 };
    fwrite(&h, sizeof h, 1, out);
    fwrite(comp, 1, n, out);
    raw_len = 0;
    nrec = 0;
}

static void emit(vt_rec *r)
{
    if (!nrec) vt_codec_reset(&codec, 0);
    if (r->type == VT_REC_ALLOC || r->type == VT_REC_FREE || r->type == VT_REC_TRAILER) r->time_ns = now;
    raw_len += vt_codec_encode(&codec, r, raw + raw_len);
    nrec++;
    if (r->type < VT_REC_TYPE_MAX) counts[r->type]++;
}

static void blob(const void *p, uint32_t n)
{
    fwrite(&n, 4, 1, out);
    fwrite(p, 1, n, out);
}

static void header(void)
{
    static const char host[] = "testhost", exe[] = "/usr/bin/python3.11", argv[] = "python3\0train.py";
    vt_file_header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, VT_MAGIC, VT_MAGIC_LEN);
    h.version_major = VT_VERSION_MAJOR;
    h.version_minor = VT_VERSION_MINOR;
    h.header_size = (uint32_t)(sizeof h + 12 + sizeof host - 1 + sizeof exe - 1 + sizeof argv - 1);
    h.pid = 2024;
    h.ppid = 1;
    h.start_realtime_ns = 1795910400ull * 1000000000ull;
    h.start_monotonic_ns = 1000ull * 1000000000ull;
    h.stack_depth = 64;
    h.rank = -1;
    fwrite(&h, sizeof h, 1, out);
    blob(host, sizeof host - 1);
    blob(exe, sizeof exe - 1);
    blob(argv, sizeof argv - 1);
}

static void string_(uint32_t id, const char *s)
{
    vt_rec r = { .type = VT_REC_STRING, .device = -1, .id = id, .str = s, .str_len = (uint32_t)strlen(s) };
    emit(&r);
}

static void pyframe(uint32_t id, uint32_t file, uint32_t fn, uint32_t line)
{
    vt_rec r = { .type = VT_REC_PYFRAME, .device = -1, .id = id, .aux0 = file, .aux1 = fn, .line = line };
    emit(&r);
}

/* A stack from frames outermost first: (kind, value); returns the leaf id. Nodes are
 * emitted as needed (a small dedup by linear search: the traces are tiny). */
typedef struct { uint8_t kind; uint64_t value; } frame;
static struct { uint32_t parent; uint8_t kind; uint64_t value; } nodes[1024];
static uint32_t nnodes;

static uint32_t stack_of(const frame *f, int n)
{
    uint32_t parent = 0;
    for (int i = 0; i < n; i++) {
        uint32_t id = 0;
        for (uint32_t k = 0; k < nnodes && !id; k++)
            if (nodes[k].parent == parent && nodes[k].kind == f[i].kind && nodes[k].value == f[i].value) id = k + 1;
        if (!id) {
            nodes[nnodes].parent = parent;
            nodes[nnodes].kind = f[i].kind;
            nodes[nnodes].value = f[i].value;
            id = ++nnodes;
            vt_rec r = { .type = VT_REC_STACK, .device = -1, .kind = f[i].kind, .id = id, .parent = parent,
                         .addr = f[i].value };
            emit(&r);
        }
        parent = id;
    }
    return parent;
}

static uint32_t tid = 100;

static void alloc_(uint64_t addr, uint64_t size, uint32_t stack)
{
    vt_rec r = { .type = VT_REC_ALLOC, .kind = VT_KIND_MEM_ALLOC_ASYNC, .device = 0, .tid = tid, .stack_id = stack,
                 .addr = addr, .size = size };
    emit(&r);
}

static void free_(uint64_t addr)
{
    vt_rec r = { .type = VT_REC_FREE, .kind = VT_KIND_MEM_FREE_ASYNC, .device = 0, .tid = tid, .addr = addr };
    emit(&r);
}

enum { S_MODEL = 1, S_TRAIN, S_TORCH, S_THREADING, F_FWD_ATT = 10, F_FWD_FFN, F_STEP, F_CALL, F_RUN, F_MAIN,
       SC_EMB = 20, SC_ATT0, SC_FFN0, SC_ATT1, SC_FFN1 };
#define PY(id) { VT_FRAME_PYTHON, id }
#define SC(id) { VT_FRAME_SCOPE, id }
#define NAT(a) { VT_FRAME_NATIVE, 0x401000u + (a) }

int main(int argc, char **argv)
{
    if (argc != 3) { fprintf(stderr, "usage: vt_layergen SEQ OUT.vtrace\n"); return 2; }
    uint64_t seq = strtoull(argv[1], NULL, 10);
    if (seq < 64 || seq > 4096) { fprintf(stderr, "vt_layergen: SEQ 64..4096\n"); return 2; }
    out = fopen(argv[2], "wb");
    if (!out) { fprintf(stderr, "vt_layergen: %s: %s\n", argv[2], strerror(errno)); return 1; }
    header();
    string_(S_MODEL, "/home/user/proj/model.py");
    string_(S_TRAIN, "/home/user/proj/train.py");
    string_(S_TORCH, "/usr/lib/python3/dist-packages/torch/nn/modules/module.py");
    string_(S_THREADING, "/usr/lib/python3.11/threading.py");
    string_(F_FWD_ATT, "Attention.forward");
    string_(F_FWD_FFN, "FeedForward.forward");
    string_(F_STEP, "train_step");
    string_(F_CALL, "Module._call_impl");
    string_(F_RUN, "Thread.run");
    string_(F_MAIN, "<module>");
    string_(SC_EMB, "embeddings");
    string_(SC_ATT0, "encoder.layer.0.attention");
    string_(SC_FFN0, "encoder.layer.0.ffn");
    string_(SC_ATT1, "encoder.layer.1.attention");
    string_(SC_FFN1, "encoder.layer.1.ffn");
    pyframe(1, S_TRAIN, F_MAIN, 90);
    pyframe(2, S_TRAIN, F_STEP, 40);
    pyframe(3, S_TORCH, F_CALL, 1520);
    pyframe(4, S_MODEL, F_FWD_ATT, 31);
    pyframe(5, S_MODEL, F_FWD_FFN, 55);
    pyframe(6, S_THREADING, F_RUN, 975);
    pyframe(7, S_TRAIN, F_STEP, 22);

    /* forward stacks: a scope, then main > train_step > torch's __call__ > the block */
    frame weights[] = { NAT(0), PY(1), PY(7), NAT(8) };
    frame emb[] = { SC(SC_EMB), NAT(0), PY(1), PY(2), PY(3), NAT(8) };
    frame att0[] = { SC(SC_ATT0), NAT(0), PY(1), PY(2), PY(3), PY(4), PY(3), NAT(8) };
    frame ffn0[] = { SC(SC_FFN0), NAT(0), PY(1), PY(2), PY(3), PY(5), NAT(8) };
    frame att1[] = { SC(SC_ATT1), NAT(0), PY(1), PY(2), PY(3), PY(4), PY(3), NAT(8) };
    frame ffn1[] = { SC(SC_FFN1), NAT(0), PY(1), PY(2), PY(3), PY(5), NAT(8) };
    frame att_noscope[] = { NAT(0), PY(1), PY(2), PY(3), PY(4), PY(3), NAT(8) };  /* layer: Attention.forward */
    frame lib_only[] = { NAT(0), PY(6), PY(3), NAT(8) };                          /* no layer */
    frame bwd_att1[] = { SC(SC_ATT1), NAT(16), NAT(24) };
    frame bwd_ffn1[] = { SC(SC_FFN1), NAT(16), NAT(24) };
    frame bwd_att0[] = { SC(SC_ATT0), NAT(16), NAT(24) };
    frame bwd_ffn0[] = { SC(SC_FFN0), NAT(16), NAT(24) };
#define N(a) (int)(sizeof a / sizeof a[0])
    uint32_t s_w = stack_of(weights, N(weights)), s_emb = stack_of(emb, N(emb));
    uint32_t s_att0 = stack_of(att0, N(att0)), s_ffn0 = stack_of(ffn0, N(ffn0));
    uint32_t s_att1 = stack_of(att1, N(att1)), s_ffn1 = stack_of(ffn1, N(ffn1));
    uint32_t s_ans = stack_of(att_noscope, N(att_noscope)), s_lib = stack_of(lib_only, N(lib_only));
    uint32_t s_b_att1 = stack_of(bwd_att1, N(bwd_att1)), s_b_ffn1 = stack_of(bwd_ffn1, N(bwd_ffn1));
    uint32_t s_b_att0 = stack_of(bwd_att0, N(bwd_att0)), s_b_ffn0 = stack_of(bwd_ffn0, N(bwd_ffn0));

    const uint64_t A = 0x7f0000000000ull;
    uint64_t s2 = seq * seq / (128 * 128), s1 = seq / 128;  /* 1 at seq 128 */
    now = 1 * MS; alloc_(A + 0x000000000, 400 * MiB, s_w);
    now = 2 * MS; alloc_(A + 0x100000000, 2 * MiB * s1, s_emb);
    now = 3 * MS; alloc_(A + 0x200000000, 12 * MiB * s2, s_att0);  /* scores */
    now = 4 * MS; alloc_(A + 0x300000000, 6 * MiB * s1, s_att0);   /* context */
    now = 5 * MS; alloc_(A + 0x400000000, 64 * MiB * s1, s_ffn0);  /* temporary */
    now = 6 * MS; free_(A + 0x400000000);
    now = 7 * MS; alloc_(A + 0x500000000, 8 * MiB * s1, s_ffn0);
    now = 8 * MS; alloc_(A + 0x600000000, 12 * MiB * s2, s_att1);
    now = 9 * MS; alloc_(A + 0x700000000, 6 * MiB * s1, s_att1);
    now = 10 * MS; alloc_(A + 0x800000000, 8 * MiB * s1, s_ffn1);
    now = 11 * MS; alloc_(A + 0x900000000, 1 * MiB * s1, s_ans);
    now = 12 * MS; alloc_(A + 0xa00000000, 1 * MiB, s_lib);
    /* backward, on the autograd thread */
    tid = 101;
    now = 13 * MS; alloc_(A + 0xb00000000, 4 * MiB * s1, s_b_ffn1);
    now = 14 * MS; free_(A + 0x800000000);
    now = 15 * MS; alloc_(A + 0xc00000000, 4 * MiB * s2, s_b_att1);
    now = 16 * MS; free_(A + 0x600000000);
    now = 17 * MS; free_(A + 0x700000000);
    now = 18 * MS; alloc_(A + 0xd00000000, 4 * MiB * s1, s_b_ffn0);
    now = 19 * MS; free_(A + 0x500000000);
    now = 20 * MS; alloc_(A + 0xe00000000, 4 * MiB * s2, s_b_att0);
    now = 21 * MS; free_(A + 0x200000000);
    now = 22 * MS; free_(A + 0x300000000);
    tid = 100;
    for (uint64_t a = 0x100000000; a <= 0xe00000000; a += 0x100000000) {
        if (a == 0x200000000 || a == 0x300000000 || a == 0x400000000 || a == 0x500000000 || a == 0x600000000 ||
            a == 0x700000000 || a == 0x800000000) continue;
        now += MS;
        free_(A + a);
    }
    now += MS;
    vt_rec t = { .type = VT_REC_TRAILER, .device = -1, .flags = 1, .counts = counts };
    uint64_t c[VT_REC_TYPE_MAX];
    memcpy(c, counts, sizeof c);
    t.counts = c;
    emit(&t);
    flush();
    if (fclose(out) != 0) { fprintf(stderr, "vt_layergen: %s: %s\n", argv[2], strerror(errno)); return 1; }
    return 0;
}
