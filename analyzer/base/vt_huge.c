// SPDX-License-Identifier: MIT
/* vt_huge.c - zeroed arrays on huge pages (vt_huge.h). */
#include "vt_huge.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define HUGE_PAGE (2u << 20)

void *vt_huge_calloc(size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size) return NULL;
    size_t bytes = n * size;
    if (bytes < 2 * HUGE_PAGE) return calloc(n, size);
    void *p = NULL;
    if (posix_memalign(&p, HUGE_PAGE, bytes)) return NULL;
#ifdef MADV_HUGEPAGE
    madvise(p, bytes, MADV_HUGEPAGE);
#endif
    memset(p, 0, bytes);
    return p;
}
