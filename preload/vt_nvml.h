// SPDX-License-Identifier: MIT
/* vt_nvml.h - NVML samples of device memory (vt_nvml.c), taken by the writer when due. */
#ifndef VT_NVML_H
#define VT_NVML_H

#include <stdint.h>

#include "vt_format.h"

/* Writer: samples when due, and emits the samples (and, once, the devices). */
void vt_nvml_sample(uint64_t now, void (*emit)(const vt_rec *r));
int  vt_nvml_due_in_ms(uint64_t now);

#endif /* VT_NVML_H */
