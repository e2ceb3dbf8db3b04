// SPDX-License-Identifier: MIT
/* fakecuda_interposer.c - exports cuMemAlloc_v2 the way an LD_PRELOAD hook does, so the
 * self-test can show that the fake's cuGetProcAddress still returns the fake's own
 * function (like the real driver), and that plain calls do reach the hook. */
#define _GNU_SOURCE
#include <cuda.h>
#include <dlfcn.h>

__attribute__((visibility("default"))) unsigned long fakecuda_interposer_calls;

CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize)
{
    CUresult (*next)(CUdeviceptr *, size_t) =
        (CUresult (*)(CUdeviceptr *, size_t))dlsym(RTLD_NEXT, "cuMemAlloc_v2");
    fakecuda_interposer_calls++;
    return next ? next(dptr, bytesize) : CUDA_ERROR_NOT_INITIALIZED;
}
