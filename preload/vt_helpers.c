// SPDX-License-Identifier: MIT
/* vt_helpers.c - the driver helpers the recorder calls (cuCtxGetDevice...): the first
 * complete set offered. */
#include "vt_helpers.h"

#include <stdatomic.h>
#include <stddef.h>

/* Global: set once by whichever thread first describes a driver object, read by every
 * event that asks for its device. */
static _Atomic(const vt_helpers *) vt_helpers_p;

const vt_helpers *vt_wrap_helpers(void)
{
    return atomic_load_explicit(&vt_helpers_p, memory_order_acquire);
}

void vt_helpers_offer(const vt_helpers *h)
{
    const vt_helpers *none = NULL;
    atomic_compare_exchange_strong(&vt_helpers_p, &none, h);
}
