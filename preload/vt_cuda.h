// SPDX-License-Identifier: MIT
/* vt_cuda.h - cuda.h with every versioned name visible.
 *
 * cuda.h renames cuMemAlloc to cuMemAlloc_v2 (and friends) with macros and hides the
 * legacy 32-bit v1 prototypes. __CUDA_API_VERSION_INTERNAL is how the driver itself
 * sees the header: no renaming, and a prototype for every exported variant (v1, _v2,
 * _ptsz). The wrappers are defined against those prototypes, so the compiler checks
 * each wrapper's ABI against the header it claims to be. (CUDA_FORCE_API_VERSION, the
 * old switch for this, is an #error since CUDA 12.) */
#ifndef VT_CUDA_H
#define VT_CUDA_H

#ifndef __CUDA_API_VERSION_INTERNAL
#define __CUDA_API_VERSION_INTERNAL 1
#endif
#include <cuda.h>

/* libcudart's entry points are declared here rather than by including
 * cuda_runtime_api.h: the recorder must not depend on the runtime's headers, and the
 * two functions only pass pointers and integers. */
typedef int vt_cudaError;
vt_cudaError cudaGetDriverEntryPoint(const char *symbol, void **funcPtr,
                                     unsigned long long flags, int *driverStatus);
vt_cudaError cudaGetDriverEntryPoint_ptsz(const char *symbol, void **funcPtr,
                                          unsigned long long flags, int *driverStatus);
vt_cudaError cudaGetDriverEntryPointByVersion(const char *symbol, void **funcPtr,
                                              unsigned int cudaVersion,
                                              unsigned long long flags, int *driverStatus);
vt_cudaError cudaGetDriverEntryPointByVersion_ptsz(const char *symbol, void **funcPtr,
                                                   unsigned int cudaVersion,
                                                   unsigned long long flags, int *driverStatus);
#define VT_CUDA_ERROR_SYMBOL_NOT_FOUND 500 /* cudaErrorSymbolNotFound */

#endif /* VT_CUDA_H */
