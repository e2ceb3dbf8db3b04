// SPDX-License-Identifier: MIT
/* vt_global.c - the recorder's process and thread state, and its one warning line. */
#include "vt_global.h"

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

VT_HOT_DATA vt_global vt_g;
VT_TLS vt_tls_t vt_tls;

void vt_warn(const char *fmt, ...)
{
    char buf[1024];
    int n = snprintf(buf, sizeof buf, "vramtrace: ");
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(buf + n, sizeof buf - (size_t)n - 1, fmt, ap);
    va_end(ap);
    if (m < 0) m = 0;
    size_t len = (size_t)n + ((size_t)m < sizeof buf - (size_t)n - 1 ? (size_t)m : sizeof buf - (size_t)n - 2);
    buf[len++] = '\n';
    ssize_t w = write(2, buf, len);
    (void)w;
}
