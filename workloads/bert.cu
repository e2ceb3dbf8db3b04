// SPDX-License-Identifier: MIT
/* bert.cu - vt-bert: trains a BERT encoder for sequence classification on synthetic data,
 * allocating device memory like a framework, with exact per-category ground truth.
 *
 * The model is Hugging Face's BertForSequenceClassification (same parameters, same names,
 * same maths): embeddings (word + position + token type, LayerNorm eps 1e-12), N encoder
 * layers (Q/K/V/O linears with bias, softmax(QK^T/sqrt(d)) with an all-ones mask, residual +
 * LayerNorm; FFN linear -> exact erf GELU -> linear, residual + LayerNorm), pooler (dense +
 * tanh on [CLS]), classifier, mean cross-entropy. Dropout is left out (p = 0), which is what
 * makes the run deterministic and comparable with HF (tests/gpu/check_bert_hf.py).
 *
 * GEMMs go through cuBLAS (fp32 accumulate, no TF32); everything else is a hand-written
 * kernel in bert_kernels.cuh. Device memory goes through bert_mem.cuh.
 *
 * `--plan` walks the very same training code with the GPU work switched off and prints the
 * bytes each category holds at the peak and at the end: see docs/workloads.md. */
#include "bert_mem.cuh"
#include "bert_kernels.cuh"

#include <errno.h>
#include <math.h>
#include <sys/stat.h>
#include <time.h>

/* ------------------------------------------------------------------------ *
 *  Configuration
 * ------------------------------------------------------------------------ */
enum { PREC_FP32, PREC_FP16, PREC_BF16 };
enum { OPT_SGD, OPT_MOMENTUM, OPT_ADAMW };
static const char *const prec_name[] = {"fp32", "fp16", "bf16"};
static const char *const opt_name[] = {"sgd", "momentum", "adamw"};

typedef struct {
    const char *name;
    int layers, hidden, heads, ffn;
} bert_preset;

static const bert_preset presets[] = {
    {"tiny", 4, 312, 12, 1200},
    {"distil", 6, 768, 12, 3072},
    {"base", 12, 768, 12, 3072},
    {"large", 24, 1024, 16, 4096},
};

#define VT_WORKSPACE_BYTES ((size_t)32 << 20) /* NVIDIA's recommended cuBLAS workspace on Hopper */

typedef struct {
    const char *model;
    int layers, hidden, heads, ffn, vocab, max_pos, type_vocab, labels;
    int batch, seq, prec, recompute, opt, steps, warmup;
    uint64_t seed;
    float lr, wd, beta1, beta2, eps, momentum;
    int plan, quiet;
    const char *dump_dir, *json_path, *events_path;
} bert_cfg;

static void usage(FILE *f)
{
    fprintf(f,
        "usage: vt-bert [options]\n"
        "  Trains HF BertForSequenceClassification on synthetic data, allocating device memory\n"
        "  like a framework; prints a JSON report (one line) on stdout, progress on stderr.\n"
        "  --model tiny|distil|base|large   preset (default tiny)\n"
        "  --layers N --hidden N --heads N --ffn N --vocab N   override the preset\n"
        "  --batch N (8)  --seq N (128, at most 512)\n"
        "  --precision fp32|fp16|bf16 (fp32)  mixed precision: fp32 master weights, grads,\n"
        "                          optimizer state; activations and GEMM inputs in fp16/bf16\n"
        "  --recompute             gradient checkpointing: keep only layer inputs\n"
        "  --optimizer sgd|momentum|adamw (adamw)  --lr F (2e-4, 0.01 momentum, 0.1 sgd)\n"
        "  --warmup N              linear learning-rate warmup over N steps (steps/3)\n"
        "  --steps N (30)  --seed N (1)\n"
        "  --plan                  print the exact memory plan as JSON, touch no GPU\n"
        "  --events FILE           write every allocation and free as JSON lines\n"
        "  --json FILE             also write the JSON report to FILE\n"
        "  --dump-init DIR         write initial weights, first batch, first loss and\n"
        "                          gradient norms (for tests/gpu/check_bert_hf.py)\n"
        "  --quiet                 no per-step progress lines\n"
        "  env VT_BERT_SYNC=1      synchronise after every kernel (precise error sites)\n");
}

static long parse_int(const char *opt, const char *s, long lo, long hi)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || end == s || v < lo || v > hi) {
        fprintf(stderr, "vt-bert: %s wants an integer in [%ld, %ld], got '%s'\n", opt, lo, hi, s);
        exit(2);
    }
    return v;
}

static int parse_choice(const char *opt, const char *s, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(s, names[i])) return i;
    fprintf(stderr, "vt-bert: %s: unknown value '%s'\n", opt, s);
    exit(2);
}

static void parse_args(int argc, char **argv, bert_cfg *c)
{
    memset(c, 0, sizeof *c);
    c->model = "tiny";
    c->vocab = 30522;
    c->max_pos = 512;
    c->type_vocab = 2;
    c->labels = 2;
    c->batch = 8;
    c->seq = 128;
    c->prec = PREC_FP32;
    c->opt = OPT_ADAMW;
    c->steps = 30;
    c->seed = 1;
    c->lr = -1.0f;
    c->wd = 0.01f;
    c->beta1 = 0.9f;
    c->beta2 = 0.999f;
    c->eps = 1e-8f;
    c->momentum = 0.9f;
    c->warmup = -1;
    int layers = 0, hidden = 0, heads = 0, ffn = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define NEEDV() do { if (!v) { fprintf(stderr, "vt-bert: %s needs a value\n", a); exit(2); } i++; } while (0)
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) { usage(stdout); exit(0); }
        else if (!strcmp(a, "--model")) { NEEDV(); c->model = v; }
        else if (!strcmp(a, "--layers")) { NEEDV(); layers = (int)parse_int(a, v, 1, 256); }
        else if (!strcmp(a, "--hidden")) { NEEDV(); hidden = (int)parse_int(a, v, 1, 65536); }
        else if (!strcmp(a, "--heads")) { NEEDV(); heads = (int)parse_int(a, v, 1, 1024); }
        else if (!strcmp(a, "--ffn")) { NEEDV(); ffn = (int)parse_int(a, v, 1, 262144); }
        else if (!strcmp(a, "--vocab")) { NEEDV(); c->vocab = (int)parse_int(a, v, 200, 1 << 24); }
        else if (!strcmp(a, "--batch")) { NEEDV(); c->batch = (int)parse_int(a, v, 1, 1 << 16); }
        else if (!strcmp(a, "--seq")) { NEEDV(); c->seq = (int)parse_int(a, v, 3, 512); }
        else if (!strcmp(a, "--precision")) { NEEDV(); c->prec = parse_choice(a, v, prec_name, 3); }
        else if (!strcmp(a, "--recompute")) c->recompute = 1;
        else if (!strcmp(a, "--optimizer")) { NEEDV(); c->opt = parse_choice(a, v, opt_name, 3); }
        else if (!strcmp(a, "--steps")) { NEEDV(); c->steps = (int)parse_int(a, v, 1, 1000000); }
        else if (!strcmp(a, "--warmup")) { NEEDV(); c->warmup = (int)parse_int(a, v, 0, 1000000); }
        else if (!strcmp(a, "--seed")) { NEEDV(); c->seed = (uint64_t)parse_int(a, v, 0, 0x7fffffffffffffffL); }
        else if (!strcmp(a, "--lr")) {
            NEEDV();
            char *end;
            c->lr = strtof(v, &end);
            if (*end || end == v || !(c->lr > 0.0f)) { fprintf(stderr, "vt-bert: --lr wants a positive number\n"); exit(2); }
        }
        else if (!strcmp(a, "--plan")) c->plan = 1;
        else if (!strcmp(a, "--quiet")) c->quiet = 1;
        else if (!strcmp(a, "--events")) { NEEDV(); c->events_path = v; }
        else if (!strcmp(a, "--json")) { NEEDV(); c->json_path = v; }
        else if (!strcmp(a, "--dump-init")) { NEEDV(); c->dump_dir = v; }
        else { fprintf(stderr, "vt-bert: unknown option '%s' (try --help)\n", a); exit(2); }
#undef NEEDV
    }
    const bert_preset *p = NULL;
    for (size_t i = 0; i < sizeof presets / sizeof presets[0]; i++)
        if (!strcmp(c->model, presets[i].name)) p = &presets[i];
    if (!p) { fprintf(stderr, "vt-bert: unknown model '%s' (tiny, distil, base, large)\n", c->model); exit(2); }
    c->layers = layers ? layers : p->layers;
    c->hidden = hidden ? hidden : p->hidden;
    c->heads = heads ? heads : p->heads;
    c->ffn = ffn ? ffn : p->ffn;
    if (c->hidden % c->heads) {
        fprintf(stderr, "vt-bert: hidden (%d) must be a multiple of heads (%d)\n", c->hidden, c->heads);
        exit(2);
    }
    if (c->seq > c->max_pos) { fprintf(stderr, "vt-bert: --seq is at most %d\n", c->max_pos); exit(2); }
    /* Defaults under which the loss falls within 30 steps for every preset (docs/workloads.md) */
    if (c->lr < 0.0f) c->lr = c->opt == OPT_ADAMW ? 2e-4f : c->opt == OPT_MOMENTUM ? 1e-2f : 1e-1f;
    if (c->warmup < 0) c->warmup = c->steps / 3;
    if (c->plan && c->dump_dir) { fprintf(stderr, "vt-bert: --dump-init needs a real run, not --plan\n"); exit(2); }
}

/* ------------------------------------------------------------------------ *
 *  Parameters (Hugging Face names and shapes, in named_parameters() order)
 * ------------------------------------------------------------------------ */
enum { INIT_NORMAL, INIT_ZERO, INIT_ONE };

typedef struct {
    char name[80];
    int rows, cols;  /* cols == 0: a vector of `rows` */
    size_t numel;
    int init;
    int gemm;        /* a GEMM operand: gets a low-precision copy under mixed precision */
    float *w;        /* fp32 master */
    void *wlp;       /* fp16/bf16 copy of w, refreshed by the optimizer */
    float *g;        /* fp32 gradient, allocated at the first backward */
    float *m, *v;    /* optimizer state, allocated at the first step */
} param;

typedef struct {
    param *qw, *qb, *kw, *kb, *vw, *vb, *ow, *ob, *ln1w, *ln1b, *f1w, *f1b, *f2w, *f2b, *ln2w, *ln2b;
} layer_params;

typedef struct {
    param *P;
    int np;
    size_t numel;
    param *word, *pos, *type, *elnw, *elnb, *poolw, *poolb, *clsw, *clsb;
    layer_params *L;
} bert_model;

/* Activations a layer keeps for its backward pass. */
typedef struct {
    void *x; /* input: the previous layer's output, freed by this layer's backward */
    void *q, *k, *v, *p, *ctx, *h1_pre, *h1, *f_pre, *f_act, *h2_pre;
    float *m1, *r1, *m2, *r2;
    void *out;
} layer_acts;

typedef struct {
    int *ids, *tt, *labels;
    void *emb_pre;
    float *em, *er;
    layer_acts *L;
    void *cls, *pooled, *logits;
} bert_acts;

/* The run: configuration, model and the cuBLAS handle. Process-wide for the same reason
 * as the ledger (one training job per process); every function below reads it. */
static struct {
    bert_cfg c;
    bert_model m;
    bert_acts a;
    cublasHandle_t blas;
    int sync;            /* VT_BERT_SYNC=1 */
    size_t es;           /* bytes per stored activation element */
    cudaDataType_t dt;   /* CUDA type of activations and GEMM inputs */
    float loss_scale;
    int good_steps, adam_t, skipped;
    void *workspace;
} G;

static param *add_param(bert_model *m, const char *name, int rows, int cols, int init, int gemm)
{
    param *p = &m->P[m->np++];
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s", name);
    p->rows = rows;
    p->cols = cols;
    p->numel = (size_t)rows * (cols ? cols : 1);
    p->init = init;
    p->gemm = gemm;
    m->numel += p->numel;
    return p;
}

static void model_build(bert_model *m, const bert_cfg *c)
{
    int H = c->hidden, F = c->ffn;
    memset(m, 0, sizeof *m);
    m->P = (param *)calloc((size_t)(9 + 16 * c->layers), sizeof(param));
    m->L = (layer_params *)calloc((size_t)c->layers, sizeof(layer_params));
    if (!m->P || !m->L) vt_die("out of host memory");
    m->word = add_param(m, "bert.embeddings.word_embeddings.weight", c->vocab, H, INIT_NORMAL, 0);
    m->pos = add_param(m, "bert.embeddings.position_embeddings.weight", c->max_pos, H, INIT_NORMAL, 0);
    m->type = add_param(m, "bert.embeddings.token_type_embeddings.weight", c->type_vocab, H, INIT_NORMAL, 0);
    m->elnw = add_param(m, "bert.embeddings.LayerNorm.weight", H, 0, INIT_ONE, 0);
    m->elnb = add_param(m, "bert.embeddings.LayerNorm.bias", H, 0, INIT_ZERO, 0);
    char n[80];
#define LP(field, suffix, r, cc, init, gemm)                                   \
    snprintf(n, sizeof n, "bert.encoder.layer.%d.%s", l, suffix);            \
    m->L[l].field = add_param(m, n, r, cc, init, gemm)
    for (int l = 0; l < c->layers; l++) {
        LP(qw, "attention.self.query.weight", H, H, INIT_NORMAL, 1);
        LP(qb, "attention.self.query.bias", H, 0, INIT_ZERO, 0);
        LP(kw, "attention.self.key.weight", H, H, INIT_NORMAL, 1);
        LP(kb, "attention.self.key.bias", H, 0, INIT_ZERO, 0);
        LP(vw, "attention.self.value.weight", H, H, INIT_NORMAL, 1);
        LP(vb, "attention.self.value.bias", H, 0, INIT_ZERO, 0);
        LP(ow, "attention.output.dense.weight", H, H, INIT_NORMAL, 1);
        LP(ob, "attention.output.dense.bias", H, 0, INIT_ZERO, 0);
        LP(ln1w, "attention.output.LayerNorm.weight", H, 0, INIT_ONE, 0);
        LP(ln1b, "attention.output.LayerNorm.bias", H, 0, INIT_ZERO, 0);
        LP(f1w, "intermediate.dense.weight", F, H, INIT_NORMAL, 1);
        LP(f1b, "intermediate.dense.bias", F, 0, INIT_ZERO, 0);
        LP(f2w, "output.dense.weight", H, F, INIT_NORMAL, 1);
        LP(f2b, "output.dense.bias", H, 0, INIT_ZERO, 0);
        LP(ln2w, "output.LayerNorm.weight", H, 0, INIT_ONE, 0);
        LP(ln2b, "output.LayerNorm.bias", H, 0, INIT_ZERO, 0);
    }
#undef LP
    m->poolw = add_param(m, "bert.pooler.dense.weight", H, H, INIT_NORMAL, 1);
    m->poolb = add_param(m, "bert.pooler.dense.bias", H, 0, INIT_ZERO, 0);
    m->clsw = add_param(m, "classifier.weight", c->labels, H, INIT_NORMAL, 1);
    m->clsb = add_param(m, "classifier.bias", c->labels, 0, INIT_ZERO, 0);
}

/* ------------------------------------------------------------------------ *
 *  Device operations. Each returns at once under --plan; the launch macro's guard makes
 *  a forgotten early return a loud failure rather than a silent CUDA call.
 * ------------------------------------------------------------------------ */
static void kcheck(const char *what, const char *file, int line)
{
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess && G.sync) e = cudaDeviceSynchronize();
    if (e != cudaSuccess)
        vt_die("kernel %s (%s:%d) failed: %s (%s)", what, file, line, cudaGetErrorName(e),
               cudaGetErrorString(e));
}

#define LAUNCH(kernel, grid, block, ...)                 \
    do {                                                 \
        plan_guard(#kernel, __FILE__, __LINE__);         \
        kernel<<<(grid), (block)>>>(__VA_ARGS__);        \
        kcheck(#kernel, __FILE__, __LINE__);             \
    } while (0)

#define DEVICE_WORK() \
    do {              \
        if (M.plan) return; \
    } while (0)

/* Instantiates the statement for the run's activation type T. */
#define DISPATCH(...)                                                   \
    do {                                                                \
        switch (G.c.prec) {                                             \
        case PREC_FP32: { typedef float T; __VA_ARGS__; } break;        \
        case PREC_FP16: { typedef __half T; __VA_ARGS__; } break;       \
        default: { typedef __nv_bfloat16 T; __VA_ARGS__; } break;       \
        }                                                               \
    } while (0)

static unsigned blocks_for(size_t n)
{
    size_t b = (n + 255) / 256;
    return (unsigned)(b < 1 ? 1 : b > 65536 ? 65536 : b);
}
static unsigned warp_rows_blocks(int rows) { return (unsigned)((rows + 7) / 8); } /* 8 warps/block */

/* Byte offset into an activation buffer, in elements of the activation type. */
static void *aoff(const void *p, size_t elems) { return (char *)p + elems * G.es; }

static void gemm(cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, float alpha,
                 const void *A, cudaDataType_t at, int lda, const void *B, cudaDataType_t bt,
                 int ldb, float beta, void *C, cudaDataType_t ct, int ldc)
{
    DEVICE_WORK();
    CUBLAS_CHECK(cublasGemmEx(G.blas, ta, tb, m, n, k, &alpha, A, at, lda, B, bt, ldb, &beta, C,
                              ct, ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

static void gemm_batched(cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                         float alpha, const void *A, int lda, long long sa, const void *B, int ldb,
                         long long sb, float beta, void *C, int ldc, long long sc, int batch)
{
    DEVICE_WORK();
    CUBLAS_CHECK(cublasGemmStridedBatchedEx(G.blas, ta, tb, m, n, k, &alpha, A, G.dt, lda, sa, B,
                                            G.dt, ldb, sb, &beta, C, G.dt, ldc, sc, batch,
                                            CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

/* The weight a GEMM reads: the low-precision copy under mixed precision. */
static const void *gemm_weight(const param *p) { return G.c.prec == PREC_FP32 ? (const void *)p->w : p->wlp; }

/* Gradients are allocated when the first backward pass first reaches them, then kept. */
static float *grad_of(param *p)
{
    if (!p->g) {
        p->g = (float *)alloc_grad(p->numel * sizeof(float), "%s.grad", p->name);
        if (!M.plan) CUDA_CHECK(cudaMemset(p->g, 0, p->numel * sizeof(float)));
    }
    return p->g;
}

/* y[N, out] = x[N, in] W^T, W in HF's [out, in] layout (row-major = cuBLAS column-major W^T) */
static void op_linear(const void *x, const param *w, void *y, int N, int in, int out)
{
    gemm(CUBLAS_OP_T, CUBLAS_OP_N, out, N, in, 1.0f, gemm_weight(w), G.dt, in, x, G.dt, in, 0.0f,
         y, G.dt, out);
}

/* db += colsum(dy); dW += dy^T x; dx = dy W (+ dx when accumulate) */
static void op_linear_bwd(const void *dy, const void *x, param *w, param *b, void *dx,
                          int accumulate, int N, int in, int out)
{
    float *gb = grad_of(b), *gw = grad_of(w);
    DEVICE_WORK();
    DISPATCH(LAUNCH(k_bias_grad<T>, (unsigned)((out + 31) / 32), dim3(32, 32), (const T *)dy, gb, N, out));
    gemm(CUBLAS_OP_N, CUBLAS_OP_T, in, out, N, 1.0f, x, G.dt, in, dy, G.dt, out, 1.0f, gw,
         CUDA_R_32F, in);
    if (dx)
        gemm(CUBLAS_OP_N, CUBLAS_OP_N, in, N, out, 1.0f, gemm_weight(w), G.dt, in, dy, G.dt, out,
             accumulate ? 1.0f : 0.0f, dx, G.dt, in);
}

static void op_bias_add(void *y, const param *b, int N, int C)
{
    DEVICE_WORK();
    DISPATCH(LAUNCH(k_bias_add<T>, blocks_for((size_t)N * C), 256, (T *)y, b->w, N, C));
}

static void op_bias_residual(void *y, const param *b, const void *res, int N, int C)
{
    DEVICE_WORK();
    DISPATCH(LAUNCH(k_bias_residual<T>, blocks_for((size_t)N * C), 256, (T *)y, b->w, (const T *)res, N, C));
}

static void op_bias_gelu(void *pre, const param *b, void *act, int N, int C)
{
    DEVICE_WORK();
    DISPATCH(LAUNCH(k_bias_gelu<T>, blocks_for((size_t)N * C), 256, (T *)pre, b->w, (T *)act, N, C));
}

static void op_gelu_bwd(void *d, const void *pre, size_t n)
{
    DEVICE_WORK();
    DISPATCH(LAUNCH(k_gelu_bwd<T>, blocks_for(n), 256, (T *)d, (const T *)pre, n));
}

static void op_layernorm(const void *x, const param *g, const param *b, void *out, float *mean,
                         float *rstd, int N, int C)
{
    DEVICE_WORK();
    DISPATCH(LAUNCH(k_layernorm_fwd<T>, warp_rows_blocks(N), 256, (const T *)x, g->w, b->w,
                    (T *)out, mean, rstd, N, C, 1e-12f));
}

static void op_layernorm_bwd(const void *dy, const void *x, const float *mean, const float *rstd,
                             param *g, param *b, void *dx, int N, int C)
{
    float *gg = grad_of(g), *gb = grad_of(b);
    DEVICE_WORK();
    DISPATCH(LAUNCH(k_layernorm_bwd_dx<T>, warp_rows_blocks(N), 256, (const T *)dy, (const T *)x,
                    mean, rstd, g->w, (T *)dx, N, C));
    DISPATCH(LAUNCH(k_layernorm_bwd_params<T>, (unsigned)((C + 31) / 32), dim3(32, 32),
                    (const T *)dy, (const T *)x, mean, rstd, gg, gb, N, C));
}

/* Attention GEMMs. Q, K, V, context are [B, T, H] row-major, head h at column h*D, so for one
 * sequence b the heads form a strided batch (stride D, leading dimension H). */
static void op_attn_scores(const void *q, const void *k, void *s)
{
    int B = G.c.batch, T_ = G.c.seq, H = G.c.hidden, NH = G.c.heads, D = H / NH;
    float scale = 1.0f / sqrtf((float)D);
    for (int b = 0; b < B; b++) /* S^T(j,i) = K_j . Q_i: row-major S[i][j] */
        gemm_batched(CUBLAS_OP_T, CUBLAS_OP_N, T_, T_, D, scale, aoff(k, (size_t)b * T_ * H), H, D,
                     aoff(q, (size_t)b * T_ * H), H, D, 0.0f, aoff(s, (size_t)b * NH * T_ * T_), T_,
                     (long long)T_ * T_, NH);
}

static void op_attn_context(const void *p, const void *v, void *ctx)
{
    int B = G.c.batch, T_ = G.c.seq, H = G.c.hidden, NH = G.c.heads, D = H / NH;
    for (int b = 0; b < B; b++) /* ctx_i = sum_j P[i][j] V_j */
        gemm_batched(CUBLAS_OP_N, CUBLAS_OP_N, D, T_, T_, 1.0f, aoff(v, (size_t)b * T_ * H), H, D,
                     aoff(p, (size_t)b * NH * T_ * T_), T_, (long long)T_ * T_, 0.0f,
                     aoff(ctx, (size_t)b * T_ * H), H, D, NH);
}

/* dP = dctx V^T and dV = P^T dctx */
static void op_attn_context_bwd(const void *dctx, const void *p, const void *v, void *dp, void *dv)
{
    int B = G.c.batch, T_ = G.c.seq, H = G.c.hidden, NH = G.c.heads, D = H / NH;
    for (int b = 0; b < B; b++) {
        size_t o = (size_t)b * T_ * H, op = (size_t)b * NH * T_ * T_;
        gemm_batched(CUBLAS_OP_T, CUBLAS_OP_N, T_, T_, D, 1.0f, aoff(v, o), H, D, aoff(dctx, o), H,
                     D, 0.0f, aoff(dp, op), T_, (long long)T_ * T_, NH);
        gemm_batched(CUBLAS_OP_N, CUBLAS_OP_T, D, T_, T_, 1.0f, aoff(dctx, o), H, D, aoff(p, op), T_,
                     (long long)T_ * T_, 0.0f, aoff(dv, o), H, D, NH);
    }
}

/* dQ = scale dS K and dK = scale dS^T Q */
static void op_attn_scores_bwd(const void *ds, const void *q, const void *k, void *dq, void *dk)
{
    int B = G.c.batch, T_ = G.c.seq, H = G.c.hidden, NH = G.c.heads, D = H / NH;
    float scale = 1.0f / sqrtf((float)D);
    for (int b = 0; b < B; b++) {
        size_t o = (size_t)b * T_ * H, os = (size_t)b * NH * T_ * T_;
        gemm_batched(CUBLAS_OP_N, CUBLAS_OP_N, D, T_, T_, scale, aoff(k, o), H, D, aoff(ds, os), T_,
                     (long long)T_ * T_, 0.0f, aoff(dq, o), H, D, NH);
        gemm_batched(CUBLAS_OP_N, CUBLAS_OP_T, D, T_, T_, scale, aoff(q, o), H, D, aoff(ds, os), T_,
                     (long long)T_ * T_, 0.0f, aoff(dk, o), H, D, NH);
    }
}

static void op_softmax(const void *s, void *p, int rows, int cols)
{
    DEVICE_WORK();
    DISPATCH(LAUNCH(k_softmax_fwd<T>, warp_rows_blocks(rows), 256, (const T *)s, (T *)p, rows, cols));
}

static void op_softmax_bwd(void *dp, const void *p, int rows, int cols)
{
    DEVICE_WORK();
    DISPATCH(LAUNCH(k_softmax_bwd<T>, warp_rows_blocks(rows), 256, (T *)dp, (const T *)p, rows, cols));
}

static void op_memset(void *p, size_t bytes)
{
    DEVICE_WORK();
    CUDA_CHECK(cudaMemset(p, 0, bytes));
}

static void op_upload(void *dst, const void *src, size_t bytes)
{
    DEVICE_WORK();
    CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
}

static void op_download(void *dst, const void *src, size_t bytes)
{
    DEVICE_WORK();
    CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
}

/* ------------------------------------------------------------------------ *
 *  Weights
 * ------------------------------------------------------------------------ */
static void weights_create(void)
{
    bert_model *m = &G.m;
    for (int i = 0; i < m->np; i++) {
        param *p = &m->P[i];
        p->w = (float *)alloc_weight(p->numel * sizeof(float), "%s", p->name);
        if (p->gemm && G.c.prec != PREC_FP32)
            p->wlp = alloc_weight(p->numel * G.es, "%s.%s", p->name, prec_name[G.c.prec]);
    }
    if (M.plan) return;
    for (int i = 0; i < m->np; i++) {
        param *p = &m->P[i];
        if (p->init == INIT_NORMAL) /* HF: normal(0, initializer_range = 0.02) */
            LAUNCH(k_init_normal, blocks_for(p->numel), 256, p->w, p->numel, 0.02f,
                   G.c.seed * 0x100000001B3ull + (uint64_t)i);
        else
            LAUNCH(k_fill, blocks_for(p->numel), 256, p->w, p->numel, p->init == INIT_ONE ? 1.0f : 0.0f);
        if (p->wlp) DISPATCH(LAUNCH(k_cast<T>, blocks_for(p->numel), 256, p->w, (T *)p->wlp, p->numel));
    }
    /* HF zeroes the padding row (pad_token_id = 0) of the word embeddings */
    CUDA_CHECK(cudaMemset(m->word->w, 0, (size_t)G.c.hidden * sizeof(float)));
}

/* ------------------------------------------------------------------------ *
 *  Synthetic data
 *
 *  label = 1 when the token at position 1 has an even id. To make the rule learnable in a
 *  few dozen steps by every optimizer, positions 1..T-2 all hold ids of the label's parity
 *  drawn from VT_TASK_IDS ids (even ids lo, lo+2.. for label 1, odd lo+1, lo+3.. for 0);
 *  position 0 is [CLS] (101), T-1 is [SEP] (102). Token types: 0 for the first half of
 *  the sequence, 1 for the second. With 32 ids per label AdamW still learns, plain SGD
 *  does not within 30 steps (measured on an H200, 2026-11-29).
 * ------------------------------------------------------------------------ */
#define VT_TASK_IDS 2u
static uint64_t host_splitmix(uint64_t *s)
{
    uint64_t x = (*s += 0x9E3779B97F4A7C15ull);
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

static void make_batch(int step, int *ids, int *tt, int *labels)
{
    int B = G.c.batch, T_ = G.c.seq;
    int lo = G.c.vocab >= 1200 ? 1000 : 104; /* clear of [PAD] 0, [CLS] 101, [SEP] 102 */
    uint64_t s = G.c.seed * 0xD1B54A32D192ED03ull + (uint64_t)step;
    for (int b = 0; b < B; b++) {
        int label = (int)(host_splitmix(&s) & 1);
        labels[b] = label;
        for (int t = 0; t < T_; t++) {
            int id;
            if (t == 0) id = 101;
            else if (t == T_ - 1) id = 102;
            else id = lo + 2 * (int)(host_splitmix(&s) % VT_TASK_IDS) + (label ? 0 : 1);
            ids[b * T_ + t] = id;
            tt[b * T_ + t] = t < T_ / 2 ? 0 : 1;
        }
    }
}

/* ------------------------------------------------------------------------ *
 *  Forward
 * ------------------------------------------------------------------------ */
static void layer_forward(int l, layer_acts *a, int save, int want_out)
{
    const layer_params *p = &G.m.L[l];
    int B = G.c.batch, T_ = G.c.seq, H = G.c.hidden, NH = G.c.heads, F = G.c.ffn, BT = B * T_;
    size_t bth = (size_t)BT * H * G.es, btf = (size_t)BT * F * G.es;
    size_t att = (size_t)B * NH * T_ * T_ * G.es, stat = (size_t)BT * sizeof(float);

    region_push("layer.%d.attention", l);
    a->q = alloc_activation(bth, "layer.%d.attention.self.query", l);
    op_linear(a->x, p->qw, a->q, BT, H, H);
    op_bias_add(a->q, p->qb, BT, H);
    a->k = alloc_activation(bth, "layer.%d.attention.self.key", l);
    op_linear(a->x, p->kw, a->k, BT, H, H);
    op_bias_add(a->k, p->kb, BT, H);
    a->v = alloc_activation(bth, "layer.%d.attention.self.value", l);
    op_linear(a->x, p->vw, a->v, BT, H, H);
    op_bias_add(a->v, p->vb, BT, H);
    void *scores = alloc_temp(att, "layer.%d.attention.scores", l);
    op_attn_scores(a->q, a->k, scores);
    a->p = alloc_activation(att, "layer.%d.attention.probs", l);
    op_softmax(scores, a->p, B * NH * T_, T_);
    mem_free(scores);
    a->ctx = alloc_activation(bth, "layer.%d.attention.context", l);
    op_attn_context(a->p, a->v, a->ctx);
    a->h1_pre = alloc_activation(bth, "layer.%d.attention.output.dense", l);
    op_linear(a->ctx, p->ow, a->h1_pre, BT, H, H);
    op_bias_residual(a->h1_pre, p->ob, a->x, BT, H);
    a->m1 = (float *)alloc_activation(stat, "layer.%d.attention.output.LayerNorm.mean", l);
    a->r1 = (float *)alloc_activation(stat, "layer.%d.attention.output.LayerNorm.rstd", l);
    a->h1 = alloc_activation(bth, "layer.%d.attention.output", l);
    op_layernorm(a->h1_pre, p->ln1w, p->ln1b, a->h1, a->m1, a->r1, BT, H);
    region_pop();

    region_push("layer.%d.ffn", l);
    a->f_pre = alloc_activation(btf, "layer.%d.intermediate.dense", l);
    op_linear(a->h1, p->f1w, a->f_pre, BT, H, F);
    a->f_act = alloc_activation(btf, "layer.%d.intermediate.gelu", l);
    op_bias_gelu(a->f_pre, p->f1b, a->f_act, BT, F);
    a->h2_pre = alloc_activation(bth, "layer.%d.output.dense", l);
    op_linear(a->f_act, p->f2w, a->h2_pre, BT, F, H);
    op_bias_residual(a->h2_pre, p->f2b, a->h1, BT, H);
    a->m2 = (float *)alloc_activation(stat, "layer.%d.output.LayerNorm.mean", l);
    a->r2 = (float *)alloc_activation(stat, "layer.%d.output.LayerNorm.rstd", l);
    a->out = want_out ? alloc_activation(bth, "layer.%d.output", l) : NULL;
    op_layernorm(a->h2_pre, p->ln2w, p->ln2b, a->out, a->m2, a->r2, BT, H);
    region_pop();

    if (!save) { /* checkpointing: keep only the output, the next layer's input */
        void *tmp[] = {a->q, a->k, a->v, a->p, a->ctx, a->h1_pre, a->m1, a->r1,
                       a->h1, a->f_pre, a->f_act, a->h2_pre, a->m2, a->r2};
        for (size_t i = 0; i < sizeof tmp / sizeof tmp[0]; i++) mem_free(tmp[i]);
        a->q = a->k = a->v = a->p = a->ctx = a->h1_pre = a->h1 = a->f_pre = a->f_act = a->h2_pre = NULL;
        a->m1 = a->r1 = a->m2 = a->r2 = NULL;
    }
}

/* Returns the loss (NaN under --plan). */
static float forward(const int *ids, const int *tt, const int *labels)
{
    bert_acts *a = &G.a;
    int B = G.c.batch, T_ = G.c.seq, H = G.c.hidden, L = G.c.layers, NL = G.c.labels, BT = B * T_;
    size_t bth = (size_t)BT * H * G.es, stat = (size_t)BT * sizeof(float);

    region_push("embeddings");
    a->ids = (int *)alloc_activation((size_t)BT * sizeof(int), "input_ids");
    a->tt = (int *)alloc_activation((size_t)BT * sizeof(int), "token_type_ids");
    a->labels = (int *)alloc_activation((size_t)B * sizeof(int), "labels");
    op_upload(a->ids, ids, (size_t)BT * sizeof(int));
    op_upload(a->tt, tt, (size_t)BT * sizeof(int));
    op_upload(a->labels, labels, (size_t)B * sizeof(int));
    a->emb_pre = alloc_activation(bth, "embeddings.sum");
    if (!M.plan)
        DISPATCH(LAUNCH(k_embed_fwd<T>, blocks_for((size_t)BT * H), 256, a->ids, a->tt, G.m.word->w,
                        G.m.pos->w, G.m.type->w, (T *)a->emb_pre, BT, T_, H));
    a->em = (float *)alloc_activation(stat, "embeddings.LayerNorm.mean");
    a->er = (float *)alloc_activation(stat, "embeddings.LayerNorm.rstd");
    void *x = alloc_activation(bth, "embeddings.output");
    op_layernorm(a->emb_pre, G.m.elnw, G.m.elnb, x, a->em, a->er, BT, H);
    region_pop();

    for (int l = 0; l < L; l++) {
        a->L[l].x = x;
        layer_forward(l, &a->L[l], !G.c.recompute, 1);
        x = a->L[l].out;
    }

    region_push("head");
    a->cls = alloc_activation((size_t)B * H * G.es, "pooler.input");
    if (!M.plan) DISPATCH(LAUNCH(k_gather_cls<T>, blocks_for((size_t)B * H), 256, (const T *)x, (T *)a->cls, B, T_, H));
    mem_free(x); /* the encoder output: only its [CLS] rows live on */
    a->L[L - 1].out = NULL;
    a->pooled = alloc_activation((size_t)B * H * G.es, "pooler.output");
    op_linear(a->cls, G.m.poolw, a->pooled, B, H, H);
    if (!M.plan) DISPATCH(LAUNCH(k_bias_tanh<T>, blocks_for((size_t)B * H), 256, (T *)a->pooled, G.m.poolb->w, B, H));
    a->logits = alloc_activation((size_t)B * NL * G.es, "logits");
    op_linear(a->pooled, G.m.clsw, a->logits, B, H, NL);
    op_bias_add(a->logits, G.m.clsb, B, NL);
    float *dloss = (float *)alloc_temp(sizeof(float), "loss");
    float loss = NAN;
    if (!M.plan) DISPATCH(LAUNCH(k_ce_fwd<T>, 1, 32, (const T *)a->logits, a->labels, dloss, B, NL));
    op_download(&loss, dloss, sizeof loss);
    mem_free(dloss);
    region_pop();
    return loss;
}

/* ------------------------------------------------------------------------ *
 *  Backward
 * ------------------------------------------------------------------------ */
/* Consumes dout (the gradient of the layer's output) and the layer's activations; returns
 * the gradient of its input. */
static void *layer_backward(int l, layer_acts *a, void *dout)
{
    layer_params *p = &G.m.L[l];
    int B = G.c.batch, T_ = G.c.seq, H = G.c.hidden, NH = G.c.heads, F = G.c.ffn, BT = B * T_;
    size_t bth = (size_t)BT * H * G.es, btf = (size_t)BT * F * G.es;
    size_t att = (size_t)B * NH * T_ * T_ * G.es;

    if (G.c.recompute) {
        region_push("layer.%d.recompute", l);
        layer_forward(l, a, 1, 0);
        region_pop();
    }

    region_push("layer.%d.ffn.backward", l);
    void *dh2 = alloc_temp(bth, "layer.%d.output.dense.grad", l);
    op_layernorm_bwd(dout, a->h2_pre, a->m2, a->r2, p->ln2w, p->ln2b, dh2, BT, H);
    mem_free(dout);
    mem_free(a->h2_pre);
    mem_free(a->m2);
    mem_free(a->r2);
    void *df = alloc_temp(btf, "layer.%d.intermediate.grad", l);
    op_linear_bwd(dh2, a->f_act, p->f2w, p->f2b, df, 0, BT, F, H);
    mem_free(a->f_act);
    op_gelu_bwd(df, a->f_pre, (size_t)BT * F);
    mem_free(a->f_pre);
    op_linear_bwd(df, a->h1, p->f1w, p->f1b, dh2, 1, BT, H, F); /* dh2 += df W1: residual */
    mem_free(df);
    mem_free(a->h1);
    region_pop();

    region_push("layer.%d.attention.backward", l);
    void *dh1 = alloc_temp(bth, "layer.%d.attention.output.dense.grad", l);
    op_layernorm_bwd(dh2, a->h1_pre, a->m1, a->r1, p->ln1w, p->ln1b, dh1, BT, H);
    mem_free(dh2);
    mem_free(a->h1_pre);
    mem_free(a->m1);
    mem_free(a->r1);
    void *dctx = alloc_temp(bth, "layer.%d.attention.context.grad", l);
    op_linear_bwd(dh1, a->ctx, p->ow, p->ob, dctx, 0, BT, H, H);
    mem_free(a->ctx);
    void *dp = alloc_temp(att, "layer.%d.attention.probs.grad", l);
    void *dv = alloc_temp(bth, "layer.%d.attention.self.value.grad", l);
    op_attn_context_bwd(dctx, a->p, a->v, dp, dv);
    mem_free(dctx);
    op_softmax_bwd(dp, a->p, B * NH * T_, T_);
    mem_free(a->p);
    void *dq = alloc_temp(bth, "layer.%d.attention.self.query.grad", l);
    void *dk = alloc_temp(bth, "layer.%d.attention.self.key.grad", l);
    op_attn_scores_bwd(dp, a->q, a->k, dq, dk);
    mem_free(dp);
    /* the residual: dh1 already holds d(input) through the skip connection; add Q, K, V */
    op_linear_bwd(dq, a->x, p->qw, p->qb, dh1, 1, BT, H, H);
    mem_free(dq);
    mem_free(a->q);
    op_linear_bwd(dk, a->x, p->kw, p->kb, dh1, 1, BT, H, H);
    mem_free(dk);
    mem_free(a->k);
    op_linear_bwd(dv, a->x, p->vw, p->vb, dh1, 1, BT, H, H);
    mem_free(dv);
    mem_free(a->v);
    mem_free(a->x);
    region_pop();
    memset(a, 0, sizeof *a);
    return dh1;
}

static void backward(int step)
{
    bert_acts *a = &G.a;
    bert_model *m = &G.m;
    int B = G.c.batch, T_ = G.c.seq, H = G.c.hidden, NL = G.c.labels, BT = B * T_;
    size_t bth = (size_t)BT * H * G.es, bh = (size_t)B * H * G.es;

    if (step > 0) /* zero_grad(set_to_none=False): the gradients stay allocated */
        for (int i = 0; i < m->np; i++) op_memset(m->P[i].g, m->P[i].numel * sizeof(float));

    region_push("head.backward");
    void *dlogits = alloc_temp((size_t)B * NL * G.es, "logits.grad");
    if (!M.plan)
        DISPATCH(LAUNCH(k_ce_bwd<T>, (unsigned)((B + 255) / 256), 256, (const T *)a->logits,
                        a->labels, (T *)dlogits, B, NL, G.loss_scale));
    mem_free(a->logits);
    mem_free(a->labels);
    void *dpooled = alloc_temp(bh, "pooler.output.grad");
    op_linear_bwd(dlogits, a->pooled, m->clsw, m->clsb, dpooled, 0, B, H, NL);
    mem_free(dlogits);
    if (!M.plan) DISPATCH(LAUNCH(k_tanh_bwd<T>, blocks_for((size_t)B * H), 256, (T *)dpooled, (const T *)a->pooled, (size_t)B * H));
    mem_free(a->pooled);
    void *dcls = alloc_temp(bh, "pooler.input.grad");
    op_linear_bwd(dpooled, a->cls, m->poolw, m->poolb, dcls, 0, B, H, H);
    mem_free(dpooled);
    mem_free(a->cls);
    void *dx = alloc_temp(bth, "encoder.output.grad");
    if (!M.plan) DISPATCH(LAUNCH(k_scatter_cls<T>, blocks_for((size_t)BT * H), 256, (const T *)dcls, (T *)dx, B, T_, H));
    mem_free(dcls);
    region_pop();

    for (int l = G.c.layers - 1; l >= 0; l--) dx = layer_backward(l, &a->L[l], dx);

    region_push("embeddings.backward");
    void *demb = alloc_temp(bth, "embeddings.sum.grad");
    op_layernorm_bwd(dx, a->emb_pre, a->em, a->er, m->elnw, m->elnb, demb, BT, H);
    mem_free(dx);
    mem_free(a->emb_pre);
    mem_free(a->em);
    mem_free(a->er);
    float *gw = grad_of(m->word), *gp = grad_of(m->pos), *gt = grad_of(m->type);
    if (!M.plan) {
        DISPATCH(LAUNCH(k_embed_bwd_word<T>, (unsigned)((H + 127) / 128), 128, (const T *)demb, a->ids, gw, BT, H));
        DISPATCH(LAUNCH(k_embed_bwd_pos<T>, blocks_for((size_t)T_ * H), 256, (const T *)demb, gp, B, T_, H));
        DISPATCH(LAUNCH(k_embed_bwd_type<T>, blocks_for((size_t)G.c.type_vocab * H), 256, (const T *)demb, a->tt, gt, BT, H, G.c.type_vocab));
    }
    mem_free(demb);
    mem_free(a->ids);
    mem_free(a->tt);
    region_pop();
}

/* ------------------------------------------------------------------------ *
 *  Optimizer step (with the fp16 dynamic loss scale of torch.cuda.amp.GradScaler)
 * ------------------------------------------------------------------------ */
static int optimizer_step(int step)
{
    bert_model *m = &G.m;
    const bert_cfg *c = &G.c;
    region_push("optimizer");
    int skip = 0;
    if (c->prec == PREC_FP16) {
        int *flag = (int *)alloc_temp(sizeof(int), "grad.nonfinite_flag");
        op_memset(flag, sizeof(int));
        if (!M.plan)
            for (int i = 0; i < m->np; i++)
                LAUNCH(k_nonfinite, blocks_for(m->P[i].numel), 256, m->P[i].g, m->P[i].numel, flag);
        op_download(&skip, flag, sizeof skip);
        mem_free(flag);
    }
    /* State exists from the first step on, whether or not that step is applied, so the
     * memory schedule never depends on the data. */
    for (int i = 0; i < m->np; i++) {
        param *p = &m->P[i];
        if (c->opt == OPT_MOMENTUM && !p->m) {
            p->m = (float *)alloc_optstate(p->numel * sizeof(float), "%s.momentum_buffer", p->name);
            op_memset(p->m, p->numel * sizeof(float));
        }
        if (c->opt == OPT_ADAMW && !p->m) {
            p->m = (float *)alloc_optstate(p->numel * sizeof(float), "%s.exp_avg", p->name);
            op_memset(p->m, p->numel * sizeof(float));
            p->v = (float *)alloc_optstate(p->numel * sizeof(float), "%s.exp_avg_sq", p->name);
            op_memset(p->v, p->numel * sizeof(float));
        }
    }
    if (!skip && !M.plan) {
        float gscale = 1.0f / G.loss_scale;
        float lr = c->warmup > 0 && step < c->warmup ? c->lr * (float)(step + 1) / (float)c->warmup : c->lr;
        if (c->opt == OPT_ADAMW) G.adam_t++;
        float bc1 = 1.0f - powf(c->beta1, (float)G.adam_t), bc2 = 1.0f - powf(c->beta2, (float)G.adam_t);
        for (int i = 0; i < m->np; i++) {
            param *p = &m->P[i];
            unsigned nb = blocks_for(p->numel);
            if (c->opt == OPT_SGD)
                DISPATCH(LAUNCH(k_sgd<T>, nb, 256, p->w, p->g, (T *)p->wlp, p->numel, lr, gscale));
            else if (c->opt == OPT_MOMENTUM)
                DISPATCH(LAUNCH(k_momentum<T>, nb, 256, p->w, p->g, p->m, (T *)p->wlp, p->numel, lr, c->momentum, gscale));
            else
                DISPATCH(LAUNCH(k_adamw<T>, nb, 256, p->w, p->g, p->m, p->v, (T *)p->wlp, p->numel, lr,
                                c->beta1, c->beta2, c->eps, c->wd, bc1, bc2, gscale));
        }
    }
    if (c->prec == PREC_FP16 && !M.plan) { /* GradScaler: halve on overflow, double after 2000 good steps */
        if (skip) {
            G.loss_scale *= 0.5f;
            G.good_steps = 0;
            G.skipped++;
        } else if (++G.good_steps == 2000) {
            G.loss_scale *= 2.0f;
            G.good_steps = 0;
        }
    }
    region_pop();
    return skip;
}

/* ------------------------------------------------------------------------ *
 *  --dump-init: initial weights, first batch, first loss and gradient norms
 * ------------------------------------------------------------------------ */
static void write_file(const char *dir, const char *name, const void *data, size_t bytes)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, bytes, f) != bytes || fclose(f) != 0) vt_die("cannot write %s", path);
}

static void json_config(FILE *f);

static void dump_init(const char *dir, const int *ids, const int *tt, const int *labels, float loss)
{
    bert_model *m = &G.m;
    int B = G.c.batch, T_ = G.c.seq;
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) vt_die("cannot create %s", dir);
    char path[4096];
    snprintf(path, sizeof path, "%s/weights.bin", dir);
    FILE *wf = fopen(path, "wb");
    if (!wf) vt_die("cannot write %s", path);
    double *norms = (double *)calloc((size_t)m->np, sizeof(double));
    size_t maxn = 0;
    for (int i = 0; i < m->np; i++) maxn = m->P[i].numel > maxn ? m->P[i].numel : maxn;
    float *h = (float *)malloc(maxn * sizeof(float));
    if (!norms || !h) vt_die("out of host memory");
    for (int i = 0; i < m->np; i++) {
        param *p = &m->P[i];
        CUDA_CHECK(cudaMemcpy(h, p->w, p->numel * sizeof(float), cudaMemcpyDeviceToHost));
        if (fwrite(h, sizeof(float), p->numel, wf) != p->numel) vt_die("cannot write %s", path);
        CUDA_CHECK(cudaMemcpy(h, p->g, p->numel * sizeof(float), cudaMemcpyDeviceToHost));
        double s = 0.0;
        for (size_t j = 0; j < p->numel; j++) s += (double)h[j] * h[j];
        norms[i] = sqrt(s) / G.loss_scale;
    }
    if (fclose(wf) != 0) vt_die("cannot write %s", path);
    free(h);
    write_file(dir, "input_ids.bin", ids, (size_t)B * T_ * sizeof(int));
    write_file(dir, "token_type_ids.bin", tt, (size_t)B * T_ * sizeof(int));
    write_file(dir, "labels.bin", labels, (size_t)B * sizeof(int));

    snprintf(path, sizeof path, "%s/index.json", dir);
    FILE *f = fopen(path, "w");
    if (!f) vt_die("cannot write %s", path);
    fprintf(f, "{\n  \"format\": \"vt-bert-dump/1\",\n  \"config\": ");
    json_config(f);
    fprintf(f, ",\n  \"parameters\": %zu,\n  \"weights\": {\"file\": \"weights.bin\", \"dtype\": \"float32\", \"byteorder\": \"little\"},\n", m->numel);
    fprintf(f, "  \"batch\": {\n    \"input_ids\": {\"file\": \"input_ids.bin\", \"dtype\": \"int32\", \"shape\": [%d, %d]},\n", B, T_);
    fprintf(f, "    \"token_type_ids\": {\"file\": \"token_type_ids.bin\", \"dtype\": \"int32\", \"shape\": [%d, %d]},\n", B, T_);
    fprintf(f, "    \"labels\": {\"file\": \"labels.bin\", \"dtype\": \"int32\", \"shape\": [%d]}\n  },\n", B);
    fprintf(f, "  \"loss\": %.9g,\n  \"loss_scale\": %.9g,\n  \"params\": [\n", loss, G.loss_scale);
    size_t off = 0;
    for (int i = 0; i < m->np; i++) {
        param *p = &m->P[i];
        if (p->cols)
            fprintf(f, "    {\"name\": \"%s\", \"shape\": [%d, %d], \"offset\": %zu, \"numel\": %zu, \"grad_norm\": %.12g}%s\n",
                    p->name, p->rows, p->cols, off, p->numel, norms[i], i + 1 < m->np ? "," : "");
        else
            fprintf(f, "    {\"name\": \"%s\", \"shape\": [%d], \"offset\": %zu, \"numel\": %zu, \"grad_norm\": %.12g}%s\n",
                    p->name, p->rows, off, p->numel, norms[i], i + 1 < m->np ? "," : "");
        off += p->numel * sizeof(float);
    }
    fprintf(f, "  ]\n}\n");
    if (fclose(f) != 0) vt_die("cannot write %s", path);
    free(norms);
    fprintf(stderr, "vt-bert: wrote %s (weights, first batch, loss, gradient norms)\n", dir);
}

/* ------------------------------------------------------------------------ *
 *  Report
 * ------------------------------------------------------------------------ */
static void json_config(FILE *f)
{
    const bert_cfg *c = &G.c;
    fprintf(f, "{\"model\":\"%s\",\"layers\":%d,\"hidden\":%d,\"heads\":%d,\"ffn\":%d,\"vocab\":%d,"
               "\"max_position\":%d,\"type_vocab\":%d,\"num_labels\":%d,\"batch\":%d,\"seq\":%d,"
               "\"precision\":\"%s\",\"recompute\":%s,\"optimizer\":\"%s\",\"lr\":%.6g,\"steps\":%d,"
               "\"warmup\":%d,\"seed\":%llu,\"workspace_bytes\":%zu}",
            c->model, c->layers, c->hidden, c->heads, c->ffn, c->vocab, c->max_pos, c->type_vocab,
            c->labels, c->batch, c->seq, prec_name[c->prec], c->recompute ? "true" : "false",
            opt_name[c->opt], c->lr, c->steps, c->warmup, (unsigned long long)c->seed, VT_WORKSPACE_BYTES);
}

typedef struct {
    size_t at_end[CAT_N];
    float *loss, *scale;
    int *skipped;
    int nsteps;
    double seconds;
    size_t info_free[3], info_total[3]; /* start, end, teardown */
    char device[256];
    int cc_major, cc_minor;
} run_result;

static void report(FILE *f, const run_result *r)
{
    size_t end_total = 0;
    for (int c = 0; c < CAT_N; c++) end_total += r->at_end[c];
    fprintf(f, "{\"workload\":\"vt-bert\",\"format\":1,\"mode\":\"%s\",\"units\":\"requested_bytes\",\"config\":",
            M.plan ? "plan" : "run");
    json_config(f);
    fprintf(f, ",\"parameters\":%zu,\"peak_bytes\":%zu,\"peak\":{\"bytes\":%zu,\"step\":%d,\"phase\":\"%s\","
               "\"region\":\"%s\",\"event\":%ld},\"at_peak\":",
            G.m.numel, M.peak, M.peak, M.peak_step, M.peak_phase, M.peak_region, M.peak_seq);
    mem_print_cats(f, M.at_peak);
    fprintf(f, ",\"end_bytes\":%zu,\"at_end\":", end_total);
    mem_print_cats(f, r->at_end);
    fprintf(f, ",\"category_max\":");
    mem_print_cats(f, M.cat_max);
    fprintf(f, ",\"allocations\":");
    mem_print_counts(f, M.nalloc);
    fprintf(f, ",\"frees\":");
    mem_print_counts(f, M.nfree);
    fprintf(f, ",\"events\":%ld", M.seq);
    if (!M.plan) {
        static const char *const when[3] = {"start", "end", "teardown"};
        fprintf(f, ",\"device\":{\"name\":\"%s\",\"compute_capability\":\"%d.%d\"},\"mem_get_info\":{",
                r->device, r->cc_major, r->cc_minor);
        for (int i = 0; i < 3; i++)
            fprintf(f, "%s\"%s\":{\"free\":%zu,\"total\":%zu}", i ? "," : "", when[i], r->info_free[i], r->info_total[i]);
        fprintf(f, "},\"loss\":[");
        for (int i = 0; i < r->nsteps; i++) fprintf(f, "%s%.7g", i ? "," : "", r->loss[i]);
        fprintf(f, "],\"loss_scale\":[");
        for (int i = 0; i < r->nsteps; i++) fprintf(f, "%s%.7g", i ? "," : "", r->scale[i]);
        fprintf(f, "],\"skipped_steps\":[");
        for (int i = 0, k = 0; i < r->nsteps; i++)
            if (r->skipped[i]) fprintf(f, "%s%d", k++ ? "," : "", i);
        fprintf(f, "],\"train_seconds\":%.3f", r->seconds);
    }
    fprintf(f, "}\n");
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ------------------------------------------------------------------------ *
 *  main
 * ------------------------------------------------------------------------ */
int main(int argc, char **argv)
{
    parse_args(argc, argv, &G.c);
    const bert_cfg *c = &G.c;
    mem_init(c->plan, c->events_path);
    const char *sync = getenv("VT_BERT_SYNC");
    G.sync = sync && *sync && strcmp(sync, "0") != 0;
    G.es = c->prec == PREC_FP32 ? 4 : 2;
    G.dt = c->prec == PREC_FP32 ? CUDA_R_32F : c->prec == PREC_FP16 ? CUDA_R_16F : CUDA_R_16BF;
    G.loss_scale = c->prec == PREC_FP16 ? 65536.0f : 1.0f;
    model_build(&G.m, c);
    G.a.L = (layer_acts *)calloc((size_t)c->layers, sizeof(layer_acts));

    run_result r;
    memset(&r, 0, sizeof r);
    r.nsteps = c->steps;
    r.loss = (float *)calloc((size_t)c->steps, sizeof(float));
    r.scale = (float *)calloc((size_t)c->steps, sizeof(float));
    r.skipped = (int *)calloc((size_t)c->steps, sizeof(int));
    size_t BT = (size_t)c->batch * c->seq;
    int *ids = (int *)malloc(BT * sizeof(int)), *tt = (int *)malloc(BT * sizeof(int));
    int *labels = (int *)malloc((size_t)c->batch * sizeof(int));
    if (!G.a.L || !r.loss || !r.scale || !r.skipped || !ids || !tt || !labels) vt_die("out of host memory");

    if (!M.plan) {
        CUDA_CHECK(cudaSetDevice(0)); /* since CUDA 12 this also creates the primary context */
        cudaDeviceProp prop;
        CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
        snprintf(r.device, sizeof r.device, "%s", prop.name);
        r.cc_major = prop.major;
        r.cc_minor = prop.minor;
        CUDA_CHECK(cudaMemGetInfo(&r.info_free[0], &r.info_total[0]));
        CUBLAS_CHECK(cublasCreate(&G.blas));
        CUBLAS_CHECK(cublasSetMathMode(G.blas, CUBLAS_DEFAULT_MATH)); /* no TF32: true fp32 GEMMs */
    }
    mem_phase("init");
    region_push("init");
    G.workspace = alloc_workspace(VT_WORKSPACE_BYTES, "cublas.workspace");
    if (!M.plan) CUBLAS_CHECK(cublasSetWorkspace(G.blas, G.workspace, VT_WORKSPACE_BYTES));
    weights_create();
    region_pop();
    if (!c->quiet)
        fprintf(stderr, "vt-bert: %s, %d layers, hidden %d, %d heads, ffn %d: %zu parameters; batch %d, seq %d, %s%s, %s lr %g%s\n",
                c->model, c->layers, c->hidden, c->heads, c->ffn, G.m.numel, c->batch, c->seq,
                prec_name[c->prec], c->recompute ? " + recompute" : "", opt_name[c->opt], c->lr,
                M.plan ? " (plan only)" : "");

    double t0 = now_s();
    for (int step = 0; step < c->steps; step++) {
        M.step = step;
        make_batch(step, ids, tt, labels);
        mem_phase("forward");
        float loss = forward(ids, tt, labels);
        mem_phase("backward");
        backward(step);
        if (step == 0 && c->dump_dir) dump_init(c->dump_dir, ids, tt, labels, loss);
        mem_phase("optimizer");
        r.scale[step] = G.loss_scale;
        r.skipped[step] = optimizer_step(step);
        r.loss[step] = loss;
        if (M.live[CAT_ACTIVATIONS] || M.live[CAT_TEMPORARY])
            vt_die("internal: step ended holding %zu bytes of activations and %zu of temporaries",
                   M.live[CAT_ACTIVATIONS], M.live[CAT_TEMPORARY]);
        if (!M.plan && !c->quiet)
            fprintf(stderr, "step %3d  loss %.6f%s%s\n", step, loss,
                    c->prec == PREC_FP16 ? "  scale " : "", c->prec == PREC_FP16 ? (r.skipped[step] ? "skip" : "ok") : "");
    }
    if (!M.plan) CUDA_CHECK(cudaDeviceSynchronize());
    r.seconds = now_s() - t0;
    memcpy(r.at_end, M.live, sizeof M.live);
    if (!M.plan) CUDA_CHECK(cudaMemGetInfo(&r.info_free[1], &r.info_total[1]));

    /* Teardown: give everything back, so that the trace of a clean run ends at zero. */
    mem_phase("teardown");
    for (int i = 0; i < G.m.np; i++) {
        param *p = &G.m.P[i];
        mem_free(p->v);
        mem_free(p->m);
        mem_free(p->g);
        mem_free(p->wlp);
        mem_free(p->w);
    }
    mem_free(G.workspace);
    if (!M.plan) {
        CUBLAS_CHECK(cublasDestroy(G.blas));
        CUDA_CHECK(cudaMemGetInfo(&r.info_free[2], &r.info_total[2]));
    }
    if (M.total != 0) vt_die("internal: %zu bytes still held after teardown", M.total);
    if (M.events && fclose(M.events) != 0) vt_die("cannot write %s", c->events_path);

    report(stdout, &r);
    fflush(stdout);
    if (c->json_path) {
        FILE *f = fopen(c->json_path, "w");
        if (!f) vt_die("cannot write %s", c->json_path);
        report(f, &r);
        if (fclose(f) != 0) vt_die("cannot write %s", c->json_path);
    }
    if (!M.plan && c->steps >= 2 && !c->quiet)
        fprintf(stderr, "vt-bert: loss %.4f -> %.4f over %d steps, %.1f ms/step\n", r.loss[0],
                r.loss[c->steps - 1], c->steps, 1e3 * r.seconds / c->steps);
    return 0;
}
