// SPDX-License-Identifier: MIT
/* wl_common.h - shared bits of the small edge-case workloads (vt-leak, vt-frag, ...).
 *
 * Each of those programs does one allocation pattern and prints ONE JSON line on stdout
 * with what it asked for, so that a test on the GPU machine can compare a trace with it.
 * Sizes are requested bytes (the driver rounds them up; traces record the request). */
#ifndef VT_WL_COMMON_H
#define VT_WL_COMMON_H

#include <cuda_runtime.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define WL_NOINLINE __attribute__((noinline))
#define WL_KEEP_FRAME() __asm__ __volatile__("" ::: "memory")

/* The program name for error messages; set once at start. */
static const char *wl_prog = "vt-workload";

static inline void wl_die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: error: ", wl_prog);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

#define WL_CHECK(call)                                                                  \
    do {                                                                                \
        cudaError_t e_ = (call);                                                        \
        if (e_ != cudaSuccess)                                                          \
            wl_die("%s failed at %s:%d: %s (%s)", #call, __FILE__, __LINE__,            \
                   cudaGetErrorName(e_), cudaGetErrorString(e_));                       \
    } while (0)

/* Selects device 0 (which creates the primary context) and says which one it is. */
static inline void wl_start(const char *prog, size_t *free_b, size_t *total_b)
{
    wl_prog = prog;
    WL_CHECK(cudaSetDevice(0));
    size_t f = 0, t = 0;
    WL_CHECK(cudaMemGetInfo(&f, &t));
    if (free_b) *free_b = f;
    if (total_b) *total_b = t;
}

/* A JSON array of sizes, e.g. "sizes":[1,2,3] */
static inline void wl_print_sizes(const char *key, const size_t *v, int n)
{
    printf("\"%s\":[", key);
    for (int i = 0; i < n; i++) printf("%s%zu", i ? "," : "", v[i]);
    printf("]");
}

#endif /* VT_WL_COMMON_H */
