// SPDX-License-Identifier: MIT
/* py_native.c - a helper library the Python tests load with ctypes: allocates from a
 * thread Python never ran on (no Python thread state, so no Python frames), and calls a
 * Python callback from C (qsort-style re-entry is covered by libc's qsort itself). */
#include <cuda.h>
#include <pthread.h>
#include <stddef.h>

typedef struct { size_t size; CUdeviceptr ptr; CUresult rc; } job;

static void *run(void *arg)
{
    job *j = arg;
    j->rc = cuMemAlloc(&j->ptr, j->size);
    return NULL;
}

/* Allocates size bytes on a new native thread; returns the pointer, 0 on failure. */
unsigned long long native_thread_alloc(size_t size)
{
    job j = { size, 0, CUDA_ERROR_UNKNOWN };
    pthread_t t;
    if (pthread_create(&t, NULL, run, &j) != 0) return 0;
    pthread_join(t, NULL);
    return j.rc == CUDA_SUCCESS ? (unsigned long long)j.ptr : 0;
}
