/* SPDX-License-Identifier: MIT */
/* vt_gap.h - what the driver says a process used beyond what its allocations explain:
 * NVML's figure for the process minus the traced live bytes, and the part of it that
 * the driver's memory pools hold freed (reserved minus used: pool slack). */
#ifndef VT_GAP_H
#define VT_GAP_H

#include <stdint.h>

#include "vt_replay.h"

typedef struct {
    int      known;         /* NVML knew the process's own figure */
    int      by_index;      /* the NVML index was matched to the ordinal by number */
    uint64_t figure;        /* NVML's figure for the process at its maximum */
    uint64_t time;          /* when (ns since the trace's start) */
    uint64_t traced;        /* traced live device bytes then */
    uint64_t unexplained;   /* figure - traced - pool_slack (0 when below) */
    int      has_pool;      /* pool samples (VT_REC_POOL) were recorded for the device */
    uint64_t pool_slack;    /* pool reserved - used at the latest sample at or before `time` */
    uint64_t pool_reserved; /* the pools' reserved bytes then */
} vt_gap;

/* The NVML index that is CUDA ordinal `device` of this trace: by UUID when both are
 * known, else by equal index (*by_index set). NULL when none. */
const vt_nvml *vt_gap_nvml(const vt_replay *rp, int device, int *by_index);

/* The gap of one device; g->known = 0 when NVML did not know the process's figure. */
void vt_gap_of(const vt_replay *rp, int device, vt_gap *g);

#endif /* VT_GAP_H */
