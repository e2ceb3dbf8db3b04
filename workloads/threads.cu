// SPDX-License-Identifier: MIT
/* threads.cu - vt-threads: 16 threads allocating at the same time.
 *
 * Each thread names itself vt-alloc-NN, waits at a barrier so that all start together,
 * allocates 8 buffers of sizes unique to it, waits until every thread has allocated (the
 * peak: all 128 buffers live), then frees its buffers. The JSON line gives each thread's
 * kernel tid, name and bytes, so a trace's per-thread figures can be checked. */
#include "wl_common.h"

#include <pthread.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NTHREADS 16
#define PER_THREAD 8

typedef struct {
    int index;
    long tid;
    char name[16];
    size_t bytes;
    size_t sizes[PER_THREAD];
    void *p[PER_THREAD];
} worker;

/* The barriers are shared by all workers and main, for the lifetime of the program. */
static pthread_barrier_t start_line, all_allocated, all_freed;

static WL_NOINLINE void *thread_alloc(size_t n)
{
    void *p = NULL;
    WL_CHECK(cudaMalloc(&p, n));
    WL_KEEP_FRAME();
    return p;
}

static void *worker_main(void *arg)
{
    worker *w = (worker *)arg;
    snprintf(w->name, sizeof w->name, "vt-alloc-%02d", w->index);
    pthread_setname_np(pthread_self(), w->name);
    w->tid = (long)syscall(SYS_gettid);
    WL_CHECK(cudaSetDevice(0));
    pthread_barrier_wait(&start_line);
    for (int j = 0; j < PER_THREAD; j++) {
        w->sizes[j] = ((size_t)(w->index + 1) << 20) + (size_t)j * 4096 + (size_t)w->index;
        w->p[j] = thread_alloc(w->sizes[j]);
        w->bytes += w->sizes[j];
    }
    pthread_barrier_wait(&all_allocated);
    pthread_barrier_wait(&all_allocated); /* main has read the figures */
    for (int j = 0; j < PER_THREAD; j++) WL_CHECK(cudaFree(w->p[j]));
    pthread_barrier_wait(&all_freed);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        fprintf(stderr, "usage: vt-threads   (16 threads x 8 allocations, all at once)\n");
        return strcmp(argv[1], "--help") ? 2 : 0;
    }
    wl_start("vt-threads", NULL, NULL);
    static worker w[NTHREADS];
    pthread_t th[NTHREADS];
    if (pthread_barrier_init(&start_line, NULL, NTHREADS) ||
        pthread_barrier_init(&all_allocated, NULL, NTHREADS + 1) ||
        pthread_barrier_init(&all_freed, NULL, NTHREADS + 1))
        wl_die("pthread_barrier_init failed");
    for (int i = 0; i < NTHREADS; i++) {
        w[i].index = i;
        if (pthread_create(&th[i], NULL, worker_main, &w[i])) wl_die("pthread_create failed");
    }
    pthread_barrier_wait(&all_allocated);
    size_t peak = 0;
    for (int i = 0; i < NTHREADS; i++) peak += w[i].bytes;
    size_t f = 0, t = 0;
    WL_CHECK(cudaMemGetInfo(&f, &t));
    pthread_barrier_wait(&all_allocated);
    pthread_barrier_wait(&all_freed);
    for (int i = 0; i < NTHREADS; i++) pthread_join(th[i], NULL);

    printf("{\"workload\":\"vt-threads\",\"units\":\"requested_bytes\",\"threads\":%d,"
           "\"per_thread_allocs\":%d,\"allocs\":%d,\"frees\":%d,\"allocated_bytes\":%zu,"
           "\"peak_bytes\":%zu,\"end_bytes\":0,\"free_at_peak\":%zu,\"by_thread\":[",
           NTHREADS, PER_THREAD, NTHREADS * PER_THREAD, NTHREADS * PER_THREAD, peak, peak, f);
    for (int i = 0; i < NTHREADS; i++)
        printf("%s{\"index\":%d,\"tid\":%ld,\"name\":\"%s\",\"allocs\":%d,\"bytes\":%zu}", i ? "," : "",
               i, w[i].tid, w[i].name, PER_THREAD, w[i].bytes);
    printf("]}\n");
    return 0;
}
