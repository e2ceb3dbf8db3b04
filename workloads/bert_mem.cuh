// SPDX-License-Identifier: MIT
/* bert_mem.cuh - vt-bert's device memory: the allocation sites and the ledger.
 *
 * Every device allocation of vt-bert goes through one of six functions, one per category:
 *   alloc_weight  alloc_grad  alloc_optstate  alloc_activation  alloc_workspace  alloc_temp
 * They are noinline and end with a non-tail call, so a profiler's call stack names the
 * category (the build also keeps frame pointers and turns off sibling-call optimisation).
 * Each one is a single cudaMalloc of exactly the requested size; mem_free() is cudaFree.
 * No caching: the driver sees every tensor come and go.
 *
 * The same functions serve `--plan`: then no CUDA call is made (a guard makes any CUDA
 * call in plan mode a fatal error), each allocation gets a fake address, and the ledger
 * below counts exactly what a real run would ask for. Because --plan and the real run
 * execute the same training code, the plan is the run's schedule by construction.
 *
 * Included once, by bert.cu. */
#ifndef VT_BERT_MEM_CUH
#define VT_BERT_MEM_CUH

#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__has_include)
#if __has_include(<nvtx3/nvToolsExt.h>)
#include <nvtx3/nvToolsExt.h>
#define VT_HAVE_NVTX 1
#endif
#endif

#define VT_NOINLINE __attribute__((noinline))
/* An empty asm after the call keeps the caller's frame: the call is no longer a tail call. */
#define VT_KEEP_FRAME() __asm__ __volatile__("" ::: "memory")

enum {
    CAT_WEIGHTS,
    CAT_ACTIVATIONS,
    CAT_GRADIENTS,
    CAT_OPTSTATE,
    CAT_WORKSPACE,
    CAT_TEMPORARY,
    CAT_N
};
static const char *const vt_cat_name[CAT_N] = {"weights",         "activations", "gradients",
                                               "optimizer_state", "workspace",   "temporary"};

typedef struct {
    void *p;
    size_t bytes;
    int cat;
    char name[72];
} mem_entry;

/* ------------------------------------------------------------------------ *
 *  The ledger
 * ------------------------------------------------------------------------ */
typedef struct {
    int plan;                    /* walk the schedule without touching the GPU */
    size_t live[CAT_N], total;   /* requested bytes held now */
    size_t peak, at_peak[CAT_N]; /* the first time `total` reached its maximum */
    size_t cat_max[CAT_N];       /* each category's own maximum, whenever it happened */
    long nalloc[CAT_N], nfree[CAT_N];
    long seq;                    /* events so far (allocations and frees) */
    long peak_seq;
    int peak_step;
    char peak_phase[24], peak_region[160];
    int step;                    /* -1 before training, then the step index */
    const char *phase;           /* init, forward, backward, optimizer, teardown */
    char region[8][64];          /* nested named ranges (also pushed to NVTX) */
    int nregion;
    FILE *events;                /* --events: one JSON line per allocation and free */
    uintptr_t next_fake;         /* plan mode: fake, never dereferenced, addresses */
    mem_entry *tab;              /* live allocations, open addressing on the pointer */
    size_t tabcap, tabn;
} vt_mem;

/* One process runs one training job, and the allocation sites are called from deep in the
 * model code: the ledger is process-wide so those sites stay plain functions whose names
 * are what a profiler's stacks show. */
static vt_mem M;

static void mem_where(char *buf, size_t n);

static void vt_die(const char *fmt, ...)
{
    char where[256];
    mem_where(where, sizeof where);
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "vt-bert: error: ");
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " [%s]\n", where);
    fflush(stderr);
    exit(1);
}

/* The safety net of --plan: the check macros call this before any CUDA call. */
static inline void plan_guard(const char *what, const char *file, int line)
{
    if (M.plan) vt_die("internal: CUDA call in --plan mode: %s (%s:%d)", what, file, line);
}

#define CUDA_CHECK(call)                                                                  \
    do {                                                                                  \
        plan_guard(#call, __FILE__, __LINE__);                                            \
        cudaError_t e_ = (call);                                                          \
        if (e_ != cudaSuccess)                                                            \
            vt_die("%s failed at %s:%d: %s (%s)", #call, __FILE__, __LINE__,              \
                   cudaGetErrorName(e_), cudaGetErrorString(e_));                         \
    } while (0)

#define CUBLAS_CHECK(call)                                                                \
    do {                                                                                  \
        plan_guard(#call, __FILE__, __LINE__);                                            \
        cublasStatus_t s_ = (call);                                                       \
        if (s_ != CUBLAS_STATUS_SUCCESS)                                                  \
            vt_die("%s failed at %s:%d: %s (%s)", #call, __FILE__, __LINE__,              \
                   cublasGetStatusName(s_), cublasGetStatusString(s_));                   \
    } while (0)

static void mem_where(char *buf, size_t n)
{
    int k = snprintf(buf, n, "step %d, %s", M.step, M.phase ? M.phase : "start");
    for (int i = 0; i < M.nregion && k > 0 && (size_t)k < n; i++)
        k += snprintf(buf + k, n - (size_t)k, "%s%s", i ? "/" : ", ", M.region[i]);
}

static void mem_region_string(char *buf, size_t n)
{
    buf[0] = 0;
    size_t k = 0;
    for (int i = 0; i < M.nregion && k < n; i++)
        k += (size_t)snprintf(buf + k, n - k, "%s%s", i ? "/" : "", M.region[i]);
}

static void mem_init(int plan, const char *events_path)
{
    memset(&M, 0, sizeof M);
    M.plan = plan;
    M.step = -1;
    M.phase = "init";
    M.next_fake = (uintptr_t)0x7e0000000000ull;
    M.tabcap = 1u << 15;
    M.tab = (mem_entry *)calloc(M.tabcap, sizeof(mem_entry));
    if (!M.tab) vt_die("out of host memory");
    if (events_path) {
        M.events = fopen(events_path, "w");
        if (!M.events) vt_die("cannot write %s", events_path);
    }
}

/* ------------------------------------------------------------------------ *
 *  Phases and named ranges (NVTX when the headers are there)
 * ------------------------------------------------------------------------ */
static void mem_phase(const char *phase) { M.phase = phase; }

static void region_push(const char *fmt, ...)
{
    if (M.nregion >= 8) vt_die("internal: regions nested too deep");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(M.region[M.nregion], sizeof M.region[0], fmt, ap);
    va_end(ap);
#ifdef VT_HAVE_NVTX
    if (!M.plan) nvtxRangePushA(M.region[M.nregion]);
#endif
    M.nregion++;
}

static void region_pop(void)
{
    if (M.nregion <= 0) vt_die("internal: region_pop without push");
    M.nregion--;
#ifdef VT_HAVE_NVTX
    if (!M.plan) nvtxRangePop();
#endif
}

/* ------------------------------------------------------------------------ *
 *  Live-allocation table
 * ------------------------------------------------------------------------ */
static size_t mem_slot(const void *p)
{
    uint64_t h = (uint64_t)(uintptr_t)p * 0x9E3779B97F4A7C15ull;
    return (size_t)(h >> 17) & (M.tabcap - 1);
}

static void mem_table_put(void *p, size_t bytes, int cat, const char *name)
{
    if (M.tabn * 2 >= M.tabcap) vt_die("internal: too many live allocations (%zu)", M.tabn);
    size_t i = mem_slot(p);
    while (M.tab[i].p) {
        if (M.tab[i].p == p) vt_die("internal: address %p handed out twice", p);
        i = (i + 1) & (M.tabcap - 1);
    }
    M.tab[i].p = p;
    M.tab[i].bytes = bytes;
    M.tab[i].cat = cat;
    snprintf(M.tab[i].name, sizeof M.tab[i].name, "%s", name);
    M.tabn++;
}

/* Removes p and returns its entry; backward-shift deletion keeps probe chains intact. */
static mem_entry mem_table_take(void *p)
{
    size_t i = mem_slot(p);
    while (M.tab[i].p != p) {
        if (!M.tab[i].p) vt_die("internal: free of %p, which is not a live allocation", p);
        i = (i + 1) & (M.tabcap - 1);
    }
    mem_entry e = M.tab[i];
    size_t j = i;
    for (;;) {
        j = (j + 1) & (M.tabcap - 1);
        if (!M.tab[j].p) break;
        size_t k = mem_slot(M.tab[j].p);
        /* move j into the hole i unless its home k lies cyclically in (i, j] */
        if ((j > i && (k <= i || k > j)) || (j < i && (k <= i && k > j))) {
            M.tab[i] = M.tab[j];
            i = j;
        }
    }
    memset(&M.tab[i], 0, sizeof M.tab[i]);
    M.tabn--;
    return e;
}

/* ------------------------------------------------------------------------ *
 *  Allocation and free
 * ------------------------------------------------------------------------ */
static void mem_event(const char *op, int cat, size_t bytes, const char *name, const void *p)
{
    if (!M.events) return;
    char region[160];
    mem_region_string(region, sizeof region);
    fprintf(M.events,
            "{\"seq\":%ld,\"op\":\"%s\",\"category\":\"%s\",\"bytes\":%zu,\"name\":\"%s\","
            "\"step\":%d,\"phase\":\"%s\",\"region\":\"%s\",\"live\":%zu",
            M.seq, op, vt_cat_name[cat], bytes, name, M.step, M.phase, region, M.total);
    if (!M.plan) fprintf(M.events, ",\"ptr\":\"%p\"", p);
    fputs("}\n", M.events);
}

static VT_NOINLINE void *mem_alloc(int cat, size_t bytes, const char *name)
{
    if (bytes == 0) vt_die("internal: zero-byte allocation for %s", name);
    void *p = NULL;
    if (M.plan) {
        p = (void *)M.next_fake;
        M.next_fake += (bytes + 0xFFFFu) & ~(uintptr_t)0xFFFFu;
    } else {
        cudaError_t e = cudaMalloc(&p, bytes);
        if (e != cudaSuccess) {
            size_t fr = 0, to = 0;
            cudaGetLastError();
            cudaMemGetInfo(&fr, &to);
            vt_die("cudaMalloc(%zu bytes) for %s (%s) failed: %s (%s); the program already "
                   "holds %zu bytes, the device has %zu free of %zu; run with --plan to see "
                   "what this configuration needs",
                   bytes, name, vt_cat_name[cat], cudaGetErrorName(e), cudaGetErrorString(e),
                   M.total, fr, to);
        }
    }
    mem_table_put(p, bytes, cat, name);
    M.live[cat] += bytes;
    M.total += bytes;
    M.nalloc[cat]++;
    if (M.live[cat] > M.cat_max[cat]) M.cat_max[cat] = M.live[cat];
    if (M.total > M.peak) {
        M.peak = M.total;
        memcpy(M.at_peak, M.live, sizeof M.live);
        M.peak_seq = M.seq;
        M.peak_step = M.step;
        snprintf(M.peak_phase, sizeof M.peak_phase, "%s", M.phase);
        mem_region_string(M.peak_region, sizeof M.peak_region);
    }
    mem_event("alloc", cat, bytes, name, p);
    M.seq++;
    return p;
}

static void mem_free(void *p)
{
    if (!p) return;
    mem_entry e = mem_table_take(p);
    if (!M.plan) CUDA_CHECK(cudaFree(p));
    M.live[e.cat] -= e.bytes;
    M.total -= e.bytes;
    M.nfree[e.cat]++;
    mem_event("free", e.cat, e.bytes, e.name, p);
    M.seq++;
}

#define VT_ALLOC_SITE(fn, cat)                                    \
    static VT_NOINLINE void *fn(size_t bytes, const char *fmt, ...) \
    {                                                             \
        char name[72];                                            \
        va_list ap;                                               \
        va_start(ap, fmt);                                        \
        vsnprintf(name, sizeof name, fmt, ap);                    \
        va_end(ap);                                               \
        void *p = mem_alloc(cat, bytes, name);                    \
        VT_KEEP_FRAME();                                          \
        return p;                                                 \
    }

/* The six call sites a profiler should tell apart. */
VT_ALLOC_SITE(alloc_weight, CAT_WEIGHTS)         /* fp32 masters and their fp16/bf16 copies */
VT_ALLOC_SITE(alloc_grad, CAT_GRADIENTS)         /* fp32, one per parameter, first backward */
VT_ALLOC_SITE(alloc_optstate, CAT_OPTSTATE)      /* first optimizer step, then kept */
VT_ALLOC_SITE(alloc_activation, CAT_ACTIVATIONS) /* saved for backward, freed as consumed */
VT_ALLOC_SITE(alloc_workspace, CAT_WORKSPACE)    /* the cuBLAS workspace */
VT_ALLOC_SITE(alloc_temp, CAT_TEMPORARY)         /* scratch that dies inside one region */

/* ------------------------------------------------------------------------ *
 *  Reporting
 * ------------------------------------------------------------------------ */
static void mem_print_cats(FILE *f, const size_t v[CAT_N])
{
    fputc('{', f);
    for (int c = 0; c < CAT_N; c++) fprintf(f, "%s\"%s\":%zu", c ? "," : "", vt_cat_name[c], v[c]);
    fputc('}', f);
}

static void mem_print_counts(FILE *f, const long v[CAT_N])
{
    fputc('{', f);
    for (int c = 0; c < CAT_N; c++) fprintf(f, "%s\"%s\":%ld", c ? "," : "", vt_cat_name[c], v[c]);
    fputc('}', f);
}

#endif /* VT_BERT_MEM_CUH */
