// SPDX-License-Identifier: MIT
/* vt_format.h - the vramtrace trace format (version 1).
 *
 * Shared by the recorder (writes it) and the analyzer (reads it). The byte-level
 * specification is docs/trace-format.md; keep the two in the same commit.
 *
 * A trace is:  [file header][chunk]...[chunk]
 *   - the file header is plain bytes (see vt_file_header);
 *   - each chunk is a vt_chunk_header followed by one zstd frame whose content is a
 *     sequence of records encoded by vt_codec.c;
 *   - the last chunk of a cleanly ended trace holds a VT_REC_TRAILER.
 * Every chunk is written whole, with one write(), so a process killed between two
 * flushes leaves a file that reads up to its last complete chunk. */
#ifndef VT_FORMAT_H
#define VT_FORMAT_H

#include <stdint.h>
#include <stddef.h>

#define VT_MAGIC          "VRAMTRCE"
#define VT_MAGIC_LEN      8
#define VT_VERSION_MAJOR  1
#define VT_VERSION_MINOR  0
#define VT_CHUNK_MAGIC    0x4b435456u  /* "VTCK" little-endian */
#define VT_CHUNK_MAX_RAW  (16u << 20)  /* a reader may refuse larger chunks as corrupt */

/* ------------------------------------------------------------------------ *
 *  File header (little-endian, packed, at offset 0)
 * ------------------------------------------------------------------------ */
#pragma pack(push, 1)
typedef struct {
    char     magic[VT_MAGIC_LEN];
    uint16_t version_major;
    uint16_t version_minor;
    uint32_t header_size;        /* this struct plus the three blobs that follow */
    uint32_t pid;
    uint32_t ppid;
    uint64_t start_realtime_ns;  /* CLOCK_REALTIME when the recorder started */
    uint64_t start_monotonic_ns; /* CLOCK_MONOTONIC at the same moment; event times count from it */
    uint32_t stack_depth;        /* VRAMTRACE_DEPTH in force */
    int32_t  rank;               /* the first of VT_RANK_VARS set, else of VT_LOCAL_RANK_VARS, else -1 */
    uint32_t flags;              /* VT_HDR_* */
    int16_t  local_rank;         /* the first of VT_LOCAL_RANK_VARS set, when VT_HDR_LOCAL_RANK
                                  * (older writers left 0 here and the flag clear) */
    uint16_t arch;               /* VT_ARCH_*: the recording process's ELF machine; 0 before it was written */
    /* followed by three blobs, each a uint32 length then bytes (no NUL):
     * hostname, executable path, command line (argv joined by NUL bytes) */
} vt_file_header;

typedef struct {
    uint32_t magic;       /* VT_CHUNK_MAGIC */
    uint32_t comp_size;   /* bytes of the zstd frame that follows */
    uint32_t raw_size;    /* bytes of records once decompressed */
    uint32_t nrecords;
    uint64_t base_time_ns;/* the first timed record's delta counts from here */
} vt_chunk_header;
#pragma pack(pop)

/* vt_file_header.arch: the ELF e_machine of the code whose return addresses the stacks
 * hold. 0 in traces written before the field (all x86-64). */
#define VT_ARCH_X86_64   62
#define VT_ARCH_AARCH64  183
#if defined(__x86_64__)
#define VT_ARCH_HOST VT_ARCH_X86_64
#elif defined(__aarch64__)
#define VT_ARCH_HOST VT_ARCH_AARCH64
#else
#define VT_ARCH_HOST 0
#endif
static inline const char *vt_arch_name(unsigned arch)
{
    return arch == VT_ARCH_X86_64 ? "x86_64" : arch == VT_ARCH_AARCH64 ? "aarch64" : "unknown";
}

#define VT_HDR_FREE_STACKS  0x1u   /* free events carry stacks */
#define VT_HDR_FORK_CHILD   0x2u   /* reserved: never set, fork children do not trace */
#define VT_HDR_LOCAL_RANK   0x4u   /* local_rank holds a rank on the node (-1: none was set) */

/* Where a process's rank comes from: the launchers' variables, first set wins, read the
 * same way by the recorder (the header, %r in the file name) and by `vramtrace run`.
 * torchrun and most launchers set RANK; srun SLURM_PROCID; Open MPI's mpirun
 * OMPI_COMM_WORLD_RANK; MPICH and Intel MPI's PMI_RANK. A value that is not a decimal
 * number 0..2^30-1 counts as unset. */
#define VT_RANK_VARS(X) X("RANK") X("SLURM_PROCID") X("OMPI_COMM_WORLD_RANK") X("PMI_RANK")
#define VT_LOCAL_RANK_VARS(X) X("LOCAL_RANK") X("SLURM_LOCALID") X("OMPI_COMM_WORLD_LOCAL_RANK") \
    X("MPI_LOCALRANKID")

/* A rank variable's value as a rank: decimal digits only, 0..2^30-1; -1 otherwise. */
static inline int32_t vt_rank_value(const char *v)
{
    if (!v || !*v) return -1;
    int64_t n = 0;
    for (; *v; v++) {
        if (*v < '0' || *v > '9') return -1;
        n = n * 10 + (*v - '0');
        if (n >= (1 << 30)) return -1;
    }
    return (int32_t)n;
}

/* ------------------------------------------------------------------------ *
 *  Record types
 * ------------------------------------------------------------------------ */
typedef enum {
    VT_REC_ALLOC       = 1,  /* an allocation that succeeded */
    VT_REC_FREE        = 2,  /* a free/release/destroy that succeeded */
    VT_REC_OOM         = 3,  /* an allocation that failed with CUDA_ERROR_OUT_OF_MEMORY */
    VT_REC_VMM         = 4,  /* VMM map/unmap/retain/reserve/address free (op in kind) */
    VT_REC_POOL_TRIM   = 5,  /* cuMemPoolTrimTo */
    VT_REC_STACK       = 6,  /* one node of the stack tree */
    VT_REC_MODULE      = 7,  /* a loaded ELF object */
    VT_REC_DEVICE      = 8,  /* a CUDA device, after cuInit */
    VT_REC_DRIVER      = 9,  /* driver version, after cuInit */
    VT_REC_NVML        = 10, /* a sample of NVML memory figures */
    VT_REC_NVML_DEVICE = 11, /* NVML index -> UUID, to match NVML samples to CUDA ordinals */
    VT_REC_THREAD      = 12, /* a thread's name */
    VT_REC_STRING      = 13, /* an interned string (Python and NVTX frames) */
    VT_REC_LOOKUP      = 14, /* a driver entry point lookup worth noting (e.g. one we could not wrap) */
    VT_REC_LOST        = 15, /* events dropped because the ring stayed full */
    VT_REC_TRAILER     = 16, /* last record of a cleanly ended trace */
    VT_REC_PYFRAME     = 17, /* a Python code location: file, function, line (string ids) */
    VT_REC_PAUSE       = 18, /* the program paused (aux0 = 1) or resumed (0) recording */
    VT_REC_MARK        = 19, /* a moment the program named (vramtrace_mark): str */
    VT_REC_SYMBOL      = 20, /* one frame of a symbolized address (vramtrace symbolize) */
    VT_REC_ANNOTATE    = 21, /* the program named a buffer's role: addr, size, kind = role,
                              * aux0 = layer STRING id, aux1 = batch (docs/trace-format.md) */
    VT_REC_POOL        = 22, /* a sample of a driver memory pool: reserved (aux0), used (aux1) */
    VT_REC_SOURCE      = 23, /* a line of code the program named a layer for (generated code,
                              * vramtrace_source_layer): str = file, line, bytes = layer */
    VT_REC_LAST        = 23, /* the highest type this version writes and reads */
    VT_REC_TYPE_MAX    = 32
} vt_rec_type;

/* Allocation and free kinds (vt_rec.kind of ALLOC, FREE and OOM records): the one list
 * of them. Columns: the enum's name (VT_KIND_<name>), its value on the wire, the driver
 * call it stands for (the name dump and report print), the address space its address
 * lives in (vt_space, below), and what it counts towards in the analyzer (vt_class:
 * DEVICE, MANAGED or HOST). Allocation kinds are 1..VT_KIND_ALLOC_MAX-1, frees 32 up. */
#define VT_KINDS(X) \
    X(MEM_ALLOC,          1, "cuMemAlloc",              DEVICE_PTR, DEVICE)  /* (_v2) */ \
    X(MEM_ALLOC_PITCH,    2, "cuMemAllocPitch",         DEVICE_PTR, DEVICE)  /* (_v2); size = pitch * height */ \
    X(MEM_ALLOC_MANAGED,  3, "cuMemAllocManaged",       DEVICE_PTR, MANAGED) \
    X(MEM_ALLOC_ASYNC,    4, "cuMemAllocAsync",         DEVICE_PTR, DEVICE)  /* (_ptsz) */ \
    X(MEM_ALLOC_POOL,     5, "cuMemAllocFromPoolAsync", DEVICE_PTR, DEVICE)  /* (_ptsz) */ \
    X(VMM_CREATE,         6, "cuMemCreate",             VMM_HANDLE, DEVICE)  /* physical memory; addr = handle */ \
    X(HOST_ALLOC,         7, "cuMemHostAlloc",          HOST_PTR,   HOST) \
    X(HOST_ALLOC_HOST,    8, "cuMemAllocHost",          HOST_PTR,   HOST)    /* (_v2) */ \
    X(ARRAY,              9, "cuArrayCreate",           ARRAY,      DEVICE)  /* (_v2); size estimated from the descriptor */ \
    X(ARRAY3D,           10, "cuArray3DCreate",         ARRAY,      DEVICE)  /* (_v2) */ \
    X(MIPMAPPED_ARRAY,   11, "cuMipmappedArrayCreate",  MIPMAPPED,  DEVICE) \
    X(TORCH_BLOCK,       12, "torch_block",             TORCH_BLOCK, DEVICE) /* a block of PyTorch's caching allocator inside a segment (its trace tracker): counted in the segment */ \
    X(MEM_FREE,          32, "cuMemFree",               DEVICE_PTR, DEVICE)  /* (_v2) */ \
    X(MEM_FREE_ASYNC,    33, "cuMemFreeAsync",          DEVICE_PTR, DEVICE)  /* (_ptsz) */ \
    X(VMM_RELEASE,       34, "cuMemRelease",            VMM_HANDLE, DEVICE)  /* addr = handle */ \
    X(HOST_FREE,         35, "cuMemFreeHost",           HOST_PTR,   HOST) \
    X(ARRAY_DESTROY,     36, "cuArrayDestroy",          ARRAY,      DEVICE) \
    X(MIPMAPPED_DESTROY, 37, "cuMipmappedArrayDestroy", MIPMAPPED,  DEVICE) \
    X(TORCH_BLOCK_FREE,  38, "torch_block_free",        TORCH_BLOCK, DEVICE) /* the caching allocator made the block free again */

#define VT_KIND_ENUM_(name, value, call, space, cls) VT_KIND_##name = value,
typedef enum {
    VT_KIND_NONE = 0,
    VT_KINDS(VT_KIND_ENUM_)
    VT_KIND_ALLOC_MAX = 13,
    VT_KIND_FREE_MAX = 39,

    /* Never in a trace: the analyzer's group of a device's idle bytes inside PyTorch's
     * segments. With the allocator trace tracker, a segment's bytes move from the driver
     * allocation that holds them to this group, and each block moves its bytes from here
     * to its own group while it lives: the device's total stays the segments' (reserved
     * memory), and its groups say what the blocks in them are. */
    VT_GROUP_IDLE = 255,
    /* Never in a trace either: the idle bytes of the segments of private pools (a CUDA
     * graph's, a MemPool). A segment is a pool's once a block flagged VT_RF_PRIVATE_POOL
     * is made in it (PyTorch's pools never share a segment); its idle bytes move here
     * from VT_GROUP_IDLE, and that pool's blocks take their bytes from here. */
    VT_GROUP_POOL = 254
} vt_kind;
#undef VT_KIND_ENUM_

/* The analyzer's groups of idle bytes in PyTorch's segments: allocated by no one, no
 * category's. */
static inline int vt_kind_is_idle(unsigned kind)
{
    return kind == VT_GROUP_IDLE || kind == VT_GROUP_POOL;
}

/* VMM operations (vt_rec.kind of VT_REC_VMM). */
typedef enum {
    VT_VMM_MAP          = 1,  /* addr = va, size, aux0 = offset, aux1 = handle */
    VT_VMM_UNMAP        = 2,  /* addr = va, size */
    VT_VMM_RETAIN       = 3,  /* addr = va passed in, aux1 = handle returned (+1 reference) */
    VT_VMM_RESERVE      = 4,  /* addr = va returned, size, aux0 = alignment, aux1 = hint */
    VT_VMM_ADDRESS_FREE = 5,  /* addr = va, size */
    /* PyTorch's caching allocator says which device memory is its segments (its allocator
     * trace tracker); the memory itself is in the driver's records. addr, size; device set. */
    VT_VMM_TORCH_SEGMENT   = 6,  /* a segment grown with cudaMalloc (addr = its base) */
    VT_VMM_TORCH_UNSEGMENT = 7,  /* that segment given back */
    VT_VMM_TORCH_MAP       = 8,  /* expandable segments: pages mapped at addr */
    VT_VMM_TORCH_UNMAP     = 9   /* expandable segments: pages unmapped */
} vt_vmm_op;

/* aux0 of TORCH_SEGMENT and TORCH_MAP: the memory is a private pool's (a CUDA graph's, a
 * MemPool). Recorders before it wrote 0: their pools are known from their blocks. */
#define VT_SEG_PRIVATE_POOL 0x1u

/* Address spaces: an allocation and its free match on (space, addr). */
typedef enum {
    VT_SPACE_NONE = 0,
    VT_SPACE_DEVICE_PTR = 1,   /* CUdeviceptr: device, managed, async, pool */
    VT_SPACE_VMM_HANDLE = 2,   /* CUmemGenericAllocationHandle */
    VT_SPACE_HOST_PTR = 3,     /* pinned host pointers */
    VT_SPACE_ARRAY = 4,        /* CUarray */
    VT_SPACE_MIPMAPPED = 5,    /* CUmipmappedArray */
    VT_SPACE_TORCH_BLOCK = 6   /* blocks of PyTorch's caching allocator */
} vt_space;

static inline vt_space vt_kind_space(unsigned kind)
{
#define VT_KIND_SPACE_(name, value, call, space, cls) case VT_KIND_##name: return VT_SPACE_##space;
    switch (kind) {
    VT_KINDS(VT_KIND_SPACE_)
    default: return VT_SPACE_NONE;
    }
#undef VT_KIND_SPACE_
}

/* Roles of VT_REC_ANNOTATE (its kind): what a program says a buffer is for. */
typedef enum {
    VT_ROLE_NONE = 0,             /* takes a role back: the allocation is judged as usual */
    VT_ROLE_WEIGHTS = 1,
    VT_ROLE_ACTIVATIONS = 2,
    VT_ROLE_GRADIENTS = 3,
    VT_ROLE_OPTIMIZER_STATE = 4,
    VT_ROLE_WORKSPACE = 5,
    VT_ROLE_TEMPORARY = 6,
    VT_ROLE_MAX = 7
} vt_role;

/* Frame kinds of VT_REC_STACK nodes. */
typedef enum {
    VT_FRAME_NATIVE = 0,  /* value = return address in the process */
    VT_FRAME_PYTHON = 1,  /* value = PYFRAME id */
    VT_FRAME_SCOPE  = 2   /* value = STRING id of an NVTX range or module scope */
} vt_frame_kind;

/* How a driver entry point was looked up (aux0 of VT_REC_LOOKUP). */
typedef enum {
    VT_LOOKUP_DLSYM = 1,
    VT_LOOKUP_GETPROC = 2,       /* cuGetProcAddress (v1) */
    VT_LOOKUP_GETPROC_V2 = 3,    /* cuGetProcAddress_v2 */
    VT_LOOKUP_RUNTIME = 4        /* cudaGetDriverEntryPoint(ByVersion) */
} vt_lookup_how;

/* vt_rec.flags */
#define VT_RF_PTDS      0x1u  /* the per-thread-default-stream (_ptsz) entry point was called */
#define VT_RF_UNWRAPPED 0x2u  /* LOOKUP: the returned pointer matched no known variant */
#define VT_RF_PRIVATE_POOL 0x4u /* TORCH_BLOCK: in a private pool (a CUDA graph's, a MemPool) */

/* ------------------------------------------------------------------------ *
 *  One decoded record. Not a wire layout: vt_codec.c turns it into bytes.
 * ------------------------------------------------------------------------ */
/* Its fixed-size fields, one X(type, name) each: the struct below is made from this
 * list, and the codec's test (tests/format/codec_fields.c) walks it, so that no field
 * can be left out of a decoder unnoticed. */
#define VT_REC_FIELDS(X) \
    X(uint8_t,  type)      /* vt_rec_type */ \
    X(uint8_t,  kind)      /* vt_kind, vt_vmm_op or vt_frame_kind */ \
    X(int8_t,   device)    /* CUDA ordinal (NVML index for NVML records); -1 unknown */ \
    X(uint8_t,  flags)     /* VT_RF_* */ \
    X(uint32_t, tid)       /* OS thread id */ \
    X(uint32_t, stack_id)  /* leaf node of the stack tree; 0 = none */ \
    X(uint32_t, id)        /* STACK/STRING/PYFRAME id; DEVICE multiprocessors */ \
    X(uint32_t, parent)    /* STACK: parent node id (0 = root) */ \
    X(uint32_t, line)      /* PYFRAME line; DEVICE threads per multiprocessor */ \
    X(uint64_t, time_ns)   /* since vt_file_header.start_monotonic_ns */ \
    X(uint64_t, addr)      /* pointer, handle, va, pool, ip (STACK value), module base */ \
    X(uint64_t, size)      /* bytes */ \
    X(uint64_t, stream)    /* CUstream, 0 = default */ \
    X(uint64_t, aux0)      /* see the type */ \
    X(uint64_t, aux1)

#define VT_REC_FIELD_(type, name) type name;
typedef struct {
    VT_REC_FIELDS(VT_REC_FIELD_)
    const uint8_t *bytes;  /* MODULE build-id, DEVICE uuid */
    uint32_t bytes_len;
    const char *str;       /* MODULE path, DEVICE name, THREAD name, STRING, LOOKUP name */
    uint32_t str_len;
    const uint64_t *counts; /* TRAILER: per-type counts, VT_REC_TYPE_MAX of them */
} vt_rec;
#undef VT_REC_FIELD_

#endif /* VT_FORMAT_H */
