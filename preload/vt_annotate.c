/* SPDX-License-Identifier: MIT */
/* vt_annotate.c - annotations: a program (the JAX hook, docs/python.md) says what role a
 * device buffer plays (weights, optimizer state, gradients...) and which layer it belongs
 * to; each becomes an ANNOTATE record that the analyzer joins with the allocation live at
 * that address at that moment (docs/trace-format.md).
 *
 * Called through ctypes, found with dlsym, so a program can call it when preloaded and
 * do nothing otherwise. One call writes a batch: the buffers of one pytree of one jitted
 * call, all stamped with one time and one batch number (the analyzer tells the latest
 * call's pytrees apart by it when the buffers live inside a preallocated block). */
#include "vt_format.h"
#include "vt_global.h"
#include "vt_record.h"
#include "vt_str.h"

#include <string.h>

/* Batches written so far, process-wide: numbers them. */
static _Atomic uint64_t vt_annot_batches;

static inline int tracing(void)
{
    return atomic_load_explicit(&vt_g.state, memory_order_acquire) >= VT_ST_IDLE &&
           !atomic_load_explicit(&vt_g.paused, memory_order_relaxed);
}

/* The STRING id of name (written once), for the layer of vramtrace_annotate; 0 when
 * the recorder is off or the name is empty. */
VT_EXPORT uint32_t vramtrace_intern(const char *name)
{
    if (!tracing() || !name || !*name) return 0;
    return vt_str_intern(name, strlen(name));
}

/* Writes n annotations: buffer i at addr[i], size[i] bytes, plays role[i] (vt_role) in
 * layer[i] (a vramtrace_intern id, 0 = none), on CUDA device `device` (-1 unknown).
 * n == 0 writes the announcement (an ANNOTATE of address 0): annotations will follow, so
 * the analyzer keeps every allocation's time from there on; the hook writes it before
 * the framework allocates anything. Returns the batch number (from 1), 0 when nothing
 * was written (recorder off or paused, bad arguments). */
VT_EXPORT uint64_t vramtrace_annotate(int n, const uint64_t *addr, const uint64_t *size, const uint8_t *role,
                                      const uint32_t *layer, int device)
{
    if (n < 0 || (n && (!addr || !size || !role)) || !tracing()) return 0;
    uint64_t batch = atomic_fetch_add_explicit(&vt_annot_batches, 1, memory_order_relaxed) + 1;
    int dev = device >= -1 && device < 127 ? device : -1;
    if (!n) vt_rec_annotate(VT_ROLE_NONE, 0, 0, 0, batch, dev);
    for (int i = 0; i < n; i++)
        if (addr[i] && role[i] < VT_ROLE_MAX) vt_rec_annotate(role[i], addr[i], size[i], layer ? layer[i] : 0, batch, dev);
    return batch;
}
