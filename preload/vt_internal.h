/* vt_internal.h - what the recorder's files share: configuration, global state, the
 * per-thread flags, and each module's entry points. Nothing here is exported from
 * libvramtrace.so: the library is built with -fvisibility=hidden and only the
 * interposed driver/loader names (VT_EXPORT) are visible. */
#ifndef VT_INTERNAL_H
#define VT_INTERNAL_H

#include <stdatomic.h>
#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#include "vt_format.h"

#define VT_EXPORT __attribute__((visibility("default")))
#define VT_LIKELY(x)   __builtin_expect(!!(x), 1)
#define VT_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define VT_TLS __thread __attribute__((tls_model("initial-exec")))

#define VT_DEPTH_MAX   256
#define VT_PATH_MAX    4096

/* ------------------------------------------------------------------------ *
 *  Configuration (vt_env.c): read once in the constructor, read-only after
 * ------------------------------------------------------------------------ */
typedef struct {
    char     output[VT_PATH_MAX]; /* absolute output pattern (%p %h %r %%) */
    int      depth;               /* frames per stack, 0 = none */
    int      flush_ms;
    int      nvml_ms;             /* 0 = NVML off */
    int      free_stacks;
    int      zstd_level;
    int      debug;
    int      disable;
    int      libunwind;           /* VRAMTRACE_LIBUNWIND=1: every stack through libunwind */
    int      python;              /* VRAMTRACE_PYTHON: Python frames in stacks (default 1) */
    int      stats;               /* VRAMTRACE_STATS=1: time the recorder's own parts (vt_stats.c) */
    uint32_t ring_slots;          /* power of two */
    int      rank;                /* RANK, else LOCAL_RANK, else -1 */
    int      descendant;          /* started by exec from a traced process */
} vt_config;

/* Parses the VRAMTRACE_* variables into cfg. Returns 0, or -1 after writing the one
 * warning line (the caller then leaves tracing off). */
int vt_env_parse(vt_config *cfg);

/* Expands cfg->output for this process into out (size n). Returns 0 or -1. */
int vt_env_expand(const vt_config *cfg, char *out, size_t n);

/* ------------------------------------------------------------------------ *
 *  Global state (vt_init.c)
 * ------------------------------------------------------------------------ */
enum {
    VT_ST_OFF = 0,      /* never traced: bad config, VRAMTRACE_DISABLE, fork child, write error */
    VT_ST_STOPPED = 1,  /* was tracing; the exit path has taken over */
    VT_ST_IDLE = 2,     /* enabled, no event yet: no file, no thread, no ring */
    VT_ST_STARTING = 3, /* the first event is opening the file */
    VT_ST_ACTIVE = 4    /* events go to the ring */
};

typedef struct {
    _Atomic int state;
    _Atomic int paused;            /* the program paused recording (vt_control.c); next to
                                    * state, so every event's check reads one line */
    int         lookups_on;        /* identify/swap looked-up pointers (off with DISABLE/bad config) */
    vt_config   cfg;
    uint64_t    start_mono_ns;     /* CLOCK_MONOTONIC at the constructor; event times count from it */
    uint64_t    start_real_ns;
    pid_t       pid;
    uintptr_t   self_lo, self_hi;  /* our own text+data: frames and pointers inside are ours */
    _Atomic int forked;            /* this is a fork child: never touch the parent's trace */
    char        path[VT_PATH_MAX]; /* the expanded output path, once the file is open */
} vt_global;

/* The one global: a preloaded recorder is a process singleton by nature. */
extern vt_global vt_g;

/* Per thread. in_hook: inside recorder code (wrappers called from there pass through).
 * Initial-exec TLS: the library is LD_PRELOADed, so static TLS is there and the
 * access is a single %fs-relative load. */
typedef struct {
    uint32_t tid;
    uint8_t  in_hook;
    uint8_t  announced;  /* THREAD record queued */
} vt_tls_t;
extern VT_TLS vt_tls_t vt_tls;

static inline uint64_t vt_now_abs(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Nanoseconds since the constructor ran (the trace's time base). */
static inline uint64_t vt_now(void) { return vt_now_abs() - vt_g.start_mono_ns; }

/* The hash step of the recorder's tables (wyhash's multiply-fold): the 128-bit product
 * folded to 64 bits. */
static inline uint64_t vt_mix(uint64_t a, uint64_t b)
{
    __uint128_t r = (__uint128_t)a * b;
    return (uint64_t)r ^ (uint64_t)(r >> 64);
}

static inline int vt_is_self(uintptr_t a) { return a >= vt_g.self_lo && a < vt_g.self_hi; }

/* A wrapper's gate: returns 1 (and sets in_hook) when this call is to be recorded. */
static inline int vt_enter(void)
{
    if (vt_tls.in_hook) return 0;
    if (atomic_load_explicit(&vt_g.state, memory_order_acquire) < VT_ST_IDLE) return 0;
    vt_tls.in_hook = 1;
    return 1;
}
static inline void vt_leave(void) { vt_tls.in_hook = 0; }

/* ------------------------------------------------------------------------ *
 *  Self-measurement (vt_stats.c), only with VRAMTRACE_STATS=1
 * ------------------------------------------------------------------------ */
enum {
    VT_STAT_EVENTS, VT_STAT_NS_PUSH,        /* events recorded; ns building and pushing them */
    VT_STAT_N_DEVICE, VT_STAT_NS_DEVICE,    /* device lookups (cuCtxGetDevice); their ns */
    VT_STAT_N_STACK, VT_STAT_NS_STACK,      /* stack captures; their ns */
    VT_STAT_MEMO_HIT, VT_STAT_WALKED, VT_STAT_FALLBACK, VT_STAT_EXTRA,  /* how stacks were had */
    VT_STAT_N_NVML, VT_STAT_NS_NVML,        /* NVML samples (writer thread); their ns */
    VT_STAT_N_FLUSH, VT_STAT_NS_FLUSH,      /* chunks compressed and written; their ns */
    VT_STAT_NVTX,                           /* NVTX ranges opened (push or start) */
    VT_STAT_MEMO_RESET,                     /* times a thread's memo filled and started over */
    VT_STAT_NS_HIT, VT_STAT_NS_WALK,        /* ns in vt_unwind, memo hits and the others */
    VT_STAT_FRAMES_WALKED,                  /* frames of the walks (not memo hits) */
    VT_STAT_N_EXTRA, VT_STAT_NS_EXTRA,      /* Python frames and scopes collected; their ns */
    VT_STAT_PY_FRAMES, VT_STAT_PY_LOOKUP,   /* Python frames; those not kept from the last walk */
    VT_STAT_COUNT
};
void vt_stats_add(int which, uint64_t v);
/* One line on stderr (at exit) when cfg.stats is set. */
void vt_stats_print(void);

/* Writes "vramtrace: <msg>\n" to stderr with one write(). */
void vt_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The first event of the process: opens the file, starts the writer. Returns 1 when
 * tracing is active afterwards. */
int vt_start(void);

/* The real dlsym (vt_hook_dl.c). Never call dlsym by name inside the recorder: that
 * is our own export. */
void *vt_real_dlsym(void *handle, const char *name);

/* ELF lookups in loaded objects (vt_elf.c). */
typedef struct { uintptr_t addr; int needs_glibc; } vt_elf_sym;
/* name in one object's own dynamic symbol table (base = load bias, dynamic = its
 * PT_DYNAMIC in memory). 0 found, -1 not. needs_glibc: IFUNC or TLS, ask dlsym. */
int vt_elf_lookup(uintptr_t base, const void *dynamic, const char *name, vt_elf_sym *out);
/* RTLD_NEXT for a caller at ra: 0 found (*out), -1 no later object defines name,
 * -2 ra is in no object. */
int vt_elf_next(const void *ra, const char *name, void **out);
void vt_elf_init(void);  /* constructor: counts the objects of the initial load */
/* What the object holding ra would find among itself and its dependencies (a real
 * handle from dlopen(RTLD_NOLOAD); the global scope for the main program). */
void *vt_dl_scope_lookup(const void *ra, const char *name);

/* Turns tracing off after an I/O error (called by the writer thread). */
void vt_disable(void);

/* ------------------------------------------------------------------------ *
 *  Ring (vt_ring.c): fixed-size events, many producers, the writer consumes
 * ------------------------------------------------------------------------ */
typedef struct {
    uint8_t  type, kind;
    int8_t   device;
    uint8_t  flags;
    uint32_t tid;
    uint32_t stack_id;
    uint32_t pad_;
    uint64_t time;
    uint64_t a, b, c, d;  /* per type: see vt_writer.c ev_to_rec() */
} vt_ev;

int      vt_ring_init(uint32_t slots);
int      vt_ring_push(const vt_ev *e);         /* 0, or -1 when dropped */
uint64_t vt_ring_head(void);                   /* producers' position (snapshot) */
int      vt_ring_pop(vt_ev *e, uint64_t limit);/* consumer: 1 popped, 0 none/not ready */
uint64_t vt_ring_lost(void);

/* ------------------------------------------------------------------------ *
 *  Side buffer (vt_side.c): rare variable-length records, under a mutex
 * ------------------------------------------------------------------------ */
void   vt_side_push(const vt_rec *r);
/* Writer: takes what was queued; hands back the previous buffer for reuse. */
size_t vt_side_take(uint8_t **buf);
/* Writer: iterates a taken buffer. Returns the next record or NULL at the end. */
const uint8_t *vt_side_next(const uint8_t *p, const uint8_t *end, vt_rec *r);
uint64_t vt_side_dropped(void);   /* records refused because the buffer hit its cap */

/* ------------------------------------------------------------------------ *
 *  Stacks (vt_stack.c)
 * ------------------------------------------------------------------------ */
int      vt_stack_init(void);
int      vt_unwind_init(void);
typedef struct vt_memo vt_memo;
/* A native walk as the memo keeps it: the frames kept (the recorder's own skipped, cut
 * to the depth), innermost first, with the stack pointer of each frame's function. */
typedef struct {
    uint64_t         hash;  /* of ips[0..n) */
    uint32_t         id;    /* their stack id when recorded alone; 0 = not looked up */
    uint32_t         n;
    void *const     *ips;
    const uintptr_t *sps;
} vt_walk;
/* vt_memo.c: this thread's memo of walks (NULL if none); a lookup at a walk's start
 * (the walk it finds, or NULL); the log a walk after a miss fills (cap pairs; the
 * address that stands for the starting RBP); how much it logged; keeping it with what
 * it produced; the stack id of a walk the memo returned. */
int      vt_memo_init(void);
vt_memo *vt_memo_get(int max);
const vt_walk *vt_memo_find(vt_memo *m, uintptr_t rsp0, uintptr_t rbp0);
uint64_t *vt_memo_log(vt_memo *m, uint32_t *cap, uintptr_t *rbp0_word);
void     vt_memo_walked(vt_memo *m, uint32_t nlog);
void     vt_memo_keep(vt_memo *m, const vt_walk *w);
void     vt_memo_set_id(const vt_walk *w, uint32_t id);
/* Return addresses from the caller of vt_unwind outwards (and, when sps is not NULL,
 * the stack pointer of each one's function): how many; -1 when libunwind must do this
 * stack; 0 with *hit set when the memo knows the walk. */
int      vt_unwind(void **ips, uintptr_t *sps, int max, vt_memo *m, const vt_walk **hit);
uintptr_t vt_unwind_stack_hi(void); /* this thread's stack top, 0 unknown */
uint32_t vt_stack_capture(void);   /* id of the caller's stack, 0 = none */
uint64_t vt_stack_dropped(void);   /* stacks recorded as 0 because the tables were full */

/* ------------------------------------------------------------------------ *
 *  Interned strings (vt_str.c): text -> STRING id, a STRING record once
 * ------------------------------------------------------------------------ */
#define VT_STR_MAX 4096           /* longer strings are cut */
uint32_t vt_str_intern(const char *s, size_t n);  /* 0: table full or empty string */
uint64_t vt_str_dropped(void);    /* texts refused because the table was full */
uint64_t vt_hash_bytes(const void *p, size_t n, uint64_t seed);

/* ------------------------------------------------------------------------ *
 *  Scopes (vt_scope.c, vt_nvtx.c): NVTX ranges and module names per thread
 * ------------------------------------------------------------------------ */
#define VT_SCOPE_MAX 64           /* scope frames per stack */
/* Nonzero while this thread may have a scope (the capture's fast test). */
extern VT_TLS uint32_t vt_scope_live;
void vt_scope_init(void);        /* constructor */
/* This thread's scopes, outermost first, as STRING ids. */
int  vt_scope_collect(uint32_t *sids, int max);
/* Range push/pop and start/end for the NVTX callbacks. domain tags a push stack
 * entry (NULL: NVTX's default domain) so that a domain's pop takes its own range. */
int      vt_scope_push(uint32_t sid, const void *domain);
int      vt_scope_pop(const void *domain);
uint64_t vt_scope_start(uint32_t sid);
void     vt_scope_end(uint64_t range);

/* ------------------------------------------------------------------------ *
 *  Python frames (vt_py.c)
 * ------------------------------------------------------------------------ */
#define VT_PY_MAX    128          /* Python frames per stack (the innermost ones) */
#define VT_PY_GROUPS VT_PY_MAX    /* interpreter calls told apart per stack */
/* The Python frames of the calling thread, innermost first, in groups: the frames one
 * C-level call of the interpreter loop runs, [end[g-1], end[g]). anchor[g] is an
 * address on the C stack inside that call's native frame; 0 when the frame must be
 * found by its return address instead (vt_py_eval_ip). */
typedef struct {
    int       n, ngroups;
    int       by_ip;              /* 3.9: anchors are 0, match by return address */
    uint32_t  id[VT_PY_MAX];      /* PYFRAME ids */
    uint16_t  end[VT_PY_GROUPS];
    uintptr_t anchor[VT_PY_GROUPS];
} vt_pystack;
/* 1 once the interpreter's functions were found in the process. */
extern _Atomic int vt_py_found;
void vt_py_try_init(void);       /* looks the interpreter up (not on a hot path) */
int  vt_py_capture(vt_pystack *ps); /* how many frames; 0 for a thread Python never ran on */
int  vt_py_eval_ip(uintptr_t ip);   /* ip is inside the interpreter loop (3.9) */
void vt_py_init(void);              /* constructor */

/* ------------------------------------------------------------------------ *
 *  Records (vt_record.c): what the wrappers call after the real call
 * ------------------------------------------------------------------------ */
void vt_rec_alloc(unsigned kind, uint64_t addr, uint64_t size, uint64_t stream, unsigned flags, int device);
void vt_rec_free(unsigned kind, uint64_t addr, uint64_t stream, unsigned flags, int device);
void vt_rec_oom(unsigned kind, uint64_t size, uint64_t stream, unsigned flags, int device);
void vt_rec_vmm(unsigned op, uint64_t addr, uint64_t size, uint64_t aux0, uint64_t aux1, int stack);
void vt_rec_pool_trim(uint64_t pool, uint64_t keep, int device);
void vt_rec_segment(unsigned op, uint64_t addr, uint64_t size, int device); /* vt_torch_rec.c's */
void vt_rec_lookup(const char *name, int how, uint64_t ptr, uint64_t info, int unwrapped);
/* Device of the current context (cuCtxGetDevice through the real driver), -1 unknown. */
int  vt_rec_device(void);
/* Describes the driver and devices once (DRIVER, DEVICE records). */
void vt_rec_devices(void);

/* ------------------------------------------------------------------------ *
 *  Writer (vt_writer.c), modules (vt_module.c), NVML (vt_nvml.c)
 * ------------------------------------------------------------------------ */
int  vt_writer_start(int fd);
void vt_writer_stop(void);
void vt_writer_wake(void);
/* Writer thread only: encodes one record into the current chunk. */
void vt_writer_emit(const vt_rec *r);

void vt_module_check(void);   /* writer: emits MODULE records for objects not yet described */

void vt_nvml_sample(uint64_t now); /* writer: samples when due */
int  vt_nvml_due_in_ms(uint64_t now);

#endif /* VT_INTERNAL_H */
