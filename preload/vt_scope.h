// SPDX-License-Identifier: MIT
/* vt_scope.h - scopes (vt_scope.c, fed by vt_nvtx.c): NVTX ranges and module names per thread. */
#ifndef VT_SCOPE_H
#define VT_SCOPE_H

#include <stdint.h>

#include "vt_global.h"

#define VT_SCOPE_MAX 64           /* scope frames per stack */
/* Nonzero while this thread may have a scope (the capture's fast test). */
extern VT_TLS uint32_t vt_scope_live;
void vt_scope_init(void);        /* constructor */
/* This thread's scopes, outermost first, as STRING ids. */
int  vt_scope_collect(uint32_t *sids, int max);
/* Range push/pop and start/end for the NVTX callbacks. domain tags a push stack
 * entry (NULL: NVTX's default domain) so that a domain's pop takes its own range. */
int      vt_scope_push(uint32_t sid, const void *domain);
int      vt_scope_pop(const void *domain);
uint64_t vt_scope_start(uint32_t sid);
void     vt_scope_end(uint64_t range);

#endif /* VT_SCOPE_H */
