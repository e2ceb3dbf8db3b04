// SPDX-License-Identifier: MIT
/* vt_wrap_init.c - cuInit: after the first successful one, describe the driver and the
 * devices (DRIVER, DEVICE records), so that a trace says what it ran on. The records
 * wait in the side buffer: cuInit alone does not create a trace file (launchers and
 * torch.cuda.is_available() call it); the first memory event does. */
#include "vt_global.h"
#include "vt_record.h"
#include "vt_wrap.h"

VT_EXPORT CUresult cuInit(unsigned int Flags)
{
    VT_WRAP_BEGIN(cuInit, Flags);
    if (r == CUDA_SUCCESS) vt_rec_devices();
    VT_WRAP_END();
}
