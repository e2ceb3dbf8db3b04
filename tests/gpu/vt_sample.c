/* SPDX-License-Identifier: MIT */
/* vt_sample.c - a sampling profiler for the GPU machine, which has no perf (docs/benchmarks.md,
 * section 7, "Fifth pass"). Preloaded beside the recorder:
 *
 *   LD_PRELOAD=.gpu/lib/libvtsample.so VTSAMPLE_DIR=/tmp/s vramtrace run -- python3 ...
 *
 * Every VTSAMPLE_US microseconds (default 200) of each thread's own CPU time, or with
 * VTSAMPLE_CLOCK=wall of the wall clock, the thread is stopped and this records its
 * program counter and thread id, with the tag the program last gave through
 * vtsample_tag() (bench_steps.py: the mode of the step it times). One POSIX timer a
 * thread, made in the thread itself (pthread_create is wrapped for that); POSIX timers,
 * unlike ITIMER_PROF, die with an exec, before a new program has its handler. CPU-time
 * timers fire at the kernel's tick at best (~200 a second a thread on the GPU machine);
 * wall-clock ones sample a waiting thread too, where it waits. At exit it writes
 * VTSAMPLE_DIR/samples.<pid>.txt: "tid tag pc count" lines, then the names of the
 * threads still there and the process's memory map, for
 * tests/gpu/sample_report.py to turn into functions. A tool for measuring, not part of
 * vramtrace: it changes the program's signals (SIGPROF) and is loaded only by hand. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#define CAP (1u << 22)  /* samples kept at most (64 MiB reserved, touched as used) */

typedef struct { uint32_t tid, tag; uint64_t pc; } sample;

/* The handler can only reach globals; one profiler per process. */
static sample *buf;
static _Atomic uint32_t nsamples;
static _Atomic uint32_t lost;
/* What the program is doing, as it says through vtsample_tag (0 until it does). */
static _Atomic uint32_t tag;
static __thread __attribute__((tls_model("initial-exec"))) uint32_t my_tid;  /* read in the handler: no lazy TLS */
static char dir[512];
static clockid_t clock_kind = CLOCK_THREAD_CPUTIME_ID;
static long period_us = 200;
static int on;

/* Starts sampling the calling thread (its timer lives as long as the thread). */
static void arm_thread(void)
{
    struct sigevent ev;
    memset(&ev, 0, sizeof ev);
    ev.sigev_notify = SIGEV_THREAD_ID;
    ev.sigev_signo = SIGPROF;
    ev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
    timer_t t;
    if (timer_create(clock_kind, &ev, &t)) return;
    struct timespec p = { period_us / 1000000, period_us % 1000000 * 1000 };
    struct itimerspec it = { p, p };
    timer_settime(t, 0, &it, NULL);
}

typedef struct { void *(*fn)(void *); void *arg; } start_arg;

static void *thread_start(void *a_)
{
    start_arg a = *(start_arg *)a_;
    free(a_);
    arm_thread();
    return a.fn(a.arg);
}

int pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
    static int (*real)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
    if (!real) real = (int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *))dlsym(RTLD_NEXT, "pthread_create");
    start_arg *a = on ? malloc(sizeof *a) : NULL;
    if (!a) return real(th, attr, fn, arg);
    a->fn = fn;
    a->arg = arg;
    int rc = real(th, attr, thread_start, a);
    if (rc) free(a);
    return rc;
}

static void on_prof(int sig, siginfo_t *si, void *uc_)
{
    (void)sig; (void)si;
    ucontext_t *uc = uc_;
    if (!my_tid) my_tid = (uint32_t)syscall(SYS_gettid);
    uint32_t i = atomic_fetch_add_explicit(&nsamples, 1, memory_order_relaxed);
    if (i >= CAP) { atomic_fetch_add_explicit(&lost, 1, memory_order_relaxed); return; }
    buf[i].tid = my_tid;
    buf[i].tag = atomic_load_explicit(&tag, memory_order_relaxed);
#if defined(__x86_64__)
    buf[i].pc = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    buf[i].pc = (uint64_t)uc->uc_mcontext.pc;
#else
    buf[i].pc = 0;
#endif
}

static int by_tid_tag_pc(const void *a, const void *b)
{
    const sample *x = a, *y = b;
    if (x->tid != y->tid) return x->tid < y->tid ? -1 : 1;
    if (x->tag != y->tag) return x->tag < y->tag ? -1 : 1;
    return x->pc < y->pc ? -1 : x->pc > y->pc;
}

/* The program's own label for the samples that follow (found with dlsym, by ctypes). */
__attribute__((visibility("default"))) void vtsample_tag(unsigned t)
{
    atomic_store_explicit(&tag, t, memory_order_relaxed);
}

__attribute__((constructor)) static void start(void)
{
    const char *d = getenv("VTSAMPLE_DIR");
    if (!d || !*d) return;
    snprintf(dir, sizeof dir, "%s", d);
    buf = mmap(NULL, CAP * sizeof *buf, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (buf == MAP_FAILED) { buf = NULL; return; }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_prof;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGPROF, &sa, NULL)) return;
    const char *us = getenv("VTSAMPLE_US"), *clk = getenv("VTSAMPLE_CLOCK");
    if (us && atol(us) > 0) period_us = atol(us);
    if (clk && !strcmp(clk, "wall")) clock_kind = CLOCK_MONOTONIC;
    on = 1;
    arm_thread();
}

__attribute__((destructor)) static void stop(void)
{
    if (!on) return;
    on = 0;
    signal(SIGPROF, SIG_IGN);  /* the threads' timers still run */
    uint32_t n = atomic_load(&nsamples);
    if (n > CAP) n = CAP;
    qsort(buf, n, sizeof *buf, by_tid_tag_pc);
    char path[600];
    snprintf(path, sizeof path, "%s/samples.%d.txt", dir, (int)getpid());
    FILE *f = fopen(path, "w");
    if (!f) return;
    fprintf(f, "# samples %u lost %u pid %d\n", n, atomic_load(&lost), (int)getpid());
    for (uint32_t i = 0; i < n;) {
        uint32_t j = i;
        while (j < n && buf[j].tid == buf[i].tid && buf[j].tag == buf[i].tag && buf[j].pc == buf[i].pc) j++;
        fprintf(f, "%u %u %llx %u\n", buf[i].tid, buf[i].tag, (unsigned long long)buf[i].pc, j - i);
        i = j;
    }
    /* thread names, of the threads still there */
    for (uint32_t i = 0; i < n;) {
        uint32_t j = i;
        while (j < n && buf[j].tid == buf[i].tid) j++;
        char p[64], name[64] = "?";
        snprintf(p, sizeof p, "/proc/self/task/%u/comm", buf[i].tid);
        FILE *c = fopen(p, "r");
        if (c) {
            if (fgets(name, sizeof name, c)) name[strcspn(name, "\n")] = 0;
            fclose(c);
        }
        fprintf(f, "# thread %u %s\n", buf[i].tid, name);
        i = j;
    }
    FILE *m = fopen("/proc/self/maps", "r");
    if (m) {
        char line[1024];
        while (fgets(line, sizeof line, m)) fprintf(f, "# map %s", line);
        fclose(m);
    }
    fclose(f);
}
