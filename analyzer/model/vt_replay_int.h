// SPDX-License-Identifier: MIT
/* vt_replay_int.h - the replay's state, private to model/: the files above it read
 * what it found through vt_replay_result (vt_replay.h). */
#ifndef VT_REPLAY_INT_H
#define VT_REPLAY_INT_H

#include "vt_live.h"
#include "vt_replay.h"

struct vt_replay {
    int trace;                  /* index of this trace in the analysis */
    uint64_t rt_base;           /* start_realtime_ns: event time + this = realtime */
    uint64_t stop_time;         /* records timed after this are skipped (UINT64_MAX: none) */
    uint64_t now, last_time;
    uint64_t pause_t0;          /* when recording was paused; UINT64_MAX: recording */

    vt_tracker *global;         /* all device memory of the analysis, or NULL */
    vt_replay_merged_fn merged; /* or NULL */
    void *merged_ctx;

    vt_device *dev[VT_NDEV];
    vt_tracker host;            /* pinned host memory */

    vt_liveset live;            /* live allocations and mappings (vt_live.h) */
    size_t mappings;
    /* VMM handles' references (create, retains) not yet released and mappings not yet
     * unmapped: handle -> vmm_counts[2 * i], [2 * i + 1]. Only handles have them, so
     * they are kept here rather than in every live entry. */
    vt_idmap vmm_ix;
    uint32_t *vmm_counts;
    size_t nvmm, vmm_cap;       /* handles, pairs allocated */

    vt_group *groups;
    size_t ngroups, groups_cap;
    vt_idmap seg_ix;            /* (address << 3 | space) of a driver allocation -> segs[] */
    vt_seg *segs;
    size_t nsegs, segs_cap;
    /* The segments grown with cudaMalloc, by base address, to find the one a block of a
     * private pool lies in; and the live blocks whose bytes came from a pool's idle group
     * (address -> 1; 0 once freed). Empty while no block of a private pool was made. */
    struct vt_seg_span { uint64_t base, end; uint32_t seg; } *spans;
    size_t nspans, spans_cap;
    vt_idmap pool_blocks;
    vt_idmap group_ix;          /* (stack, kind, device) -> group */
    uint64_t gcache_key[1024];  /* key + 1 -> group: for stacks that allocate more than one kind */
    uint32_t gcache_val[1024];
    uint32_t *stack_group;      /* stack id -> groups + 1 of its last four (kind, device) */
    size_t nstack_group;        /* (0: none): one array read finds the group of most allocations */

    vt_catlog *catlog;          /* device allocations for category inference, or NULL */

    /* Annotations (on_annotate in vt_replay.c). Once a trace announces them, every device
     * allocation keeps its time (an ext live entry): an annotation that comes after the
     * peak must know whether its allocation was live then. */
    int keep_times;
    vt_idmap role_ix;           /* group | role << 32 | layer << 35 -> its annotated group */
    /* Annotations that matched no allocation (buffers inside a preallocated block), per
     * role: the bytes of the batch being read and the most of any batch. */
    uint64_t annot_batch[VT_ROLE_MAX], annot_bytes[VT_ROLE_MAX], annot_max[VT_ROLE_MAX];

    vt_stack_node *nodes;
    size_t nnodes, nodes_cap;
    vt_idarr node_ix;           /* stack node id -> nodes[] */

    vt_idarr string_ix;         /* STRING id -> strings[] */
    const char **strings;
    size_t nstrings, strings_cap;
    vt_idarr pyframe_ix;
    vt_pyframe *pyframes;
    size_t npyframes, pyframes_cap;
    vt_layers *layers;          /* made at the first device group (vt_layer.c) */

    vt_module *modules;
    size_t nmodules, modules_cap;

    vt_oom *ooms;
    size_t nooms, ooms_cap;
    uint64_t block_at;          /* time of the last PyTorch block handed out (on_oom) */

    vt_symrec *syms;            /* SYMBOL records, in file order */
    size_t nsyms, syms_cap;
    vt_mark *marks;             /* MARK records, in file order */
    size_t nmarks, marks_cap;
    vt_srcline *srcs;           /* SOURCE records, in file order */
    size_t nsrcs, srcs_cap;
    vt_idmap src_ix;            /* vt_srcline_key(file, line) -> index in srcs */
    const char *stop_mark;      /* the first mark of this name sets stop_time (--at mark:NAME) */

    vt_nvml nvml[VT_NDEV];
    vt_pool_dev pool[VT_NDEV]; /* by CUDA ordinal + 1 */

    char unwrapped[8][64];      /* names of the first lookups the recorder could not wrap */
    unsigned nunwrapped;
    uint64_t driver_version;
    int has_trailer;
    uint8_t trailer_flags;
    uint64_t trailer_counts[VT_REC_TYPE_MAX];

    vt_replay_stats st;
    vt_arena arena;
    int nomem;                  /* some record was dropped for want of memory */

    vt_replay_result res;       /* what it found (vt_replay_finish fills it) */
};

#endif /* VT_REPLAY_INT_H */
