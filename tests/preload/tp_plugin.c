// SPDX-License-Identifier: MIT
/* tp_plugin.c - a library tp_dl loads after tracing started: its allocations must carry
 * stacks that resolve into it, so the recorder has to note modules loaded late. The tp_*
 * functions come from the executable (built with -rdynamic). */
#define _GNU_SOURCE
#include "tp.h"

__attribute__((visibility("default"))) TP_NOINLINE void tp_plugin_run(const tp_api *a)
{
    void *self = (void *)tp_plugin_run;
    CUdeviceptr d = 0;
    tp_calling(a->mem_alloc.id);
    TP_CK(a->mem_alloc.fn(&d, 31337), CUDA_SUCCESS);
    tp_alloc(VT_KIND_MEM_ALLOC, d, 31337, 0, a->mem_alloc.flags, self);
    tp_calling(a->mem_free.id);
    TP_CK(a->mem_free.fn(d), CUDA_SUCCESS);
    tp_free(VT_KIND_MEM_FREE, d, 0, a->mem_free.flags, self);
}
