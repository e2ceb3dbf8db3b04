/* vt_names.c - stable names of record types, kinds and VMM operations. */
#include "vt_names.h"
#include "vt_format.h"

#include <stdio.h>

/* Unknown values get a name made from their number. One static buffer per function is
 * enough: names are printed right away, never kept. */
static const char *numbered(char *buf, size_t n, const char *prefix, unsigned v)
{
    snprintf(buf, n, "%s%u", prefix, v);
    return buf;
}

const char *vt_kind_name(unsigned kind)
{
    switch (kind) {
    case VT_KIND_NONE: return "none";
    case VT_KIND_MEM_ALLOC: return "cuMemAlloc";
    case VT_KIND_MEM_ALLOC_PITCH: return "cuMemAllocPitch";
    case VT_KIND_MEM_ALLOC_MANAGED: return "cuMemAllocManaged";
    case VT_KIND_MEM_ALLOC_ASYNC: return "cuMemAllocAsync";
    case VT_KIND_MEM_ALLOC_POOL: return "cuMemAllocFromPoolAsync";
    case VT_KIND_VMM_CREATE: return "cuMemCreate";
    case VT_KIND_HOST_ALLOC: return "cuMemHostAlloc";
    case VT_KIND_HOST_ALLOC_HOST: return "cuMemAllocHost";
    case VT_KIND_ARRAY: return "cuArrayCreate";
    case VT_KIND_ARRAY3D: return "cuArray3DCreate";
    case VT_KIND_MIPMAPPED_ARRAY: return "cuMipmappedArrayCreate";
    case VT_KIND_TORCH_BLOCK: return "torch_block";
    case VT_KIND_TORCH_BLOCK_FREE: return "torch_block_free";
    case VT_GROUP_IDLE: return "idle_in_segments";
    case VT_KIND_MEM_FREE: return "cuMemFree";
    case VT_KIND_MEM_FREE_ASYNC: return "cuMemFreeAsync";
    case VT_KIND_VMM_RELEASE: return "cuMemRelease";
    case VT_KIND_HOST_FREE: return "cuMemFreeHost";
    case VT_KIND_ARRAY_DESTROY: return "cuArrayDestroy";
    case VT_KIND_MIPMAPPED_DESTROY: return "cuMipmappedArrayDestroy";
    default: {
        static char buf[24];
        return numbered(buf, sizeof buf, "kind", kind);
    }
    }
}

const char *vt_vmm_op_name(unsigned op)
{
    switch (op) {
    case VT_VMM_MAP: return "map";
    case VT_VMM_UNMAP: return "unmap";
    case VT_VMM_RETAIN: return "retain";
    case VT_VMM_RESERVE: return "reserve";
    case VT_VMM_ADDRESS_FREE: return "address_free";
    case VT_VMM_TORCH_SEGMENT: return "torch_segment";
    case VT_VMM_TORCH_UNSEGMENT: return "torch_segment_free";
    case VT_VMM_TORCH_MAP: return "torch_map";
    case VT_VMM_TORCH_UNMAP: return "torch_unmap";
    default: {
        static char buf[24];
        return numbered(buf, sizeof buf, "op", op);
    }
    }
}

const char *vt_rec_type_name(unsigned type)
{
    switch (type) {
    case VT_REC_ALLOC: return "alloc";
    case VT_REC_FREE: return "free";
    case VT_REC_OOM: return "oom";
    case VT_REC_VMM: return "vmm";
    case VT_REC_POOL_TRIM: return "pool_trim";
    case VT_REC_STACK: return "stack";
    case VT_REC_MODULE: return "module";
    case VT_REC_DEVICE: return "device";
    case VT_REC_DRIVER: return "driver";
    case VT_REC_NVML: return "nvml";
    case VT_REC_NVML_DEVICE: return "nvml_device";
    case VT_REC_THREAD: return "thread";
    case VT_REC_STRING: return "string";
    case VT_REC_LOOKUP: return "lookup";
    case VT_REC_LOST: return "lost";
    case VT_REC_TRAILER: return "trailer";
    case VT_REC_PYFRAME: return "pyframe";
    case VT_REC_PAUSE: return "pause";
    default: {
        static char buf[24];
        return numbered(buf, sizeof buf, "type", type);
    }
    }
}

const char *vt_class_name(unsigned cls)
{
    switch (cls) {
    case 0: return "device";
    case 1: return "managed";
    case 2: return "host";
    default: return "other";
    }
}
