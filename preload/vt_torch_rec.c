/* SPDX-License-Identifier: MIT */
/* vt_torch_rec.c - the recorder's end of PyTorch's allocator trace tracker: one event of
 * the caching allocator (a block handed out or made free, a segment grown or given back)
 * becomes one record.
 *
 * libvramtrace_torch.so (vt_torch_tracker.cc) attaches the tracker and calls this for
 * each event, synchronously, on the allocating thread, with the allocator's lock held:
 * so nothing here may call into PyTorch. Blocks get the thread's stack (native, Python
 * frames, scopes) as a driver allocation does; segments none, since the driver's record
 * of the same memory has it. docs/trace-format.md, "PyTorch blocks". */
#include "vt_format.h"
#include "vt_global.h"
#include "vt_record.h"

/* TraceEntry::Action of c10/core/CachingDeviceAllocator.h (unchanged since 2.1). */
enum { TE_ALLOC, TE_FREE_REQUESTED, TE_FREE_COMPLETED, TE_SEGMENT_ALLOC, TE_SEGMENT_FREE,
       TE_SEGMENT_MAP, TE_SEGMENT_UNMAP, TE_SNAPSHOT, TE_OOM };

/* private_pool: the block's pool id is not (0, 0): a CUDA graph's pool or a MemPool. */
VT_EXPORT void vramtrace_torch_event(int action, int device, uint64_t addr, uint64_t size,
                                     uint64_t stream, int private_pool)
{
    if (!vt_enter()) return;  /* inside the recorder already (a wrapper's own call) */
    if (device < -1 || device > 127) device = -1;
    switch (action) {
    case TE_ALLOC:
        vt_rec_alloc(VT_KIND_TORCH_BLOCK, addr, size, stream, private_pool ? VT_RF_PRIVATE_POOL : 0, device);
        break;
    case TE_FREE_COMPLETED:  /* a free requested while another stream uses the block waits */
        vt_rec_free(VT_KIND_TORCH_BLOCK_FREE, addr, stream, 0, device);
        break;
    /* a segment's pool is the one it is grown (mapped) for: PyTorch's pools share none */
    case TE_SEGMENT_ALLOC: vt_rec_segment(VT_VMM_TORCH_SEGMENT, addr, size, device, private_pool); break;
    case TE_SEGMENT_FREE: vt_rec_segment(VT_VMM_TORCH_UNSEGMENT, addr, size, device, 0); break;
    case TE_SEGMENT_MAP: vt_rec_segment(VT_VMM_TORCH_MAP, addr, size, device, private_pool); break;
    case TE_SEGMENT_UNMAP: vt_rec_segment(VT_VMM_TORCH_UNMAP, addr, size, device, 0); break;
    /* The allocator gave up: under a cap of its own (set_per_process_memory_fraction) no
     * driver call failed, so this is the only record of it. addr holds the device's free
     * bytes; vt_rec_oom asks the driver itself. */
    case TE_OOM: vt_rec_oom(VT_KIND_TORCH_BLOCK, size, stream, 0, device); break;
    default: break;  /* FREE_REQUESTED, SNAPSHOT: the other records say enough */
    }
    vt_leave();
}
