/* SPDX-License-Identifier: MIT */
/* vt_hook_fd.c - close, dup2, dup3, close_range and closefrom, interposed so that a
 * program that closes every descriptor (daemons, launchers) or dup2s onto the trace's
 * number neither loses the trace nor receives its chunks.
 *
 *   close(trace)            returns 0 and leaves the trace open: from the program's
 *                           side the number is gone (it never opened it)
 *   dup2/dup3(x, trace)     the trace moves to another number first, then the call runs
 *   close_range over it     split in two ranges around it (CLOSE_RANGE_CLOEXEC passes:
 *                           the trace is close-on-exec already)
 *   closefrom(n)            the same, as close_range(n, ~0U)
 * In a fork or vfork child (which never writes the trace) every call passes through.
 * The real calls are made as system calls: these must stay async-signal-safe (close is
 * called from signal handlers) and must not reach dlsym. fcntl(F_DUPFD) is not hooked:
 * it never overwrites a descriptor. What slips past the hooks (a raw syscall, libc's own
 * closes) is caught by vt_out_write's device and inode check. */
#include "vt_out.h"
#include "vt_global.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

/* The trace belongs to the process that created it, and not to its fork children. */
static int guarding(void)
{
    return !atomic_load_explicit(&vt_g.forked, memory_order_relaxed) && getpid() == vt_g.pid;
}

VT_EXPORT int close(int fd)
{
    if (VT_UNLIKELY(vt_out_fd() == fd) && fd >= 0 && guarding() && vt_out_lock_range(fd, fd) >= 0) {
        vt_out_unlock();
        return 0;
    }
    return (int)syscall(SYS_close, fd);
}

static int sys_dup3(int oldfd, int newfd, int flags)
{
    return (int)syscall(SYS_dup3, oldfd, newfd, flags);
}

/* dup2/dup3 onto the trace's number: move the trace, then let the call run. */
static int dup_over(int oldfd, int newfd, int flags, int is_dup2)
{
    int locked = 0;
    if (VT_UNLIKELY(vt_out_fd() == newfd) && newfd >= 0 && oldfd != newfd && guarding()
        && vt_out_lock_range(newfd, newfd) >= 0) {
        locked = 1;
        vt_out_move_locked();
    }
    int rc;
    if (is_dup2 && oldfd == newfd)   /* dup2's special case (dup3 refuses it) */
        rc = fcntl(oldfd, F_GETFD) < 0 ? -1 : newfd;
    else
        rc = sys_dup3(oldfd, newfd, flags);
    if (locked) vt_out_unlock();
    return rc;
}

VT_EXPORT int dup2(int oldfd, int newfd) { return dup_over(oldfd, newfd, 0, 1); }
VT_EXPORT int dup3(int oldfd, int newfd, int flags) { return dup_over(oldfd, newfd, flags, 0); }

static int sys_close_range(unsigned lo, unsigned hi, int flags)
{
    return (int)syscall(SYS_close_range, lo, hi, flags);
}

VT_EXPORT int close_range(unsigned int first, unsigned int last, int flags)
{
    int t = vt_out_fd();
    if (VT_LIKELY(t < 0) || (flags & CLOSE_RANGE_CLOEXEC) || (unsigned)t < first || (unsigned)t > last
        || !guarding() || vt_out_lock_range((int)first, last > INT_MAX ? INT_MAX : (int)last) < 0)
        return sys_close_range(first, last, flags);
    int rc = 0;
    if ((unsigned)t > first) rc = sys_close_range(first, (unsigned)t - 1, flags);
    if (rc == 0 && (unsigned)t < last) rc = sys_close_range((unsigned)t + 1, last, flags);
    int e = errno;
    vt_out_unlock();
    errno = e;
    return rc;
}

VT_EXPORT void closefrom(int lowfd)
{
    if (lowfd < 0) lowfd = 0;
    if (close_range((unsigned)lowfd, ~0U, 0) == 0) return;
    /* A kernel without close_range (before 5.9): one by one, up to the limit. */
    long max = sysconf(_SC_OPEN_MAX);
    if (max < 0 || max > (1L << 20)) max = 1L << 20;
    for (long fd = lowfd; fd < max; fd++) close((int)fd);
}
