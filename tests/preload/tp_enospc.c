/* SPDX-License-Identifier: MIT */
/* tp_enospc.c - an LD_PRELOAD shim that makes the disk fill up under the trace: write()
 * to a file whose name ends in .vtrace takes TP_ENOSPC_AFTER bytes in all, writes what
 * still fits of the call that crosses the line, then fails with ENOSPC (what a full file
 * system does). Other descriptors are untouched. Preload it before the recorder. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef ssize_t (*write_fn)(int, const void *, size_t);

static _Atomic long long used;

static int is_trace(int fd)
{
    char p[64], l[4096];
    snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
    ssize_t k = readlink(p, l, sizeof l - 1);
    return k > 7 && !memcmp(l + k - 7, ".vtrace", 7);
}

ssize_t write(int fd, const void *buf, size_t n)
{
    static write_fn real;
    if (!real) real = (write_fn)dlsym(RTLD_NEXT, "write");
    if (fd > 2 && is_trace(fd)) {
        const char *e = getenv("TP_ENOSPC_AFTER");
        long long limit = e ? atoll(e) : 0, u = atomic_load(&used);
        if (u >= limit) { errno = ENOSPC; return -1; }
        if ((long long)n > limit - u) n = (size_t)(limit - u);
        ssize_t w = real(fd, buf, n);
        if (w > 0) atomic_fetch_add(&used, w);
        return w;
    }
    return real(fd, buf, n);
}
