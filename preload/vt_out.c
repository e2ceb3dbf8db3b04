/* SPDX-License-Identifier: MIT */
/* vt_out.c - the trace file: safe creation, a descriptor out of the program's way, and
 * writes that go only to the file created.
 *
 * Why each step (issue 17's review found each of these hurting someone):
 *   - O_EXCL|O_NOFOLLOW: a name planted by another user (a symlink to their victim, a
 *     fake trace for `vramtrace run` to summarize) is never opened; another name is
 *     taken instead, and the existing file is left as it was.
 *   - mode 0600: a trace holds command lines, paths and host names.
 *   - a high descriptor number: programs that dup2 onto small fixed numbers, or assume
 *     open() returns the lowest free one, never meet ours.
 *   - device and inode checked before each chunk: a program that closed our descriptor
 *     by a path the hooks cannot see (a raw syscall, libc internals) and opened its own
 *     file under the same number would otherwise receive our chunks. */
#include "vt_out.h"
#include "vt_global.h"
#include "vt_writer.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define VT_OUT_TRIES 100      /* want, want.1 ... want.99 */
#define VT_OUT_FD_CAP 4096    /* never higher: the kernel sizes the fd table to the top fd */

/* The one trace of the process. mu is held across every write and every change of fd,
 * so that the fd hooks can move the file before the program's call reuses the number. */
static struct {
    pthread_mutex_t mu;
    _Atomic int     fd;
    dev_t           dev;
    ino_t           ino;
    char            path[VT_PATH_MAX];
} vt_o = { .mu = PTHREAD_MUTEX_INITIALIZER, .fd = -1 };

/* The lowest free number at or above a high base (below the soft limit), close-on-exec.
 * Returns the new descriptor or -1. */
static int dup_high(int fd)
{
    struct rlimit rl;
    long base = 1000;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
        long top = rl.rlim_cur > VT_OUT_FD_CAP ? VT_OUT_FD_CAP : (long)rl.rlim_cur;
        base = top - 64;
    }
    if (base < 10) return -1;
    return fcntl(fd, F_DUPFD_CLOEXEC, (int)base);
}

/* Is the file at path a trace this pid wrote before (an earlier exec image)? */
static int own_earlier_trace(const char *path)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return 0;
    struct stat st;
    vt_file_header h;
    int ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid()
             && pread(fd, &h, sizeof h, 0) == (ssize_t)sizeof h
             && memcmp(h.magic, VT_MAGIC, VT_MAGIC_LEN) == 0 && h.pid == (uint32_t)getpid();
    syscall(SYS_close, fd);
    return ok;
}

int vt_out_create(const char *want, int readable, char *path, size_t n, int *renamed, int *quiet)
{
    *renamed = 0;
    *quiet = 0;
    int fd = -1;
    for (int i = 0; i < VT_OUT_TRIES; i++) {
        int k = i ? snprintf(path, n, "%s.%d", want, i) : snprintf(path, n, "%s", want);
        if (k < 0 || (size_t)k >= n) { errno = ENAMETOOLONG; return -1; }
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, readable ? 0644 : 0600);
        if (fd >= 0) break;
        if (errno != EEXIST) return -1;
        if (i == 0) *quiet = own_earlier_trace(want);
        *renamed = 1;
    }
    if (fd < 0) return -1;   /* errno EEXIST: every name taken */
    int hi = dup_high(fd);
    if (hi >= 0) {
        syscall(SYS_close, fd);
        fd = hi;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        syscall(SYS_close, fd);
        errno = e;
        return -1;
    }
    pthread_mutex_lock(&vt_o.mu);
    vt_o.dev = st.st_dev;
    vt_o.ino = st.st_ino;
    snprintf(vt_o.path, sizeof vt_o.path, "%s", path);
    atomic_store(&vt_o.fd, fd);
    pthread_mutex_unlock(&vt_o.mu);
    return fd;
}

int vt_out_fd(void)
{
    return atomic_load_explicit(&vt_o.fd, memory_order_relaxed);
}

static int is_ours(int fd)
{
    struct stat st;
    return fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == vt_o.dev && st.st_ino == vt_o.ino;
}

/* Under mu: the descriptor is not our file any more. Reopens the file by its path;
 * the number left behind is not closed (it may be the program's now). Returns 0, or -1
 * with errno EMFILE (every number is taken: try again later) or ESTALE. */
static int reopen_locked(void)
{
    atomic_store(&vt_o.fd, -1);
    int fd = open(vt_o.path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        if (errno != EMFILE && errno != ENFILE) errno = ESTALE;
        else errno = EMFILE;
        return -1;
    }
    if (!is_ours(fd)) {
        syscall(SYS_close, fd);
        errno = ESTALE;
        return -1;
    }
    int hi = dup_high(fd);
    if (hi >= 0) {
        syscall(SYS_close, fd);
        fd = hi;
    }
    atomic_store(&vt_o.fd, fd);
    return 0;
}

int vt_out_write(const void *p, size_t n)
{
    const uint8_t *c = p;
    int rc = 0;
    pthread_mutex_lock(&vt_o.mu);
    int fd = atomic_load(&vt_o.fd);
    if (!is_ours(fd) && reopen_locked() != 0) rc = -1;
    fd = atomic_load(&vt_o.fd);
    while (!rc && n) {
        ssize_t w = write(fd, c, n);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) { rc = -1; break; }
        if (w == 0) { errno = EIO; rc = -1; break; }
        c += w;
        n -= (size_t)w;
    }
    int e = errno;
    pthread_mutex_unlock(&vt_o.mu);
    errno = e;
    return rc;
}

int vt_out_close(void)
{
    pthread_mutex_lock(&vt_o.mu);
    int fd = atomic_exchange(&vt_o.fd, -1);
    int rc = 0;
    if (is_ours(fd)) rc = (int)syscall(SYS_close, fd);
    int e = errno;
    pthread_mutex_unlock(&vt_o.mu);
    errno = e;
    return rc;
}

int vt_out_lock_range(int lo, int hi)
{
    int fd = atomic_load_explicit(&vt_o.fd, memory_order_relaxed);
    if (fd < 0 || fd < lo || fd > hi) return -1;
    pthread_mutex_lock(&vt_o.mu);
    fd = atomic_load(&vt_o.fd);
    if (fd >= 0 && fd >= lo && fd <= hi) return fd;
    pthread_mutex_unlock(&vt_o.mu);
    return -1;
}

int vt_out_move_locked(void)
{
    int old = atomic_load(&vt_o.fd);
    int fd = dup_high(old);
    if (fd < 0) fd = fcntl(old, F_DUPFD_CLOEXEC, 3);
    atomic_store(&vt_o.fd, fd);
    return fd;
}

void vt_out_unlock(void)
{
    pthread_mutex_unlock(&vt_o.mu);
}
