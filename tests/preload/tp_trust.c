/* SPDX-License-Identifier: MIT */
/* tp_trust.c - tp_linked's sections for issue 17: the recorder keeps its own file and
 * every event, whatever the program does to descriptors, signals, exec or the disk.
 *
 *   closefds N     N alloc/free pairs; between them every descriptor but the log is
 *                  closed one by one, then with close_range and closefrom, then dup2'ed
 *                  over from the program's own file (own.txt), which gets a line each time
 *   rawclose N     N pairs; halfway the trace's descriptor is closed by a raw syscall and
 *                  own.txt is dup3'ed onto its number (what the hooks cannot see)
 *   stress T N     T threads x N pairs, not logged (the trace's counts are checked)
 *   seq N          N allocations of 4096 + i bytes, in order (a disk filling up)
 *   crash HOW N    N logged allocations, then: segv, abort, _exit, or handler (a SIGSEGV
 *                  handler of the program's that calls _exit(42))
 *   execself K N   N pairs, then exec of itself with K-1: K images in one pid
 *   stacks D       2^D pairs, each from its own call path D levels deep (not logged) */
#define _GNU_SOURCE
#include "tp.h"
#include "tp_trust.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

TP_NOINLINE void tp_trust_pair(size_t size)
{
    CUdeviceptr d = 0;
    tp_calling(FAKECUDA_FN_cuMemAlloc_v2);
    TP_CK(cuMemAlloc(&d, size), CUDA_SUCCESS);
    tp_alloc(VT_KIND_MEM_ALLOC, d, size, 0, 0, (void *)tp_trust_pair);
    tp_calling(FAKECUDA_FN_cuMemFree_v2);
    TP_CK(cuMemFree(d), CUDA_SUCCESS);
    tp_free(VT_KIND_MEM_FREE, d, 0, 0, (void *)tp_trust_pair);
}

TP_NOINLINE void tp_trust_alloc(size_t size)
{
    CUdeviceptr d = 0;
    tp_calling(FAKECUDA_FN_cuMemAlloc_v2);
    TP_CK(cuMemAlloc(&d, size), CUDA_SUCCESS);
    tp_alloc(VT_KIND_MEM_ALLOC, d, size, 0, 0, (void *)tp_trust_alloc);
}

static int open_own(void)
{
    int fd = open("own.txt", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) tp_die("own.txt");
    return fd;
}

static void own_line(int fd, const char *what)
{
    char b[128];
    int n = snprintf(b, sizeof b, "%s\n", what);
    if (write(fd, b, (size_t)n) != n) tp_die("writing own.txt");
}

static int fd_limit(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > 65536) return 65536;
    return (int)rl.rlim_cur;
}

/* ------------------------------------------------------------------------ *
 *  Descriptors
 * ------------------------------------------------------------------------ */
static int run_closefds(int n)
{
    int log = tp_log_fd(), max = fd_limit();
    for (int i = 0; i < n; i++) {
        tp_trust_pair(4096 + (size_t)i);
        if (i == n / 5) {            /* one by one, as daemons do */
            for (int fd = 3; fd < max; fd++)
                if (fd != log) close(fd);
            int own = open_own();
            own_line(own, "after close loop");
            close(own);
        } else if (i == 2 * n / 5) { /* close_range around the log */
            if (log > 3) close_range(3, (unsigned)log - 1, 0);
            close_range((unsigned)log + 1, ~0U, 0);
            int own = open_own();
            own_line(own, "after close_range");
            close(own);
        } else if (i == 3 * n / 5) { /* every number taken over by the program's file */
            int own = open_own();
            for (int fd = 3; fd < max; fd++)
                if (fd != log && fd != own) dup2(own, fd);
            own_line(own, "after dup2 over all");
            for (int fd = 3; fd < max; fd++)
                if (fd != log && fd != own) dup3(own, fd, O_CLOEXEC);
            for (int fd = 3; fd < max; fd++)
                if (fd != log) close(fd);
        } else if (i == 4 * n / 5) {
            if (log > 3) close_range(3, (unsigned)log - 1, 0);
            closefrom(log + 1);
            int own = open_own();
            own_line(own, "after closefrom");
            close(own);
        }
    }
    return 0;
}

/* The trace's descriptor: the one whose link ends in .vtrace. */
static int find_trace_fd(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d) tp_die("/proc/self/fd");
    int found = -1;
    for (struct dirent *e; (e = readdir(d));) {
        char p[300], l[PATH_MAX];
        snprintf(p, sizeof p, "/proc/self/fd/%s", e->d_name);
        ssize_t k = readlink(p, l, sizeof l - 1);
        if (k <= 7) continue;
        l[k] = 0;
        if (!strcmp(l + k - 7, ".vtrace")) found = atoi(e->d_name);
    }
    closedir(d);
    return found;
}

static int run_rawclose(int n)
{
    for (int i = 0; i < n; i++) {
        tp_trust_pair(4096 + (size_t)i);
        if (i != n / 2) continue;
        int t = find_trace_fd();
        if (t < 0) tp_die("no trace descriptor found");
        if (t < 100) tp_die("the trace's descriptor %d is not high", t);
        syscall(SYS_close, t);
        int own = open_own();
        if (syscall(SYS_dup3, own, t, 0) != t) tp_die("dup3 onto %d", t);
        own_line(t, "the program's own line");
        syscall(SYS_close, own);
        usleep(300 * 1000);          /* a few flushes with the number taken */
    }
    return 0;
}

/* ------------------------------------------------------------------------ *
 *  Load: not logged (a log line per event would be the bottleneck)
 * ------------------------------------------------------------------------ */
typedef struct { int n, index; } stress_arg;

TP_NOINLINE void *tp_trust_stress(void *p)
{
    stress_arg *a = p;
    for (int i = 0; i < a->n; i++) {
        CUdeviceptr d = 0;
        if (cuMemAlloc(&d, 256 + (size_t)a->index) != CUDA_SUCCESS || cuMemFree(d) != CUDA_SUCCESS) _exit(3);
    }
    return NULL;
}

static int run_stress(int t, int n)
{
    pthread_t th[256];
    stress_arg a[256];
    if (t < 1 || t > 256) tp_die("1..256 threads");
    for (int i = 0; i < t; i++) {
        a[i].n = n;
        a[i].index = i;
        if (pthread_create(&th[i], NULL, tp_trust_stress, &a[i])) tp_die("pthread_create");
    }
    for (int i = 0; i < t; i++) pthread_join(th[i], NULL);
    return 0;
}

/* 2^D call paths: at each level the path's next bit picks tp_trust_left or
 * tp_trust_right, so every pair has a stack of its own (about 2^(D+2) tree nodes). */
TP_NOINLINE void tp_trust_left(int d, unsigned path);
TP_NOINLINE void tp_trust_right(int d, unsigned path);

TP_NOINLINE void tp_trust_step(int d, unsigned path)
{
    if (d == 0) {
        CUdeviceptr p = 0;
        if (cuMemAlloc(&p, 512) != CUDA_SUCCESS || cuMemFree(p) != CUDA_SUCCESS) _exit(3);
        return;
    }
    if (path & 1) tp_trust_left(d - 1, path >> 1);
    else tp_trust_right(d - 1, path >> 1);
}

TP_NOINLINE void tp_trust_left(int d, unsigned path) { tp_trust_step(d, path); }
TP_NOINLINE void tp_trust_right(int d, unsigned path) { tp_trust_step(d, path); }

/* ------------------------------------------------------------------------ *
 *  Ends
 * ------------------------------------------------------------------------ */
static void on_segv(int sig)
{
    (void)sig;
    _exit(42);
}

static int run_crash(const char *how, int n)
{
    for (int i = 0; i < n; i++) tp_trust_alloc(4096 + (size_t)i);
    int rc = tp_finish();
    if (rc) return rc;
    if (!strcmp(how, "segv") || !strcmp(how, "handler")) {
        if (!strcmp(how, "handler")) {
            struct sigaction sa;
            memset(&sa, 0, sizeof sa);
            sa.sa_handler = on_segv;
            sigemptyset(&sa.sa_mask);
            if (sigaction(SIGSEGV, &sa, NULL)) tp_die("sigaction");
        }
        *(volatile int *)(uintptr_t)8 = 1;
    } else if (!strcmp(how, "abort")) {
        abort();
    } else if (!strcmp(how, "_exit")) {
        _exit(0);
    }
    tp_die("crash %s: still alive", how);
}

static int run_execself(int k, int n, char **argv)
{
    for (int i = 0; i < n; i++) tp_trust_pair(4096 + (size_t)i + (size_t)k * 1000);
    int rc = tp_finish();
    if (rc || k <= 1) return rc;
    /* The next image logs to its own expect file and must write the next name. */
    const char *tag = getenv("TP_EXPECT_TAG");
    int next = (tag && *tag ? atoi(tag) : 0) + 1;
    char t[16], sfx[16], kk[16], nn[16];
    snprintf(t, sizeof t, "%d", next);
    snprintf(sfx, sizeof sfx, ".%d", next);
    snprintf(kk, sizeof kk, "%d", k - 1);
    snprintf(nn, sizeof nn, "%d", n);
    setenv("TP_EXPECT_TAG", t, 1);
    setenv("TP_TRACE_SUFFIX", sfx, 1);
    execl("/proc/self/exe", argv[0], "execself", kk, nn, (char *)NULL);
    tp_die("exec failed");
}

int tp_trust_run(int argc, char **argv, int *rc)
{
    const char *mode = argv[1];
    if (!strcmp(mode, "closefds") && argc == 3) *rc = run_closefds(atoi(argv[2]));
    else if (!strcmp(mode, "rawclose") && argc == 3) *rc = run_rawclose(atoi(argv[2]));
    else if (!strcmp(mode, "stress") && argc == 4) *rc = run_stress(atoi(argv[2]), atoi(argv[3]));
    else if (!strcmp(mode, "seq") && argc == 3) {
        for (int i = 0; i < atoi(argv[2]); i++) tp_trust_alloc(4096 + (size_t)i);
        *rc = 0;
    }
    else if (!strcmp(mode, "crash") && argc == 4) *rc = run_crash(argv[2], atoi(argv[3]));
    else if (!strcmp(mode, "stacks") && argc == 3) {
        int d = atoi(argv[2]);
        for (unsigned p = 0; p < (1u << d); p++) tp_trust_step(d, p);
        *rc = 0;
    }
    else if (!strcmp(mode, "execself") && argc == 4) *rc = run_execself(atoi(argv[2]), atoi(argv[3]), argv);
    else return 0;
    return 1;
}
