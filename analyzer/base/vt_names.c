// SPDX-License-Identifier: MIT
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
#define VT_KIND_NAME_(name, value, call, space, cls) case VT_KIND_##name: return call;
    VT_KINDS(VT_KIND_NAME_)
#undef VT_KIND_NAME_
    case VT_GROUP_IDLE: return "idle_in_segments";
    case VT_GROUP_POOL: return "idle_in_graph_pools";
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
    case VT_REC_MARK: return "mark";
    case VT_REC_SYMBOL: return "symbol";
    case VT_REC_ANNOTATE: return "annotate";
    case VT_REC_POOL: return "pool";
    case VT_REC_SOURCE: return "source";
    default: {
        static char buf[24];
        return numbered(buf, sizeof buf, "type", type);
    }
    }
}

const char *vt_annot_role_name(unsigned role)
{
    static const char *const names[VT_ROLE_MAX] = { "none", "weights", "activations", "gradients",
                                                    "optimizer_state", "workspace", "temporary" };
    return role < VT_ROLE_MAX ? names[role] : "unknown";
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
