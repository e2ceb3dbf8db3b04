// SPDX-License-Identifier: MIT
/* vt_srcmap.c - vramtrace_source_layer(file, line, layer): the program names the layer of a
 * line of its code, written as a SOURCE record. The Python hook calls it (through ctypes)
 * for the lines of torch.compile's generated modules that allocate a buffer, with the
 * model's module that buffer's operations came from, which the generated code does not
 * say (docs/python.md, "torch.compile"). A line's allocations then belong to that layer,
 * as an eager module's do to the module the hook names by its scope. */
#include "vt_global.h"
#include "vt_side.h"

#include <string.h>

/* Paths and module names longer than this are cut. */
#define VT_SOURCE_MAX 1024

/* Returns 0, or -1 when this process is not being traced (or file or layer is NULL). */
VT_EXPORT int vramtrace_source_layer(const char *file, unsigned line, const char *layer)
{
    if (!file || !layer || atomic_load_explicit(&vt_g.state, memory_order_acquire) < VT_ST_IDLE) return -1;
    vt_rec r = { .type = VT_REC_SOURCE, .device = -1, .line = line, .str = file,
                 .str_len = (uint32_t)strnlen(file, VT_SOURCE_MAX), .bytes = (const uint8_t *)layer,
                 .bytes_len = (uint32_t)strnlen(layer, VT_SOURCE_MAX) };
    vt_side_push(&r);
    return 0;
}
