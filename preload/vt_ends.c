/* SPDX-License-Identifier: MIT */
/* vt_ends.c - nothing recorded before a crash, an _exit or an exec is lost.
 *
 *   fatal signals  SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL: our handler asks the writer
 *                  to write out what is queued (vt_writer_sync: atomics and futexes
 *                  only, so it is async-signal-safe), then does what the program asked
 *                  for: its own handler (with its mask and flags), SIG_IGN, or the
 *                  default action (the signal is raised again and kills as it would
 *                  have). sigaction() and signal() are hooked for these five signals so
 *                  the program's handler is recorded as the one to chain to while ours
 *                  stays installed; the program reads back what it set.
 *   _exit, _Exit   end the trace as exit() would (drain, trailer), without locks or a
 *                  join: _exit is often called from signal handlers.
 *   exec*          write out what is queued, then exec. The trace stays open: an exec
 *                  that fails goes on being traced. The new image writes its own file
 *                  (vt_out.c gives it another name when the pattern names the same one).
 * Children of fork and vfork never write the trace: every hook passes straight through
 * there (a vfork child shares our memory while the parent's other threads run on).
 * Not hooked: sigset/sysv_signal/bsd_signal (rare; a handler set through them replaces
 * ours and the crash flush is lost, nothing else), posix_spawn (the parent goes on). */
#include "vt_ends.h"
#include "vt_dlsym.h"
#include "vt_global.h"
#include "vt_init.h"
#include "vt_writer.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

typedef int (*vt_sigaction_fn)(int, const struct sigaction *, struct sigaction *);
typedef int (*vt_execvp_fn)(const char *, char *const[]);
typedef int (*vt_execvpe_fn)(const char *, char *const[], char *const[]);
typedef int (*vt_fexecve_fn)(int, char *const[], char *const[]);

/* The real functions, found once in the constructor (before the program's threads). */
static vt_sigaction_fn real_sigaction;
static vt_execvp_fn    real_execvp;
static vt_execvpe_fn   real_execvpe;
static vt_fexecve_fn   real_fexecve;

static const int vt_fatal[] = { SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL };
#define VT_NFATAL (int)(sizeof vt_fatal / sizeof vt_fatal[0])

/* Per fatal signal: is our handler installed, and what the program asked for (the
 * handler to chain to). Process-wide like the dispositions they shadow. */
static _Atomic int      vt_armed[VT_NFATAL];
static struct sigaction vt_prog[VT_NFATAL];

static int fatal_index(int sig)
{
    for (int i = 0; i < VT_NFATAL; i++)
        if (vt_fatal[i] == sig) return i;
    return -1;
}

/* The trace belongs to the process that created it (not a fork or vfork child). */
static int owner(void)
{
    return !atomic_load_explicit(&vt_g.forked, memory_order_relaxed) && getpid() == vt_g.pid;
}

static void flush_queued(void)
{
    if (owner() && atomic_load_explicit(&vt_g.state, memory_order_acquire) == VT_ST_ACTIVE) vt_writer_sync();
}

/* ------------------------------------------------------------------------ *
 *  Fatal signals
 * ------------------------------------------------------------------------ */
static void on_fatal(int sig, siginfo_t *si, void *uc)
{
    int saved = errno;
    flush_queued();
    int i = fatal_index(sig);
    struct sigaction p = vt_prog[i];
    int info = (p.sa_flags & SA_SIGINFO) != 0;
    /* sa_handler and sa_sigaction share storage: SIG_DFL and SIG_IGN read the same. */
    void (*h)(int) = p.sa_handler;
    if (h == SIG_DFL) {
        /* The default action: put it back and let the signal kill as it would have. A
         * fault returns to the faulting instruction and faults again; a signal sent by
         * raise, abort or kill is sent again (blocked until this handler returns). */
        struct sigaction d;
        memset(&d, 0, sizeof d);
        d.sa_handler = SIG_DFL;
        sigemptyset(&d.sa_mask);
        atomic_store(&vt_armed[i], 0);
        real_sigaction(sig, &d, NULL);
        if (!si || si->si_code <= 0) syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), sig);
        errno = saved;
        return;
    }
    if (h == SIG_IGN) { errno = saved; return; }
    if (p.sa_flags & SA_RESETHAND) {
        memset(&vt_prog[i], 0, sizeof vt_prog[i]);
        vt_prog[i].sa_handler = SIG_DFL;
    }
    /* The program's handler runs with the mask it asked for. */
    sigset_t mask = p.sa_mask, old;
    if (!(p.sa_flags & SA_NODEFER)) sigaddset(&mask, sig);
    pthread_sigmask(SIG_BLOCK, &mask, &old);
    if (p.sa_flags & SA_NODEFER) {
        sigset_t un;
        sigemptyset(&un);
        sigaddset(&un, sig);
        pthread_sigmask(SIG_UNBLOCK, &un, NULL);
    }
    errno = saved;
    if (info) p.sa_sigaction(sig, si, uc);
    else p.sa_handler(sig);
    saved = errno;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = saved;
}

void vt_ends_arm(void)
{
    struct sigaction a;
    memset(&a, 0, sizeof a);
    a.sa_sigaction = on_fatal;
    a.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
    sigemptyset(&a.sa_mask);
    for (int i = 0; i < VT_NFATAL; i++) {
        struct sigaction old;
        if (!real_sigaction || real_sigaction(vt_fatal[i], NULL, &old) != 0) continue;
        vt_prog[i] = old;
        if (real_sigaction(vt_fatal[i], &a, NULL) == 0) atomic_store(&vt_armed[i], 1);
    }
}

VT_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *oldact)
{
    int i = fatal_index(sig);
    if (VT_LIKELY(i < 0) || !atomic_load(&vt_armed[i]) || !owner()) {
        /* Another library's constructor may come before ours. */
        if (VT_UNLIKELY(!real_sigaction)) vt_ends_init();
        if (!real_sigaction) { errno = ENOSYS; return -1; }
        return real_sigaction(sig, act, oldact);
    }
    /* The kernel keeps our handler; the program's goes in the chain, and reads back. */
    struct sigaction prev = vt_prog[i];
    if (act) vt_prog[i] = *act;
    if (oldact) *oldact = prev;
    return 0;
}

VT_EXPORT sighandler_t signal(int sig, sighandler_t h)
{
    /* glibc's signal(): BSD semantics (SA_RESTART, the signal blocked in its handler). */
    struct sigaction a, old;
    memset(&a, 0, sizeof a);
    a.sa_handler = h;
    a.sa_flags = SA_RESTART;
    sigemptyset(&a.sa_mask);
    sigaddset(&a.sa_mask, sig);
    if (sig <= 0 || sig >= NSIG) { errno = EINVAL; return SIG_ERR; }
    return sigaction(sig, &a, &old) == 0 ? old.sa_handler : SIG_ERR;
}

/* ------------------------------------------------------------------------ *
 *  _exit, _Exit
 * ------------------------------------------------------------------------ */
VT_EXPORT void _exit(int status)
{
    vt_finish_now();
    for (;;) syscall(SYS_exit_group, status);
}

VT_EXPORT void _Exit(int status)
{
    vt_finish_now();
    for (;;) syscall(SYS_exit_group, status);
}

/* ------------------------------------------------------------------------ *
 *  exec
 * ------------------------------------------------------------------------ */
extern char **environ;

VT_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
    flush_queued();
    return (int)syscall(SYS_execve, path, argv, envp);
}

VT_EXPORT int execveat(int dirfd, const char *path, char *const argv[], char *const envp[], int flags)
{
    flush_queued();
    return (int)syscall(SYS_execveat, dirfd, path, argv, envp, flags);
}

VT_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
    flush_queued();
    if (!real_fexecve) return (int)syscall(SYS_execveat, fd, "", argv, envp, AT_EMPTY_PATH);
    return real_fexecve(fd, argv, envp);
}

VT_EXPORT int execv(const char *path, char *const argv[])
{
    return execve(path, argv, environ);
}

VT_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
    flush_queued();
    if (!real_execvpe) { errno = ENOSYS; return -1; }
    return real_execvpe(file, argv, envp);
}

VT_EXPORT int execvp(const char *file, char *const argv[])
{
    flush_queued();
    if (!real_execvp) { errno = ENOSYS; return -1; }
    return real_execvp(file, argv);
}

/* The execl family: the arguments into an array on the stack (exec is async-signal-
 * safe after a fork, so no malloc). */
#define VT_COLLECT_ARGS(arg0, ap, argv, after)                      \
    size_t n_ = 1;                                                  \
    va_start(ap, arg0);                                             \
    while (va_arg(ap, char *)) n_++;                                \
    va_end(ap);                                                     \
    char **argv = __builtin_alloca((n_ + 1) * sizeof *argv);        \
    va_start(ap, arg0);                                             \
    argv[0] = (char *)arg0;                                         \
    for (size_t i_ = 1; i_ <= n_; i_++) argv[i_] = va_arg(ap, char *); \
    after;                                                          \
    va_end(ap)

VT_EXPORT int execl(const char *path, const char *arg, ...)
{
    va_list ap;
    VT_COLLECT_ARGS(arg, ap, argv, (void)0);
    return execve(path, argv, environ);
}

VT_EXPORT int execlp(const char *file, const char *arg, ...)
{
    va_list ap;
    VT_COLLECT_ARGS(arg, ap, argv, (void)0);
    return execvp(file, argv);
}

VT_EXPORT int execle(const char *path, const char *arg, ...)
{
    va_list ap;
    char *const *envp;
    VT_COLLECT_ARGS(arg, ap, argv, envp = va_arg(ap, char *const *));
    return execve(path, argv, envp);
}

void vt_ends_init(void)
{
    real_sigaction = (vt_sigaction_fn)vt_real_dlsym(RTLD_NEXT, "sigaction");
    real_execvp = (vt_execvp_fn)vt_real_dlsym(RTLD_NEXT, "execvp");
    real_execvpe = (vt_execvpe_fn)vt_real_dlsym(RTLD_NEXT, "execvpe");
    real_fexecve = (vt_fexecve_fn)vt_real_dlsym(RTLD_NEXT, "fexecve");
}
