// SPDX-License-Identifier: MIT
/* vt_record.h - what the wrappers call after the real call (vt_record.c): one driver call, one event. */
#ifndef VT_RECORD_H
#define VT_RECORD_H

#include <stdint.h>

void vt_rec_alloc(unsigned kind, uint64_t addr, uint64_t size, uint64_t stream, unsigned flags, int device);
void vt_rec_free(unsigned kind, uint64_t addr, uint64_t stream, unsigned flags, int device);
void vt_rec_oom(unsigned kind, uint64_t size, uint64_t stream, unsigned flags, int device);
/* An ANNOTATE event (vt_annotate.c), through the ring after the allocation it names. */
void vt_rec_annotate(unsigned role, uint64_t addr, uint64_t size, uint64_t layer, uint64_t batch, int device);
void vt_rec_vmm(unsigned op, uint64_t addr, uint64_t size, uint64_t aux0, uint64_t aux1, int stack);
/* PyTorch's segments (vt_torch_rec.c), through the ring without a stack. */
/* private_pool: the segment is a private pool's (a CUDA graph's, a MemPool): aux0 = 1. */
void vt_rec_segment(unsigned op, uint64_t addr, uint64_t size, int device, int private_pool);
void vt_rec_pool_trim(uint64_t pool, uint64_t keep, int device);
void vt_rec_lookup(const char *name, int how, uint64_t ptr, uint64_t info, int unwrapped);
/* Device of the current context (cuCtxGetDevice through the real driver), -1 unknown. */
int  vt_rec_device(void);
/* Describes the driver and devices once (DRIVER, DEVICE records). */
void vt_rec_devices(void);

#endif /* VT_RECORD_H */
