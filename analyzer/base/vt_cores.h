// SPDX-License-Identifier: MIT
/* vt_cores.h - how many cores this process may run on, for sizing its threads. */
#ifndef VT_CORES_H
#define VT_CORES_H

/* The CPUs of this process's affinity mask, else those online; at least 1. */
int vt_cores(void);

#endif /* VT_CORES_H */
