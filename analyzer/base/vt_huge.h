// SPDX-License-Identifier: MIT
/* vt_huge.h - zeroed arrays for big hash tables, on 2 MiB pages where the kernel gives
 * them. */
#ifndef VT_HUGE_H
#define VT_HUGE_H

#include <stddef.h>

/* calloc(n, size), but an array of 4 MiB or more is 2 MiB-aligned and asks for
 * transparent huge pages: a hash table probed at random outgrows the TLB's reach in
 * 4 KiB pages, and a TLB miss (a nested page walk in a VM) stalls even a prefetched
 * access. free() frees it. NULL when out of memory. */
void *vt_huge_calloc(size_t n, size_t size);

#endif /* VT_HUGE_H */
