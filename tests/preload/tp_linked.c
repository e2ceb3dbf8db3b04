// SPDX-License-Identifier: MIT
/* tp_linked.c - test program linked with -lcuda (the fake in CI).
 *   tp_linked SECTION...      run workload sections (tp_exercise.c) through direct calls
 *   tp_linked threads T N     T threads, each N x (cuMemAlloc_v2 + cuMemFree_v2) at once
 *   tp_linked fork            the parent allocates around a fork; the child allocates too
 *   tp_linked fork-busy       50 forks while 4 threads allocate; each child allocates and exits
 *   tp_linked exit-busy       exit() while 4 threads are still allocating
 *   tp_linked chdir SECTION   chdir elsewhere before the first CUDA call (the trace stays put)
 *   tp_linked exec            a child exec's this program (exec-child), which allocates
 *   tp_linked sigkill N       N allocations, a pause for a flush, then SIGKILL
 *   tp_linked multidev        allocations on device 1 (FAKECUDA_DEVICES=2)
 *   tp_linked paths R         R rounds over 24 call paths that meet in one leaf at the same
 *                             stack depth: the recorder's walk memo must tell them apart
 *   tp_linked pause           pauses and resumes recording (vramtrace_set_recording)
 *   tp_linked nocuda          never calls CUDA */
#define _GNU_SOURCE
#include "tp.h"
#include "tp_trust.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

void tp_api_direct(tp_api *a);   /* tp_direct.c */

static tp_api g_api;

/* cuMemAlloc and cuMemFree as the tests here make them: counted for the fake driver's
 * tallies and, with fn (the function the recorded stack must name), logged as expected
 * records; fn NULL: made but not expected in the trace. Always inlined, so that the
 * stack is the caller's own. */
static inline __attribute__((always_inline)) CUdeviceptr alloc_as(size_t size, void *fn)
{
    CUdeviceptr d = 0;
    tp_calling(FAKECUDA_FN_cuMemAlloc_v2);
    TP_CK(cuMemAlloc(&d, size), CUDA_SUCCESS);
    if (fn) tp_alloc(VT_KIND_MEM_ALLOC, d, size, 0, 0, fn);
    return d;
}

static inline __attribute__((always_inline)) void free_as(CUdeviceptr d, void *fn)
{
    tp_calling(FAKECUDA_FN_cuMemFree_v2);
    TP_CK(cuMemFree(d), CUDA_SUCCESS);
    if (fn) tp_free(VT_KIND_MEM_FREE, d, 0, 0, fn);
}

/* ------------------------------------------------------------------------ *
 *  Threads: direct calls from the thread function itself
 * ------------------------------------------------------------------------ */
typedef struct { int index, n; } worker_arg;

TP_NOINLINE void *tp_worker(void *p)
{
    worker_arg *w = p;
    void *self = (void *)tp_worker;
    char name[16];
    snprintf(name, sizeof name, "tp-worker-%d", w->index);
    pthread_setname_np(pthread_self(), name);
    for (int i = 0; i < w->n; i++)
        free_as(alloc_as(256 + (size_t)(i % 100) * 16 + (size_t)w->index, self), self);
    return NULL;
}

static int run_threads(int t, int n)
{
    pthread_t th[64];
    worker_arg args[64];
    if (t < 1 || t > 64) tp_die("1..64 threads");
    for (int i = 0; i < t; i++) {
        args[i].index = i;
        args[i].n = n;
        if (pthread_create(&th[i], NULL, tp_worker, &args[i])) tp_die("pthread_create");
    }
    for (int i = 0; i < t; i++) pthread_join(th[i], NULL);
    return 0;
}

/* ------------------------------------------------------------------------ *
 *  Fork and exec
 * ------------------------------------------------------------------------ */
TP_NOINLINE CUdeviceptr tp_parent_alloc(size_t size)
{
    return alloc_as(size, (void *)tp_parent_alloc);
}

TP_NOINLINE void tp_parent_free(CUdeviceptr d)
{
    free_as(d, (void *)tp_parent_free);
}

/* The child's allocations have odd sizes, so that one leaking into the parent's trace
 * shows up as an unexpected record. */
TP_NOINLINE void tp_child_work(void)
{
    for (int i = 0; i < 3; i++) {
        CUdeviceptr d = 0;
        if (cuMemAlloc(&d, 777 + (size_t)i) != CUDA_SUCCESS) _exit(5);
        if (cuMemFree(d) != CUDA_SUCCESS) _exit(6);
    }
    CUdeviceptr keep = 0;
    if (cuMemAlloc(&keep, 7777) != CUDA_SUCCESS) _exit(7);
}

static void wait_child(pid_t pid)
{
    int st = 0;
    if (waitpid(pid, &st, 0) != pid) tp_die("waitpid");
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) tp_die("child %d ended with status 0x%x", (int)pid, st);
}

static int run_fork(void)
{
    CUdeviceptr a = tp_parent_alloc(1111);
    tp_flush();
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) tp_die("fork");
    if (pid == 0) {
        tp_detach();
        tp_child_work();
        exit(0);   /* exit(), not _exit(): atexit handlers and destructors run in the child */
    }
    wait_child(pid);
    CUdeviceptr b = tp_parent_alloc(2222);
    tp_parent_free(a);
    tp_parent_free(b);
    return 0;
}

static int run_exec(void)
{
    CUdeviceptr a = tp_parent_alloc(3333);
    tp_flush();
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) tp_die("fork");
    if (pid == 0) {
        tp_detach();
        execl("/proc/self/exe", "tp_linked", "exec-child", (char *)NULL);
        _exit(127);
    }
    wait_child(pid);
    tp_parent_free(a);
    return 0;
}

/* Forks while other threads are inside the driver (and the recorder): a child must not
 * inherit a lock held by a thread it does not have. */
static atomic_int g_stop;

TP_NOINLINE void *tp_busy(void *p)
{
    (void)p;
    while (!atomic_load(&g_stop)) free_as(alloc_as(999, (void *)tp_busy), (void *)tp_busy);
    return NULL;
}

static int run_fork_busy(void)
{
    pthread_t th[4];
    for (int i = 0; i < 4; i++)
        if (pthread_create(&th[i], NULL, tp_busy, NULL)) tp_die("pthread_create");
    for (int k = 0; k < 50; k++) {
        pid_t pid = fork();
        if (pid < 0) tp_die("fork");
        if (pid == 0) {
            tp_detach();
            tp_child_work();
            exit(0);
        }
        /* A child that hangs (a lock inherited from a busy thread) fails the test. */
        int st = 0, waited = 0;
        while (waitpid(pid, &st, WNOHANG) == 0) {
            struct timespec ts = { 0, 10 * 1000 * 1000 };
            nanosleep(&ts, NULL);
            if (++waited > 1000) {
                kill(pid, SIGKILL);
                waitpid(pid, &st, 0);
                atomic_store(&g_stop, 1);
                tp_die("fork child %d (fork %d of 50) hung for 10 s", (int)pid, k + 1);
            }
        }
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) tp_die("fork child %d ended with status 0x%x", (int)pid, st);
    }
    atomic_store(&g_stop, 1);
    for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
    return 0;
}

/* ------------------------------------------------------------------------ *
 *  SIGKILL after a flush
 * ------------------------------------------------------------------------ */
TP_NOINLINE void tp_sigkill_work(int n)
{
    for (int i = 0; i < n; i++) alloc_as(4096 + (size_t)i, (void *)tp_sigkill_work);
}

static int run_sigkill(int n)
{
    tp_sigkill_work(n);
    int rc = tp_finish();
    if (rc) return rc;
    struct timespec ts = { 0, 400 * 1000 * 1000 };  /* > 3 default flush periods */
    nanosleep(&ts, NULL);
    raise(SIGKILL);
    return 99;
}

/* ------------------------------------------------------------------------ *
 *  Two devices
 * ------------------------------------------------------------------------ */
static int run_multidev(void)
{
    CUcontext c0 = NULL, c1 = NULL;
    TP_CK(cuDevicePrimaryCtxRetain(&c0, 0), CUDA_SUCCESS);
    TP_CK(cuDevicePrimaryCtxRetain(&c1, 1), CUDA_SUCCESS);
    TP_CK(cuCtxSetCurrent(c1), CUDA_SUCCESS);
    tp_set_device(1);
    CUdeviceptr a = tp_parent_alloc(4444);
    ex_basic(&g_api);
    TP_CK(cuCtxSetCurrent(c0), CUDA_SUCCESS);
    tp_set_device(0);
    CUdeviceptr b = tp_parent_alloc(5555);
    tp_parent_free(b);
    TP_CK(cuCtxSetCurrent(c1), CUDA_SUCCESS);
    tp_set_device(1);
    tp_parent_free(a);
    return 0;
}

/* ------------------------------------------------------------------------ *
 *  Many call paths into one leaf
 * ------------------------------------------------------------------------ */
/* Every path reaches tp_path_leaf with the same stack pointer, so only the words on
 * the stack tell them apart; each path also keeps its own value live across the call
 * (in a callee-saved register, RBP among them when the compiler picks it), which must
 * not matter. */
TP_NOINLINE void tp_path_leaf(void *fn, unsigned salt)
{
    free_as(alloc_as(4096 + salt, fn), fn);
}

static volatile unsigned g_salt;
#define TP_PATH(i) \
    TP_NOINLINE void tp_path_##i(void) { unsigned v = g_salt * (i + 1); tp_path_leaf((void *)tp_path_##i, i); g_salt = v + 1; }
TP_PATH(0) TP_PATH(1) TP_PATH(2) TP_PATH(3) TP_PATH(4) TP_PATH(5) TP_PATH(6) TP_PATH(7)
TP_PATH(8) TP_PATH(9) TP_PATH(10) TP_PATH(11) TP_PATH(12) TP_PATH(13) TP_PATH(14) TP_PATH(15)
TP_PATH(16) TP_PATH(17) TP_PATH(18) TP_PATH(19) TP_PATH(20) TP_PATH(21) TP_PATH(22) TP_PATH(23)

static int run_paths(int rounds)
{
    static void (*const path[])(void) = {
        tp_path_0, tp_path_1, tp_path_2, tp_path_3, tp_path_4, tp_path_5, tp_path_6, tp_path_7,
        tp_path_8, tp_path_9, tp_path_10, tp_path_11, tp_path_12, tp_path_13, tp_path_14, tp_path_15,
        tp_path_16, tp_path_17, tp_path_18, tp_path_19, tp_path_20, tp_path_21, tp_path_22, tp_path_23,
    };
    /* in turn, then 8 at a time, then in turn backwards */
    for (int r = 0; r < rounds; r++)
        for (unsigned i = 0; i < 24; i++) path[i]();
    for (unsigned k = 0; k < 24; k += 8)
        for (int r = 0; r < rounds; r++)
            for (unsigned i = k; i < k + 8; i++) path[i]();
    for (int r = 0; r < rounds; r++)
        for (unsigned i = 24; i-- > 0;) path[i]();
    return 0;
}

/* ------------------------------------------------------------------------ *
 *  Pausing from the program
 * ------------------------------------------------------------------------ */
/* 1 MiB recorded; paused: 2 MiB allocated and freed, a second pause changes nothing;
 * resumed: 3 MiB, then both recorded blocks freed. The trace must hold the 1 and 3 MiB
 * allocations, their frees and two PAUSE records. Untraced, the function is absent. */
TP_NOINLINE int tp_pause_run(void)
{
    int (*set)(int) = (int (*)(int))dlsym(RTLD_DEFAULT, "vramtrace_set_recording");
    void *self = (void *)tp_pause_run;
    CUdeviceptr a = alloc_as(1u << 20, self);
    if (!set) tp_die("vramtrace_set_recording not found: is the recorder preloaded?");
    if (set(0) != 1) tp_die("pause: recording was not on");
    free_as(alloc_as(2u << 20, NULL), NULL);   /* not recorded: not expected */
    if (set(0) != 0) tp_die("second pause: recording was not paused");
    if (set(1) != 0) tp_die("resume: recording was not paused");
    CUdeviceptr c = alloc_as(3u << 20, self);
    free_as(a, self);
    free_as(c, self);
    return 0;
}

/* ------------------------------------------------------------------------ *
 *  Event times against the program's own clock
 * ------------------------------------------------------------------------ */
/* Allocations (ring events, which the recorder may stamp with the TSC and the writer turn
 * into ns) and marks (side records, stamped with clock_gettime) in turn, 15 ms apart,
 * each with the program's CLOCK_MONOTONIC printed beside it: clock_check.py compares the
 * gaps. Freed at the end. */
static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

TP_NOINLINE int tp_clock_run(void)
{
    int (*mark)(const char *) = (int (*)(const char *))dlsym(RTLD_DEFAULT, "vramtrace_mark");
    if (!mark) tp_die("vramtrace_mark not found: is the recorder preloaded?");
    void *self = (void *)tp_clock_run;
    CUdeviceptr d[8];
    for (int i = 0; i < 8; i++) {
        uint64_t before = mono_ns();
        d[i] = alloc_as((size_t)(i + 1) << 20, self);
        uint64_t after = mono_ns();
        printf("clock alloc %d %llu %llu\n", i, (unsigned long long)before, (unsigned long long)after);
        struct timespec ts = { 0, 15 * 1000 * 1000 };
        nanosleep(&ts, NULL);
        char name[16];
        snprintf(name, sizeof name, "m%d", i);
        before = mono_ns();
        if (mark(name) != 0) tp_die("vramtrace_mark failed");
        after = mono_ns();
        printf("clock mark %d %llu %llu\n", i, (unsigned long long)before, (unsigned long long)after);
        nanosleep(&ts, NULL);
    }
    for (int i = 0; i < 8; i++) free_as(d[i], self);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: tp_linked SECTION...|threads T N|fork|exec|sigkill N|multidev|nocuda\n"); return 2; }
    const char *mode = argv[1];
    if (strcmp(mode, "nocuda") == 0) {
        printf("tp_linked: no CUDA here\n");
        return 0;
    }
    tp_init(argc, argv, strcmp(mode, "exec-child") == 0);
    /* The trace path was fixed when the program started (tp_init wrote it down). */
    char moved[] = "/tmp/tp_chdir.XXXXXX";
    int chdir_mode = strcmp(mode, "chdir") == 0;
    if (chdir_mode) {
        if (!mkdtemp(moved) || chdir(moved)) tp_die("mkdtemp/chdir: %s", strerror(errno));
        argv++, argc--;
    }
    tp_api_direct(&g_api);
    ex_start(&g_api);
    int rc = 0;
    if (strcmp(mode, "threads") == 0 && argc == 4) rc = run_threads(atoi(argv[2]), atoi(argv[3]));
    else if (strcmp(mode, "fork") == 0) rc = run_fork();
    else if (strcmp(mode, "fork-busy") == 0) rc = run_fork_busy();
    else if (strcmp(mode, "exit-busy") == 0) {
        pthread_t th[4];
        for (int i = 0; i < 4; i++)
            if (pthread_create(&th[i], NULL, tp_busy, NULL)) tp_die("pthread_create");
        struct timespec ts = { 0, 50 * 1000 * 1000 };
        nanosleep(&ts, NULL);
        exit(0);   /* the threads are still inside the driver and the recorder */
    }
    else if (strcmp(mode, "exec") == 0) rc = run_exec();
    else if (strcmp(mode, "exec-child") == 0) ex_basic(&g_api);
    else if (strcmp(mode, "sigkill") == 0 && argc == 3) return run_sigkill(atoi(argv[2]));
    else if (strcmp(mode, "multidev") == 0) rc = run_multidev();
    else if (strcmp(mode, "paths") == 0 && argc == 3) rc = run_paths(atoi(argv[2]));
    /* the fake driver counts the paused calls, which the trace rightly lacks: its
     * tallies are not compared (tp_finish); the records still are, one by one */
    else if (strcmp(mode, "pause") == 0) return tp_pause_run();
    else if (strcmp(mode, "clock") == 0) rc = tp_clock_run();
    else if (tp_trust_run(argc, argv, &rc)) {
        if (TP_TRUST_UNLOGGED(mode)) return rc;
    }
    else
        for (int i = 1; i < argc; i++)
            if (ex_run(argv[i], &g_api) < 0) tp_die("unknown section %s", argv[i]);
    if (rc) return rc;
    rc = tp_finish();
    if (chdir_mode && rmdir(moved)) {
        fprintf(stderr, "tp: %s is not empty after chdir: did the trace land there? (%s)\n", moved, strerror(errno));
        rc = 4;
    }
    return rc;
}
