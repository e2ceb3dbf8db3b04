// SPDX-License-Identifier: MIT
/* bench_blocks_lib.c - the native side of bench_blocks.py: PyTorch's block events
 * (vramtrace_torch_event, as libvramtrace_torch.so calls it) from deep native stacks,
 * called from Python with ctypes or from a thread Python never ran on.
 *
 * What it stands for: an ATen operator called from Python allocates its output through
 * the caching allocator, tens of C++ frames below the interpreter (no frame pointers),
 * and a tensor dying frees a block. Each call of bb_op is one such operator: it descends
 * `depth` frames through one of BB_PATHS recursive functions (each with its own return
 * addresses, as operators differ), then reports a block handed out and, when given, one
 * made free. Without the recorder in the process the event is a call of an empty
 * function, so the difference between two runs is the recorder's cost. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

typedef void (*bb_event_fn)(int action, int device, uint64_t addr, uint64_t size, uint64_t stream, int pool);

enum { BB_ALLOC = 0, BB_FREE_COMPLETED = 2 };

static void bb_noop(int action, int device, uint64_t addr, uint64_t size, uint64_t stream, int pool)
{
    (void)action; (void)device; (void)addr; (void)size; (void)stream; (void)pool;
    __asm__ volatile("" ::: "memory");
}

/* Set once by bb_init, before any event. */
static bb_event_fn bb_ev = bb_noop;
/* Keeps the recursions from being folded into loops or tail calls. */
static volatile uint64_t bb_sink;
/* What each operator reads before its events (bb_thrash): a program runs megabytes of
 * its own code and data between two allocations, so the recorder's tables are seldom
 * in cache; without this the benchmark would see them always hot. */
static uint64_t *bb_junk;
static size_t bb_junk_words;

/* 1 when the recorder is in the process (its entry was found), else 0. */
__attribute__((visibility("default"))) int bb_init(void)
{
    bb_event_fn f = (bb_event_fn)dlsym(RTLD_DEFAULT, "vramtrace_torch_event");
    if (f) bb_ev = f;
    return f != NULL;
}

/* Each operator then reads and writes kb KiB of memory (a word a cache line) before its events;
 * 0 (the default) reads nothing. Returns 0, or -1 when the memory is not there. */
__attribute__((visibility("default"))) int bb_thrash(int kb)
{
    free(bb_junk);
    bb_junk = NULL;
    bb_junk_words = 0;
    if (kb <= 0) return 0;
    bb_junk = calloc((size_t)kb * 128, sizeof *bb_junk);
    if (!bb_junk) return -1;
    bb_junk_words = (size_t)kb * 128;
    return 0;
}

/* What each operator touches besides (bb_tlb): one word on each of that many 4 KiB pages,
 * so that the recorder's pages are out of the TLB as in a program with a large working
 * set, at the price of few cache lines (a different line of each page, in turn). */
static volatile uint64_t *bb_pages;
static size_t bb_npages;

/* Each operator then reads a word of each of n pages (4 KiB, not huge) before its
 * events; 0 (the default) reads none. Returns 0, or -1 when the memory is not there. */
__attribute__((visibility("default"))) int bb_tlb(int n)
{
    if (bb_pages) munmap((void *)bb_pages, bb_npages * 4096);
    bb_pages = NULL;
    bb_npages = 0;
    if (n <= 0) return 0;
    void *p = mmap(NULL, (size_t)n * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return -1;
    (void)madvise(p, (size_t)n * 4096, MADV_NOHUGEPAGE);
    bb_pages = p;
    bb_npages = (size_t)n;
    for (size_t i = 0; i < bb_npages; i++) bb_pages[i * 512 + (i % 64) * 8] = i;  /* touched: mapped */
    return 0;
}

/* Stores that bracket each block handed out (bb_mark), for a trace of every memory
 * access (bench_pages.sh, valgrind's lackey) to tell the recorder's accesses from the
 * rest: a fixed page, one pair of words per mode. */
#define BB_MARKS 0x600000000000ull
static volatile uint64_t *bb_marks;
static volatile uint64_t *bb_mark_at;   /* the pair of words of the mode; NULL: no stores */

/* mode 1 (recording) or 2 (paused): later blocks are bracketed by stores to the words
 * at BB_MARKS + 128 * (mode - 1) and 64 bytes after; 0: no stores. Returns 0, or -1
 * when the page is not there. */
__attribute__((visibility("default"))) int bb_mark(int mode)
{
    if (mode && !bb_marks) {
        void *p = mmap((void *)BB_MARKS, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
                       -1, 0);
        if (p != (void *)BB_MARKS) return -1;
        bb_marks = p;
    }
    bb_mark_at = mode ? bb_marks + 16 * (mode - 1) : NULL;
    return 0;
}

static inline void leaf(uint64_t addr, uint64_t size, uint64_t free_addr)
{
    uint64_t s = 0;
    for (size_t i = 0; i < bb_junk_words; i += 8) s += bb_junk[i]++;
    for (size_t i = 0; i < bb_npages; i++) s += bb_pages[i * 512 + (i % 64) * 8];
    bb_sink += s;
    volatile uint64_t *mk = bb_mark_at;
    if (mk) mk[0] = 1;
    bb_ev(BB_ALLOC, 0, addr, size, 0, 0);
    if (mk) mk[8] = 1;
    if (free_addr) bb_ev(BB_FREE_COMPLETED, 0, free_addr, size, 0, 0);
}

/* Eight operators: the same work, different code addresses. */
#define BB_OP(name)                                                                        \
    static __attribute__((noinline)) void name(int d, uint64_t addr, uint64_t size, uint64_t free_addr) \
    {                                                                                      \
        if (d > 0) name(d - 1, addr, size, free_addr);                                     \
        else leaf(addr, size, free_addr);                                                  \
        bb_sink++;                                                                         \
    }
BB_OP(op0) BB_OP(op1) BB_OP(op2) BB_OP(op3) BB_OP(op4) BB_OP(op5) BB_OP(op6) BB_OP(op7)
#define BB_PATHS 8

static void (*const bb_ops[BB_PATHS])(int, uint64_t, uint64_t, uint64_t) = { op0, op1, op2, op3, op4, op5, op6, op7 };

/* One operator: path k (mod 8), depth native frames, a block at addr; free_addr != 0
 * frees that block after. */
__attribute__((visibility("default"))) void bb_op(int k, int depth, uint64_t addr, uint64_t free_addr)
{
    bb_ops[(unsigned)k % BB_PATHS](depth, addr, 512, free_addr);
}

/* The backward's side: a thread Python never ran on (the autograd engine's device
 * thread), kept for the whole run as that one is, so its memo of walks stays warm. */
typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int started, busy;
    int pairs, depth, paths;
    uint64_t ns;
} bb_worker;

static bb_worker bb_w = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0, 0, 0, 0 };

static uint64_t bb_run(int pairs, int depth, int paths)
{
    struct timespec a, b;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
    for (int i = 0; i < pairs; i++)
        bb_ops[(unsigned)i % (unsigned)paths](depth, 0x7f0000000000ull + (uint64_t)i * 512, 512,
                                              0x7f0000000000ull + (uint64_t)i * 512);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
    return (uint64_t)(b.tv_sec - a.tv_sec) * 1000000000ull + (uint64_t)b.tv_nsec - (uint64_t)a.tv_nsec;
}

static void *bb_thread(void *p)
{
    (void)p;
    pthread_mutex_lock(&bb_w.mu);
    for (;;) {
        while (!bb_w.busy) pthread_cond_wait(&bb_w.cv, &bb_w.mu);
        pthread_mutex_unlock(&bb_w.mu);
        uint64_t ns = bb_run(bb_w.pairs, bb_w.depth, bb_w.paths);
        pthread_mutex_lock(&bb_w.mu);
        bb_w.ns = ns;
        bb_w.busy = 0;
        pthread_cond_broadcast(&bb_w.cv);
    }
    return NULL;
}

/* pairs alloc+free pairs on the worker thread over paths (1..8) operators; the ns of CPU
 * time they took, or 0 when the thread could not start. */
__attribute__((visibility("default"))) uint64_t bb_native(int pairs, int depth, int paths)
{
    pthread_mutex_lock(&bb_w.mu);
    if (!bb_w.started) {
        pthread_t t;
        if (pthread_create(&t, NULL, bb_thread, NULL)) { pthread_mutex_unlock(&bb_w.mu); return 0; }
        pthread_detach(t);
        bb_w.started = 1;
    }
    bb_w.pairs = pairs;
    bb_w.depth = depth;
    bb_w.paths = paths < 1 ? 1 : paths > BB_PATHS ? BB_PATHS : paths;
    bb_w.busy = 1;
    pthread_cond_broadcast(&bb_w.cv);
    while (bb_w.busy) pthread_cond_wait(&bb_w.cv, &bb_w.mu);
    uint64_t ns = bb_w.ns;
    pthread_mutex_unlock(&bb_w.mu);
    return ns;
}
