// SPDX-License-Identifier: MIT
/* vt_helpers.h - driver functions the recorder calls itself (never wrapped), found in the
 * first driver object the wrappers see (vt_wrap.c) and kept here (vt_helpers.c). */
#ifndef VT_HELPERS_H
#define VT_HELPERS_H

#include "vt_cuda.h"


typedef struct {
    __typeof__(&cuCtxGetDevice)       ctx_get_device;
    __typeof__(&cuMemGetInfo_v2)      mem_get_info;
    __typeof__(&cuDriverGetVersion)   driver_get_version;
    __typeof__(&cuDeviceGetCount)     device_get_count;
    __typeof__(&cuDeviceGet)          device_get;
    __typeof__(&cuDeviceGetName)      device_get_name;
    __typeof__(&cuDeviceTotalMem_v2)  device_total_mem;
    __typeof__(&cuDeviceGetUuid_v2)   device_get_uuid;
    __typeof__(&cuDeviceGetAttribute) device_get_attribute;
    __typeof__(&cuDeviceGetMemPool)   device_get_mem_pool;   /* vt_pool.c */
    __typeof__(&cuMemPoolGetAttribute) pool_get_attribute;
} vt_helpers;

/* The helpers of the first driver object seen, or NULL. */
const vt_helpers *vt_wrap_helpers(void);
/* Offers a driver object's complete helpers; the first offer is kept. */
void vt_helpers_offer(const vt_helpers *h);

#endif /* VT_HELPERS_H */
