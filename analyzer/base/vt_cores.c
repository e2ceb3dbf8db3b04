// SPDX-License-Identifier: MIT
/* vt_cores.c - the cores this process may use (vt_cores.h). */
#include "vt_cores.h"

#include <sched.h>
#include <unistd.h>

int vt_cores(void)
{
    int n = 0;
#ifdef CPU_COUNT
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) n = CPU_COUNT(&set);
#endif
    if (n <= 0) {
        long k = sysconf(_SC_NPROCESSORS_ONLN);
        n = k > 0 ? (int)k : 1;
    }
    return n;
}
