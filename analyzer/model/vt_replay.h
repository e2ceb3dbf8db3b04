// SPDX-License-Identifier: MIT
/* vt_replay.h - the live-set model: replays one trace's records and keeps what is
 * live, the peak of each running total, and what every group (stack, kind, device)
 * held at that peak.
 *
 * The peak is exact and found in one pass with O(1) work per event. Each running total
 * (a "tracker": one device's memory, all devices together, ...) counts the new maxima it
 * sets in `epoch`. Each group keeps its live bytes and, per tracker it feeds, the value
 * it had at that tracker's latest peak plus the epoch that value belongs to. A group's
 * value at the latest peak is its value just before its first change after that peak,
 * so the group copies live -> at_peak lazily, on that first change; groups untouched
 * since the peak still hold it in `live` (vt_replay_finish settles them).
 *
 * Memory is O(live allocations + distinct stacks + groups), never O(events). */
#ifndef VT_REPLAY_H
#define VT_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "vt_cat_life.h"
#include "vt_codec.h"
#include "vt_format.h"
#include "vt_table.h"

#define VT_NDEV        129  /* device -1..127 -> slot 0..128 */
#define VT_MAX_TRACK   3
#define VT_OOM_SNAPS   32   /* OOM events whose live groups are kept */
#define VT_NVML_SNAP   32   /* CUDA ordinals whose live bytes an NVML peak remembers */

/* Layers (vt_layer.h): a counter per (layer, device), the replay's layer table. */
typedef struct vt_layer_ctr vt_layer_ctr;
typedef struct vt_layers vt_layers;

/* What a kind counts towards. Device memory is what the device peak is made of. */
typedef enum {
    VT_CLASS_DEVICE = 0,   /* cuMemAlloc, Pitch, Async, Pool, VMM physical, arrays */
    VT_CLASS_MANAGED = 1,  /* cuMemAllocManaged: may live on the host or the device */
    VT_CLASS_HOST = 2      /* pinned host memory */
} vt_class;

/* The class column of vt_format.h's VT_KINDS; VT_KIND_NONE and unknown kinds count as
 * device memory. */
static inline vt_class vt_kind_class(unsigned kind)
{
#define VT_KIND_CLASS_(name, value, call, space, cls) case VT_KIND_##name: return VT_CLASS_##cls;
    switch (kind) {
    VT_KINDS(VT_KIND_CLASS_)
    default: return VT_CLASS_DEVICE;
    }
#undef VT_KIND_CLASS_
}

/* One running total and its peak. */
typedef struct {
    uint64_t live;          /* bytes live now */
    uint64_t count;         /* allocations live now */
    uint64_t peak;
    uint64_t peak_count;
    uint64_t peak_time;     /* ns since the start of the trace that set the peak */
    uint64_t peak_rt;       /* the same moment on the realtime clock (merging traces) */
    uint64_t epoch;         /* new maxima so far */
    int      trace;         /* index of the trace that set the peak */
    uint64_t blocks;        /* of live: bytes in PyTorch blocks (allocator trace tracker) */
    uint64_t blocks_at_peak;/* the same at the moment the peak's groups are taken */
    uint64_t pool_blocks;   /* of blocks: those in private pools' segments (VT_GROUP_POOL) */
    uint64_t pool_blocks_at_peak;
} vt_tracker;

/* Allocations that share a stack, a kind and a device. What the common events touch
 * (vt_replay.c's fast_alloc and fast_free) fills the first cache line, the array being
 * 64-byte aligned and a group 192 bytes: with thousands of call sites the groups are hit
 * at random, and one line each stays in cache where two did not. So the lifetimes are
 * kept there as two sums of times (a group's summed lifetimes, once all its allocations
 * are freed, are their difference: vt_replay_finish), and the fast paths find their two
 * trackers from the device (`fast`) rather than through tk[], which group_touch reads. */
typedef struct {
    uint32_t stack_id;
    uint8_t  kind;
    int8_t   device;
    uint8_t  cls;           /* vt_class */
    uint8_t  ntk;           /* trackers fed */
    uint32_t live_count;
    uint8_t  fast;          /* 1: device memory, no layer, tk[] = { its device's, rp->global }
                             * and no other (vt_replay_group_feed clears it) */
    uint8_t  role;          /* vt_role: a group of annotated allocations (on_annotate), which
                             * ordinary allocations never join; VT_ROLE_MAX: the allocator's
                             * rounding of annotated buffers; 0: an ordinary group */
    uint8_t  pad[2];
    uint64_t live;
    uint64_t nallocs, total_bytes;
    uint64_t gen;           /* the peak generation (vt_replay.c) its stamps were last checked at */
    uint64_t alloc_times;   /* sum of its allocations' times (mod 2^64) */
    uint64_t free_times;    /* sum of its frees' times (mod 2^64) */
    /* the second line on: what group_touch, the general paths and the analysis read */
    vt_tracker *tk[VT_MAX_TRACK];
    uint64_t stamp[VT_MAX_TRACK];
    vt_layer_ctr *layer;    /* device memory: its layer's counter (vt_layer.h), or NULL */
    vt_life  life;          /* lifetimes, for category inference (vt_cat_life.h): set by
                             * vt_replay_finish but first_alloc, which the first allocation sets */
    /* not touched by the replay's events */
    uint32_t site;          /* vt_sites index, set after the replay */
    uint16_t cat_rule;      /* rule section that decided (vt_rules), 0 = none */
    uint8_t  cat, cat_how;  /* vt_cat, vt_cat_how: set after the replay (vt_cat.h) */
    uint64_t at_peak[VT_MAX_TRACK];
    uint32_t at_peak_count[VT_MAX_TRACK];
    uint8_t  cat_flags;     /* VT_CATF_* */
    uint8_t  split;         /* 1: a part of the group of the same (stack, kind, device)
                             * made after the replay (vt_replay_add_group): no event
                             * feeds it, and a second replay matches the whole group */
    uint8_t  spare[2];      /* to 192 bytes: 3 cache lines */
} vt_group;
_Static_assert(sizeof(vt_group) == 192, "vt_group: three cache lines");
_Static_assert(offsetof(vt_group, tk) == 64, "vt_group: the hot fields fill one line");

/* What a device is, from DEVICE records, and its trackers. */
typedef struct {
    int      seen;          /* some event or record named it */
    int      has_info;      /* a DEVICE record described it */
    char     name[128];
    uint8_t  uuid[16];
    uint64_t total;
    unsigned cc_major, cc_minor;
    unsigned sms, threads_per_sm;  /* multiprocessors, and the threads each holds; 0: unknown */
    vt_tracker dev;         /* device memory */
    vt_tracker managed;
} vt_device;

static inline int vt_device_has_uuid(const vt_device *d)
{
    for (int i = 0; i < 16; i++)
        if (d->uuid[i]) return 1;
    return 0;
}

/* One out-of-memory event. */
typedef struct {
    uint64_t time;
    uint8_t  kind;
    int8_t   device;
    uint32_t stack_id;
    uint32_t tid;
    uint32_t site;          /* of the failed request, set after the replay */
    uint64_t size;          /* bytes asked */
    uint64_t free_bytes;    /* cuMemGetInfo at failure, 0 = unknown */
    uint64_t total_bytes;
    uint64_t live;          /* traced device bytes live then */
    uint32_t nsnap;         /* live groups then (only for the first VT_OOM_SNAPS events) */
    uint32_t *snap_group;
    uint64_t *snap_bytes;
} vt_oom;

/* One frame of a symbolized address (a SYMBOL record, docs/trace-format.md). */
typedef struct {
    uint64_t ip;
    uint32_t index, count, line;
    const char *function, *file;  /* in the replay's arena; NULL when empty */
} vt_symrec;

/* A moment the program named (vramtrace.mark("epoch 2"), a MARK record). */
typedef struct {
    uint64_t time;              /* ns since the trace's start */
    const char *name;           /* in the replay's arena */
} vt_mark;

/* A line of code the program named a layer for (a SOURCE record: torch.compile's
 * generated code, whose buffers come from the model's modules). */
typedef struct {
    const char *file, *layer;   /* in the replay's arena */
    uint32_t line;
} vt_srcline;

/* NVML figures of one NVML index. */
typedef struct {
    int      seen;
    char     uuid[96];      /* "GPU-..." from NVML_DEVICE */
    uint64_t total;
    int      has_proc;      /* some sample knew the process's own figure */
    uint64_t proc_max, proc_max_time;
    uint64_t used_max, used_max_time;  /* whole device */
    uint64_t samples;
    /* traced live device bytes of CUDA ordinals 0..VT_NVML_SNAP-1 at those two maxima;
     * which ordinal is this NVML index is known only once the UUIDs are read */
    uint64_t proc_snap[VT_NVML_SNAP], used_snap[VT_NVML_SNAP];
    /* the least, over samples, of the process's figure minus ordinal i's traced live
     * bytes: the context and modules with the least allocator slack on top (fit) */
    uint64_t proc_over_min[VT_NVML_SNAP];
    /* the driver pools' slack and reserved bytes of those ordinals at the process maximum */
    uint64_t slack_snap[VT_NVML_SNAP], reserved_snap[VT_NVML_SNAP];
} vt_nvml;

/* The driver memory pools one device's allocations came from (VT_REC_POOL samples). */
#define VT_POOL_MAX 8
typedef struct {
    int      seen, n;
    uint64_t samples;
    uint64_t handle[VT_POOL_MAX];
    uint64_t reserved[VT_POOL_MAX], used[VT_POOL_MAX];  /* each pool's latest sample */
    uint64_t cur_reserved, cur_slack;   /* summed over the pools, now */
    uint64_t slack_max, slack_max_time, reserved_at_slack_max;
} vt_pool_dev;

typedef struct {
    char    *path;
    uint64_t bias, size;
    uint8_t *build_id;
    uint32_t build_id_len;
} vt_module;

/* A frame node of the stack tree. */
typedef struct {
    uint32_t parent;
    uint8_t  kind;          /* vt_frame_kind */
    uint64_t value;
} vt_stack_node;

typedef struct {
    uint32_t file, function; /* STRING ids */
    uint32_t line;
} vt_pyframe;


typedef struct vt_replay vt_replay;

/* Finds the merged tracker for a device of this trace (reports over several traces). */
typedef vt_tracker *(*vt_replay_merged_fn)(void *ctx, vt_replay *rp, int device);

typedef struct {
    uint64_t records;
    uint64_t by_type[VT_REC_TYPE_MAX + 1];
    uint64_t allocs, frees, ooms, vmm_ops;
    uint64_t frees_unmatched;   /* a free of nothing live (its allocation was not seen) */
    uint64_t allocs_replaced;   /* an allocation over a live address (its free was not seen) */
    uint64_t lost_events;       /* LOST records: events the recorder dropped */
    uint64_t pauses;            /* times the program paused recording (PAUSE records) */
    uint64_t paused_ns;         /* time spent paused, up to the last record */
    uint64_t unknown_records;
    uint64_t unwrapped_lookups;
    uint64_t torch_blocks;      /* PyTorch blocks seen (allocator trace tracker) */
    uint64_t torch_segments;    /* segment events matched to the driver's memory */
    uint64_t torch_unbacked;    /* bytes of blocks that found too few idle bytes in segments */
    uint64_t pool_segments;     /* segments found to be private pools' (CUDA graphs', MemPools) */
    uint64_t pool_unplaced;     /* private-pool blocks in no segment seen (counted as others) */
} vt_replay_stats;

/* A driver allocation PyTorch made (part of) a segment of (vt_replay.c): one per
 * allocation, so that what the segments were is known after the replay. */
typedef struct {
    uint32_t group;             /* the driver allocation's group */
    uint8_t  gone;              /* the driver allocation was freed */
    uint64_t moved;             /* bytes now counted in the device's idle group */
    uint64_t bytes;             /* its bytes that became segment bytes (the most ever moved) */
    int      pool;              /* a private pool's: its idle bytes are in VT_GROUP_POOL */
} vt_seg;

/* What a replay found, for the analyses, views and commands above the model: filled
 * by vt_replay_finish (trace and rt_base by vt_replay_new, global by
 * vt_replay_set_global), read through vt_replay_result_of. The arrays are the replay's
 * own, valid until vt_replay_free. The replay's working state (live set, lookups,
 * caches) stays in model/vt_replay_int.h. */
typedef struct {
    int trace;                  /* index of this trace in the analysis */
    uint64_t rt_base;           /* start_realtime_ns: event time + this = realtime */
    uint64_t stop_time;         /* records timed after this were skipped (UINT64_MAX: none) */
    uint64_t last_time;         /* of the last record applied */
    vt_tracker *global;         /* all device memory of the analysis, or NULL */
    const vt_tracker *host;     /* pinned host memory */
    const vt_group *groups;     /* vt_replay_groups_edit: the same, to annotate */
    size_t ngroups;
    const vt_oom *ooms;
    size_t nooms;
    const vt_catlog *catlog;    /* device allocations for category inference, or NULL */
    const uint64_t *annot_max;  /* [VT_ROLE_MAX]: the most annotated bytes of any batch
                                 * that matched no allocation, per role */
    /* the stack tree: nodes, and the STRING and Python frame records they name */
    const vt_stack_node *nodes;
    size_t nnodes;
    const vt_idarr *node_ix;    /* stack node id -> nodes[] */
    const char *const *strings;
    const vt_idarr *string_ix;  /* STRING id -> strings[] */
    const vt_pyframe *pyframes;
    const vt_idarr *pyframe_ix;
    const vt_module *modules;
    size_t nmodules;
    const vt_symrec *syms;      /* SYMBOL records, in file order */
    size_t nsyms;
    const vt_mark *marks;       /* MARK records, in file order */
    size_t nmarks;
    const vt_srcline *srcs;     /* SOURCE records, in file order (vt_replay_srcline finds one) */
    size_t nsrcs;
    const vt_nvml *nvml;        /* [VT_NDEV], by NVML index + 1 */
    const vt_pool_dev *pool;    /* [VT_NDEV], by CUDA ordinal + 1 */
    const char (*unwrapped)[64];/* names of the first lookups the recorder could not wrap */
    unsigned nunwrapped;
    uint64_t driver_version;
    int has_trailer;
    uint8_t trailer_flags;
    const uint64_t *trailer_counts; /* [VT_REC_TYPE_MAX] */
    const vt_replay_stats *st;
    const vt_seg *segs;         /* PyTorch's segments, one per driver allocation */
    size_t nsegs;
    int nomem;                  /* some record was dropped for want of memory */
} vt_replay_result;

/* The key of a source line (vt_srcline) in the replay's index of them. */
static inline uint64_t vt_srcline_key(const char *file, size_t n, uint32_t line)
{
    return vt_str_hash(file, n) ^ vt_hash64((uint64_t)line + 1);
}

/* The SOURCE record naming the layer of (file, line): its index in the result's srcs,
 * or -1. */
int64_t vt_replay_srcline(const vt_replay *rp, const char *file, uint32_t line);

/* Returns NULL when out of memory. */
vt_replay *vt_replay_new(int trace, uint64_t rt_base);
void vt_replay_free(vt_replay *rp);

/* Applies one record. */
void vt_replay_rec(vt_replay *rp, const vt_rec *r);

/* Applies a run of ALLOC and FREE records (vt_ev, vt_codec.h): the same as
 * vt_replay_rec on each, faster. */
void vt_replay_events(vt_replay *rp, const vt_ev *ev, size_t n);

/* Settles the lazily kept peak values (call once, after the last record). Trackers
 * shared between replays (global, merged) must be final, i.e. all replays done. Frees
 * the lookups only the replay uses and trims the node and group arrays to size. */
void vt_replay_finish(vt_replay *rp);

/* Makes group gi feed tracker t too, from its next change on (a series or an export
 * replaying the trace alongside). Returns -1 when it feeds VT_MAX_TRACK already. */
int vt_replay_group_feed(vt_replay *rp, size_t gi, vt_tracker *t);

/* Frees the live set and the VMM counts once the replay is done, keeping in the
 * category log the one thing inference needs of them (the device allocations of its
 * window still live): the memory goes back before categories are inferred and stacks
 * folded, so that none of them add up. */
void vt_replay_drop_live(vt_replay *rp);

/* What the replay found (vt_replay_result); complete after vt_replay_finish. */
const vt_replay_result *vt_replay_result_of(const vt_replay *rp);

/* Sites and categories annotate the groups after the replay (their site and cat
 * fields) and sites the OOM events (site): the same arrays, writable. */
vt_group *vt_replay_groups_edit(vt_replay *rp);
vt_oom *vt_replay_ooms_edit(vt_replay *rp);

/* After vt_replay_finish: appends a copy of g (a part of a group whose allocations the
 * analysis tells apart, vt_cat_split.c) and returns its index, or -1 when out of memory.
 * Moves the groups array: pointers into it from before are stale. */
int64_t vt_replay_add_group(vt_replay *rp, const vt_group *g);

/* While the replay runs (a series or an export replaying a trace alongside): the
 * groups made so far, group gi, and the device's state (NULL when none). */
size_t vt_replay_ngroups(const vt_replay *rp);
const vt_group *vt_replay_group(const vt_replay *rp, size_t gi);
vt_device *vt_replay_device(const vt_replay *rp, int device);

/* Of count allocations live at the end, how many may be frees the recorder lost rather
 * than leaks: every lost event may have been one (LOST records count events, not
 * their types). 0 when none was lost. */
uint64_t vt_replay_unsure_leaks(const vt_replay *rp, uint64_t count);

/* Settings, before the first record: the tracker of all device memory (NULL: none);
 * the time and the mark (--at mark:NAME, or NULL) past which records are skipped; the
 * merged trackers of several traces; whether to keep the category log. */
void vt_replay_set_global(vt_replay *rp, vt_tracker *global);
void vt_replay_set_stop(vt_replay *rp, uint64_t stop_time, const char *stop_mark);
void vt_replay_set_merged(vt_replay *rp, vt_replay_merged_fn fn, void *ctx);
void vt_replay_keep_catlog(vt_replay *rp);

/* Frees what the category log holds once inference has read it (vt_cat_lifetimes). */
void vt_replay_drop_catlog(vt_replay *rp);
#endif /* VT_REPLAY_H */
