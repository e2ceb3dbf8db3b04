// SPDX-License-Identifier: MIT
/* vt_hook_getproc.c - the driver's and the runtime's entry-point lookups.
 *
 * libcudart 13 asks cuGetProcAddress_v2 for ~440 driver functions by base name and
 * version (FACTS.md); a hook that only exports cuMemAlloc_v2 sees none of them. So
 * cuGetProcAddress (v1, 4 arguments) and cuGetProcAddress_v2 (5 arguments) are
 * wrapped: the real lookup runs, and the pointer it returns is identified
 * (vt_wrap_identify) and swapped for our wrapper of that exact variant. Looking up
 * "cuGetProcAddress" itself returns these hooks, so code that bootstraps its lookups
 * through the driver stays covered.
 *
 * cudaGetDriverEntryPoint(ByVersion) (and their _ptsz exports) do the same one level
 * up. The runtime normally resolves these through cuGetProcAddress_v2, which it found
 * with dlsym and which is therefore already ours; identifying here as well covers a
 * runtime that reached the driver some other way. */
#include "vt_cuda.h"
#include "vt_dlsym.h"
#include "vt_elf.h"
#include "vt_format.h"
#include "vt_global.h"
#include "vt_wrap.h"

#include <dlfcn.h>

static inline uint64_t lookup_info(unsigned version, unsigned long long flags)
{
    return (uint64_t)version | ((uint64_t)(flags & 0xffffffffu) << 32);
}

/* ------------------------------------------------------------------------ *
 *  Driver
 * ------------------------------------------------------------------------ */
VT_EXPORT CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion,
                                       cuuint64_t flags, CUdriverProcAddressQueryResult *symbolStatus)
{
    void *ra = __builtin_return_address(0);
    __typeof__(&cuGetProcAddress_v2) real = VT_REAL(cuGetProcAddress_v2);
    if (!real) return VT_NO_DRIVER;
    CUresult r = real(symbol, pfn, cudaVersion, flags, symbolStatus);
    if (r == CUDA_SUCCESS && pfn && *pfn && symbol && symbol[0] == 'c' && symbol[1] == 'u')
        *pfn = vt_wrap_identify(symbol, *pfn, VT_LOOKUP_GETPROC_V2,
                                lookup_info((unsigned)cudaVersion, flags), ra);
    return r;
}

VT_EXPORT CUresult cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags)
{
    void *ra = __builtin_return_address(0);
    __typeof__(&cuGetProcAddress) real = VT_REAL(cuGetProcAddress);
    if (!real) return VT_NO_DRIVER;
    CUresult r = real(symbol, pfn, cudaVersion, flags);
    if (r == CUDA_SUCCESS && pfn && *pfn && symbol && symbol[0] == 'c' && symbol[1] == 'u')
        *pfn = vt_wrap_identify(symbol, *pfn, VT_LOOKUP_GETPROC,
                                lookup_info((unsigned)cudaVersion, flags), ra);
    return r;
}

/* ------------------------------------------------------------------------ *
 *  Runtime
 * ------------------------------------------------------------------------ */
#define RUNTIME_NEXT(n) ((__typeof__(&n))vt_runtime_next(#n, ra))

static vt_cudaError runtime_done(vt_cudaError r, const char *symbol, void **funcPtr,
                                 uint64_t info, void *ra)
{
    if (r == 0 && funcPtr && *funcPtr && symbol && symbol[0] == 'c' && symbol[1] == 'u')
        *funcPtr = vt_wrap_identify(symbol, *funcPtr, VT_LOOKUP_RUNTIME, info, ra);
    return r;
}

VT_EXPORT vt_cudaError cudaGetDriverEntryPoint(const char *symbol, void **funcPtr,
                                               unsigned long long flags, int *driverStatus)
{
    void *ra = __builtin_return_address(0);
    __typeof__(&cudaGetDriverEntryPoint) next = RUNTIME_NEXT(cudaGetDriverEntryPoint);
    if (!next) { if (funcPtr) *funcPtr = NULL; return VT_CUDA_ERROR_SYMBOL_NOT_FOUND; }
    return runtime_done(next(symbol, funcPtr, flags, driverStatus), symbol, funcPtr,
                        lookup_info(0, flags), ra);
}

VT_EXPORT vt_cudaError cudaGetDriverEntryPoint_ptsz(const char *symbol, void **funcPtr,
                                                    unsigned long long flags, int *driverStatus)
{
    void *ra = __builtin_return_address(0);
    __typeof__(&cudaGetDriverEntryPoint_ptsz) next = RUNTIME_NEXT(cudaGetDriverEntryPoint_ptsz);
    if (!next) { if (funcPtr) *funcPtr = NULL; return VT_CUDA_ERROR_SYMBOL_NOT_FOUND; }
    return runtime_done(next(symbol, funcPtr, flags, driverStatus), symbol, funcPtr,
                        lookup_info(0, flags), ra);
}

VT_EXPORT vt_cudaError cudaGetDriverEntryPointByVersion(const char *symbol, void **funcPtr,
                                                        unsigned int cudaVersion,
                                                        unsigned long long flags, int *driverStatus)
{
    void *ra = __builtin_return_address(0);
    __typeof__(&cudaGetDriverEntryPointByVersion) next = RUNTIME_NEXT(cudaGetDriverEntryPointByVersion);
    if (!next) { if (funcPtr) *funcPtr = NULL; return VT_CUDA_ERROR_SYMBOL_NOT_FOUND; }
    return runtime_done(next(symbol, funcPtr, cudaVersion, flags, driverStatus), symbol, funcPtr,
                        lookup_info(cudaVersion, flags), ra);
}

VT_EXPORT vt_cudaError cudaGetDriverEntryPointByVersion_ptsz(const char *symbol, void **funcPtr,
                                                             unsigned int cudaVersion,
                                                             unsigned long long flags, int *driverStatus)
{
    void *ra = __builtin_return_address(0);
    __typeof__(&cudaGetDriverEntryPointByVersion_ptsz) next = RUNTIME_NEXT(cudaGetDriverEntryPointByVersion_ptsz);
    if (!next) { if (funcPtr) *funcPtr = NULL; return VT_CUDA_ERROR_SYMBOL_NOT_FOUND; }
    return runtime_done(next(symbol, funcPtr, cudaVersion, flags, driverStatus), symbol, funcPtr,
                        lookup_info(cudaVersion, flags), ra);
}
