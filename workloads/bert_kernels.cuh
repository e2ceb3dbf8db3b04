// SPDX-License-Identifier: MIT
/* bert_kernels.cuh - the hand-written CUDA kernels of vt-bert.
 *
 * Every kernel is deterministic: no atomics on floating-point data, every reduction runs
 * in a fixed order, so two runs with the same seed give bit-identical losses. Stored
 * activations have the element type T (float, __half or __nv_bfloat16); all arithmetic is
 * fp32 (ld() widens, st<T>() narrows with round-to-nearest). Parameters, gradients and
 * optimizer state are always fp32.
 *
 * Included once, by bert.cu. The launchers live there, next to the plan-mode guard. */
#ifndef VT_BERT_KERNELS_CUH
#define VT_BERT_KERNELS_CUH

#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <stdint.h>

/* ------------------------------------------------------------------------ *
 *  Element conversions
 * ------------------------------------------------------------------------ */
__device__ __forceinline__ float ld(float x) { return x; }
__device__ __forceinline__ float ld(__half x) { return __half2float(x); }
__device__ __forceinline__ float ld(__nv_bfloat16 x) { return __bfloat162float(x); }

template <typename T> __device__ __forceinline__ T st(float x);
template <> __device__ __forceinline__ float st<float>(float x) { return x; }
template <> __device__ __forceinline__ __half st<__half>(float x) { return __float2half_rn(x); }
template <> __device__ __forceinline__ __nv_bfloat16 st<__nv_bfloat16>(float x) { return __float2bfloat16_rn(x); }

/* Butterfly sum: every lane ends with the same value, summed in the same order. */
__device__ __forceinline__ float warp_sum(float v)
{
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}
__device__ __forceinline__ float warp_max(float v)
{
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

#define VT_GRID_STRIDE(i, n) \
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (size_t)(n); \
         i += (size_t)gridDim.x * blockDim.x)

/* ------------------------------------------------------------------------ *
 *  Initialisation and casts
 * ------------------------------------------------------------------------ */
__device__ __forceinline__ uint64_t vt_splitmix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

/* N(0, std^2) from a counter-based hash of (key, i): the values do not depend on the
 * launch shape, so any GPU gives the same initial weights for the same seed. */
__global__ void k_init_normal(float *w, size_t n, float std, uint64_t key)
{
    VT_GRID_STRIDE(i, n) {
        uint64_t r = vt_splitmix64(key ^ vt_splitmix64((uint64_t)i));
        float u1 = (float)((r >> 40) + 1) * (1.0f / 16777216.0f);          /* (0, 1] */
        float u2 = (float)((r >> 16) & 0xFFFFFFu) * (1.0f / 16777216.0f);  /* [0, 1) */
        w[i] = std * sqrtf(-2.0f * logf(u1)) * cospif(2.0f * u2);
    }
}

__global__ void k_fill(float *w, size_t n, float v)
{
    VT_GRID_STRIDE(i, n) w[i] = v;
}

template <typename T>
__global__ void k_cast(const float *in, T *out, size_t n)
{
    VT_GRID_STRIDE(i, n) out[i] = st<T>(in[i]);
}

/* ------------------------------------------------------------------------ *
 *  Embeddings
 * ------------------------------------------------------------------------ */
/* out[i, c] = word[ids[i], c] + pos[i % T, c] + type[tt[i], c]  (the LayerNorm input) */
template <typename T>
__global__ void k_embed_fwd(const int *ids, const int *tt, const float *word, const float *pos,
                            const float *type, T *out, int BT, int T_, int H)
{
    VT_GRID_STRIDE(i, (size_t)BT * H) {
        int row = (int)(i / H), c = (int)(i % H);
        float v = word[(size_t)ids[row] * H + c] + pos[(size_t)(row % T_) * H + c] +
                  type[(size_t)tt[row] * H + c];
        out[i] = st<T>(v);
    }
}

/* Word-embedding gradient without atomics: one thread per hidden column walks the rows
 * in order, so repeated token ids accumulate in a fixed order. */
template <typename T>
__global__ void k_embed_bwd_word(const T *d, const int *ids, float *dword, int BT, int H)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= H) return;
    for (int r = 0; r < BT; r++) dword[(size_t)ids[r] * H + c] += ld(d[(size_t)r * H + c]);
}

template <typename T>
__global__ void k_embed_bwd_pos(const T *d, float *dpos, int B, int T_, int H)
{
    VT_GRID_STRIDE(i, (size_t)T_ * H) {
        int t = (int)(i / H), c = (int)(i % H);
        float s = 0.0f;
        for (int b = 0; b < B; b++) s += ld(d[((size_t)b * T_ + t) * H + c]);
        dpos[i] += s;
    }
}

template <typename T>
__global__ void k_embed_bwd_type(const T *d, const int *tt, float *dtype, int BT, int H, int ntypes)
{
    VT_GRID_STRIDE(i, (size_t)ntypes * H) {
        int k = (int)(i / H), c = (int)(i % H);
        float s = 0.0f;
        for (int r = 0; r < BT; r++)
            if (tt[r] == k) s += ld(d[(size_t)r * H + c]);
        dtype[i] += s;
    }
}

/* ------------------------------------------------------------------------ *
 *  LayerNorm: one warp per row, two passes (mean, then centred variance)
 * ------------------------------------------------------------------------ */
template <typename T>
__global__ void k_layernorm_fwd(const T *x, const float *g, const float *b, T *out, float *mean,
                                float *rstd, int N, int C, float eps)
{
    int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, lane = threadIdx.x % 32;
    if (row >= N) return;
    const T *xr = x + (size_t)row * C;
    float s = 0.0f;
    for (int c = lane; c < C; c += 32) s += ld(xr[c]);
    float m = warp_sum(s) / C;
    float v = 0.0f;
    for (int c = lane; c < C; c += 32) {
        float d = ld(xr[c]) - m;
        v += d * d;
    }
    float r = 1.0f / sqrtf(warp_sum(v) / C + eps);
    if (out) {
        T *o = out + (size_t)row * C;
        for (int c = lane; c < C; c += 32) o[c] = st<T>((ld(xr[c]) - m) * r * g[c] + b[c]);
    }
    if (lane == 0) {
        mean[row] = m;
        rstd[row] = r;
    }
}

/* dx = rstd * (dy*g - mean(dy*g) - xhat * mean(dy*g*xhat)) */
template <typename T>
__global__ void k_layernorm_bwd_dx(const T *dy, const T *x, const float *mean, const float *rstd,
                                   const float *g, T *dx, int N, int C)
{
    int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, lane = threadIdx.x % 32;
    if (row >= N) return;
    const T *dyr = dy + (size_t)row * C, *xr = x + (size_t)row * C;
    float m = mean[row], r = rstd[row], s1 = 0.0f, s2 = 0.0f;
    for (int c = lane; c < C; c += 32) {
        float dg = ld(dyr[c]) * g[c];
        s1 += dg;
        s2 += dg * (ld(xr[c]) - m) * r;
    }
    s1 = warp_sum(s1) / C;
    s2 = warp_sum(s2) / C;
    T *dxr = dx + (size_t)row * C;
    for (int c = lane; c < C; c += 32) {
        float xh = (ld(xr[c]) - m) * r;
        dxr[c] = st<T>(r * (ld(dyr[c]) * g[c] - s1 - xh * s2));
    }
}

/* Column sums over rows in a fixed order: block (32, 32), one column per threadIdx.x,
 * the 32 row lanes reduced through shared memory. Accumulates into dg/db. */
template <typename T>
__global__ void k_layernorm_bwd_params(const T *dy, const T *x, const float *mean,
                                       const float *rstd, float *dg, float *db, int N, int C)
{
    __shared__ float sg[32][33], sb[32][33];
    int tx = threadIdx.x, ty = threadIdx.y, c = blockIdx.x * 32 + tx;
    float ag = 0.0f, ab = 0.0f;
    if (c < C)
        for (int r = ty; r < N; r += 32) {
            float d = ld(dy[(size_t)r * C + c]);
            ag += d * (ld(x[(size_t)r * C + c]) - mean[r]) * rstd[r];
            ab += d;
        }
    sg[ty][tx] = ag;
    sb[ty][tx] = ab;
    __syncthreads();
    if (ty == 0 && c < C) {
        for (int k = 1; k < 32; k++) {
            ag += sg[k][tx];
            ab += sb[k][tx];
        }
        dg[c] += ag;
        db[c] += ab;
    }
}

/* db[c] += sum over rows of dy[r, c]; same shape as above. */
template <typename T>
__global__ void k_bias_grad(const T *dy, float *db, int N, int C)
{
    __shared__ float s[32][33];
    int tx = threadIdx.x, ty = threadIdx.y, c = blockIdx.x * 32 + tx;
    float a = 0.0f;
    if (c < C)
        for (int r = ty; r < N; r += 32) a += ld(dy[(size_t)r * C + c]);
    s[ty][tx] = a;
    __syncthreads();
    if (ty == 0 && c < C) {
        for (int k = 1; k < 32; k++) a += s[k][tx];
        db[c] += a;
    }
}

/* ------------------------------------------------------------------------ *
 *  Elementwise: bias, residual, GELU, tanh
 * ------------------------------------------------------------------------ */
template <typename T>
__global__ void k_bias_add(T *y, const float *b, int N, int C)
{
    VT_GRID_STRIDE(i, (size_t)N * C) y[i] = st<T>(ld(y[i]) + b[i % C]);
}

/* y = y + b + res (a linear layer's output joined to the residual stream) */
template <typename T>
__global__ void k_bias_residual(T *y, const float *b, const T *res, int N, int C)
{
    VT_GRID_STRIDE(i, (size_t)N * C) y[i] = st<T>(ld(y[i]) + b[i % C] + ld(res[i]));
}

/* HF 'gelu' is the exact one: 0.5 x (1 + erf(x / sqrt 2)) */
__device__ __forceinline__ float gelu_f(float x) { return 0.5f * x * (1.0f + erff(x * 0.70710678118654752f)); }
__device__ __forceinline__ float gelu_grad_f(float x)
{
    return 0.5f * (1.0f + erff(x * 0.70710678118654752f)) +
           x * 0.39894228040143268f * expf(-0.5f * x * x);
}

/* pre = pre + b (kept for the backward pass), act = gelu(pre) */
template <typename T>
__global__ void k_bias_gelu(T *pre, const float *b, T *act, int N, int C)
{
    VT_GRID_STRIDE(i, (size_t)N * C) {
        T p = st<T>(ld(pre[i]) + b[i % C]);
        pre[i] = p;
        act[i] = st<T>(gelu_f(ld(p)));
    }
}

template <typename T>
__global__ void k_gelu_bwd(T *d, const T *pre, size_t n)
{
    VT_GRID_STRIDE(i, n) d[i] = st<T>(ld(d[i]) * gelu_grad_f(ld(pre[i])));
}

template <typename T>
__global__ void k_bias_tanh(T *y, const float *b, int N, int C)
{
    VT_GRID_STRIDE(i, (size_t)N * C) y[i] = st<T>(tanhf(ld(y[i]) + b[i % C]));
}

template <typename T>
__global__ void k_tanh_bwd(T *d, const T *y, size_t n)
{
    VT_GRID_STRIDE(i, n) {
        float t = ld(y[i]);
        d[i] = st<T>(ld(d[i]) * (1.0f - t * t));
    }
}

/* ------------------------------------------------------------------------ *
 *  Attention softmax (rows of length T, no mask: the attention mask is all ones)
 * ------------------------------------------------------------------------ */
template <typename T>
__global__ void k_softmax_fwd(const T *s, T *p, int rows, int cols)
{
    int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, lane = threadIdx.x % 32;
    if (row >= rows) return;
    const T *sr = s + (size_t)row * cols;
    float m = -INFINITY;
    for (int c = lane; c < cols; c += 32) m = fmaxf(m, ld(sr[c]));
    m = warp_max(m);
    float z = 0.0f;
    for (int c = lane; c < cols; c += 32) z += expf(ld(sr[c]) - m);
    z = 1.0f / warp_sum(z);
    T *pr = p + (size_t)row * cols;
    for (int c = lane; c < cols; c += 32) pr[c] = st<T>(expf(ld(sr[c]) - m) * z);
}

/* in place: dp <- p * (dp - sum_j dp_j p_j) */
template <typename T>
__global__ void k_softmax_bwd(T *dp, const T *p, int rows, int cols)
{
    int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, lane = threadIdx.x % 32;
    if (row >= rows) return;
    T *dr = dp + (size_t)row * cols;
    const T *pr = p + (size_t)row * cols;
    float s = 0.0f;
    for (int c = lane; c < cols; c += 32) s += ld(dr[c]) * ld(pr[c]);
    s = warp_sum(s);
    for (int c = lane; c < cols; c += 32) dr[c] = st<T>(ld(pr[c]) * (ld(dr[c]) - s));
}

/* ------------------------------------------------------------------------ *
 *  Classification head
 * ------------------------------------------------------------------------ */
template <typename T>
__global__ void k_gather_cls(const T *h, T *cls, int B, int T_, int H)
{
    VT_GRID_STRIDE(i, (size_t)B * H) {
        int b = (int)(i / H), c = (int)(i % H);
        cls[i] = h[(size_t)b * T_ * H + c];
    }
}

/* dh = 0 except row t = 0 of each sequence, which gets dcls */
template <typename T>
__global__ void k_scatter_cls(const T *dcls, T *dh, int B, int T_, int H)
{
    VT_GRID_STRIDE(i, (size_t)B * T_ * H) {
        int c = (int)(i % H);
        size_t row = i / H;
        int t = (int)(row % T_), b = (int)(row / T_);
        dh[i] = t == 0 ? dcls[(size_t)b * H + c] : st<T>(0.0f);
    }
}

/* Mean cross-entropy over the batch. B is small (one value per sequence), so one thread
 * sums the rows in order: the loss is bit-reproducible. */
template <typename T>
__global__ void k_ce_fwd(const T *logits, const int *labels, float *loss, int B, int C)
{
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    float acc = 0.0f;
    for (int b = 0; b < B; b++) {
        const T *l = logits + (size_t)b * C;
        float m = -INFINITY, z = 0.0f;
        for (int c = 0; c < C; c++) m = fmaxf(m, ld(l[c]));
        for (int c = 0; c < C; c++) z += expf(ld(l[c]) - m);
        acc += m + logf(z) - ld(l[labels[b]]);
    }
    *loss = acc / B;
}

/* dlogits = scale * (softmax(logits) - onehot(label)) / B; scale is the fp16 loss scale */
template <typename T>
__global__ void k_ce_bwd(const T *logits, const int *labels, T *dlogits, int B, int C, float scale)
{
    int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= B) return;
    const T *l = logits + (size_t)b * C;
    float m = -INFINITY, z = 0.0f;
    for (int c = 0; c < C; c++) m = fmaxf(m, ld(l[c]));
    for (int c = 0; c < C; c++) z += expf(ld(l[c]) - m);
    for (int c = 0; c < C; c++) {
        float p = expf(ld(l[c]) - m) / z;
        dlogits[(size_t)b * C + c] = st<T>(scale * (p - (c == labels[b] ? 1.0f : 0.0f)) / B);
    }
}

/* ------------------------------------------------------------------------ *
 *  Optimizers (fp32 master weights; refresh the low-precision copy in the same pass)
 * ------------------------------------------------------------------------ */
template <typename T>
__global__ void k_sgd(float *w, const float *g, T *wlp, size_t n, float lr, float gscale)
{
    VT_GRID_STRIDE(i, n) {
        float x = w[i] - lr * g[i] * gscale;
        w[i] = x;
        if (wlp) wlp[i] = st<T>(x);
    }
}

/* torch.optim.SGD(momentum=mu, dampening=0): buf = mu*buf + g; w -= lr*buf. A zero buffer
 * makes the first step buf = g, as torch's clone does. */
template <typename T>
__global__ void k_momentum(float *w, const float *g, float *buf, T *wlp, size_t n, float lr,
                           float mu, float gscale)
{
    VT_GRID_STRIDE(i, n) {
        float b = mu * buf[i] + g[i] * gscale;
        buf[i] = b;
        float x = w[i] - lr * b;
        w[i] = x;
        if (wlp) wlp[i] = st<T>(x);
    }
}

/* torch.optim.AdamW: decoupled decay, bias-corrected moments. bc1 = 1 - b1^t, bc2 = 1 - b2^t. */
template <typename T>
__global__ void k_adamw(float *w, const float *g, float *m, float *v, T *wlp, size_t n, float lr,
                        float b1, float b2, float eps, float wd, float bc1, float bc2, float gscale)
{
    VT_GRID_STRIDE(i, n) {
        float gi = g[i] * gscale;
        float mi = b1 * m[i] + (1.0f - b1) * gi;
        float vi = b2 * v[i] + (1.0f - b2) * gi * gi;
        m[i] = mi;
        v[i] = vi;
        float x = w[i] * (1.0f - lr * wd);
        x -= (lr / bc1) * mi / (sqrtf(vi) / sqrtf(bc2) + eps);
        w[i] = x;
        if (wlp) wlp[i] = st<T>(x);
    }
}

/* Any inf/NaN in a gradient sets *flag (several threads may store the same 1: benign). */
__global__ void k_nonfinite(const float *g, size_t n, int *flag)
{
    VT_GRID_STRIDE(i, n) if (!isfinite(g[i])) *flag = 1;
}

#endif /* VT_BERT_KERNELS_CUH */
