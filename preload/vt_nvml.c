// SPDX-License-Identifier: MIT
/* vt_nvml.c - NVML samples: how much memory the device and this process use, as the
 * driver sees it. This is the one figure that also counts what no allocation call
 * explains (the CUDA context, loaded modules, pool slack), so the analyzer can show the
 * gap between "allocated" and "used".
 *
 * Writer thread only. libnvidia-ml.so.1 is dlopen'ed at run time (the recorder must run
 * where it is absent: then no NVML records). Samples are taken every VRAMTRACE_NVML_MS
 * and emitted only when a figure changed since that device's previous sample, which
 * keeps a steady-state trace small; the first sample of each device is always emitted.
 * The process's own figure comes from the running-process list; in a container the pid
 * there may be the host's, and then it is "unknown" (aux0 = 0). */
#include "vt_nvml.h"
#include "vt_dlsym.h"
#include "vt_format.h"
#include "vt_global.h"
#include "vt_stats.h"
#include "vt_pool.h"

#include <dlfcn.h>
#include <string.h>
#include <unistd.h>

#define VT_NVML_MAX_DEV  64
#define VT_NVML_MAX_PROC 256

typedef int nvmlReturn_t;
typedef void *nvmlDevice_t;
typedef struct { unsigned long long total, free, used; } vt_nvml_mem;
typedef struct { unsigned int pid; unsigned long long used; unsigned int gi, ci; } vt_nvml_proc2; /* _v2/_v3 */
typedef struct { unsigned int pid; unsigned long long used; } vt_nvml_proc1;                     /* plain */

#define NVML_ERROR_INSUFFICIENT_SIZE 7
#define NVML_VALUE_NOT_AVAILABLE     (~0ull)

/* Writer-thread state (one NVML session per process). */
static struct {
    int state;  /* 0 not tried, 1 working, -1 off */
    nvmlReturn_t (*init)(void);
    nvmlReturn_t (*count)(unsigned int *);
    nvmlReturn_t (*handle)(unsigned int, nvmlDevice_t *);
    nvmlReturn_t (*uuid)(nvmlDevice_t, char *, unsigned int);
    nvmlReturn_t (*meminfo)(nvmlDevice_t, vt_nvml_mem *);
    nvmlReturn_t (*procs)(nvmlDevice_t, unsigned int *, void *);
    int procs_v1;  /* procs takes the 16-byte v1 struct */
    unsigned ndev;
    nvmlDevice_t dev[VT_NVML_MAX_DEV];
    struct { int have; uint64_t used, total, mine; } last[VT_NVML_MAX_DEV];
    uint64_t next_ns;
    union { vt_nvml_proc2 p2[VT_NVML_MAX_PROC]; vt_nvml_proc1 p1[VT_NVML_MAX_PROC]; } buf;
} vt_n;

static void *sym(void *h, const char *name)
{
    void *p = vt_real_dlsym(h, name);
    dlerror();
    return p;
}

static void nvml_open(void (*emit)(const vt_rec *r))
{
    vt_n.state = -1;
    void *h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) { dlerror(); return; }
    vt_n.init = (nvmlReturn_t (*)(void))sym(h, "nvmlInit_v2");
    vt_n.count = (nvmlReturn_t (*)(unsigned int *))sym(h, "nvmlDeviceGetCount_v2");
    vt_n.handle = (nvmlReturn_t (*)(unsigned int, nvmlDevice_t *))sym(h, "nvmlDeviceGetHandleByIndex_v2");
    vt_n.uuid = (nvmlReturn_t (*)(nvmlDevice_t, char *, unsigned int))sym(h, "nvmlDeviceGetUUID");
    vt_n.meminfo = (nvmlReturn_t (*)(nvmlDevice_t, vt_nvml_mem *))sym(h, "nvmlDeviceGetMemoryInfo");
    vt_n.procs = (nvmlReturn_t (*)(nvmlDevice_t, unsigned int *, void *))sym(h, "nvmlDeviceGetComputeRunningProcesses_v3");
    if (!vt_n.procs) vt_n.procs = (nvmlReturn_t (*)(nvmlDevice_t, unsigned int *, void *))sym(h, "nvmlDeviceGetComputeRunningProcesses_v2");
    if (!vt_n.procs) {
        vt_n.procs = (nvmlReturn_t (*)(nvmlDevice_t, unsigned int *, void *))sym(h, "nvmlDeviceGetComputeRunningProcesses");
        vt_n.procs_v1 = 1;
    }
    if (!vt_n.init || !vt_n.count || !vt_n.handle || !vt_n.meminfo) return;
    if (vt_n.init() != 0) return;
    unsigned n = 0;
    if (vt_n.count(&n) != 0) return;
    if (n > VT_NVML_MAX_DEV) n = VT_NVML_MAX_DEV;
    for (unsigned i = 0; i < n; i++) {
        if (vt_n.handle(i, &vt_n.dev[i]) != 0) { vt_n.dev[i] = NULL; continue; }
        char u[96] = "";
        if (vt_n.uuid && vt_n.uuid(vt_n.dev[i], u, sizeof u) != 0) u[0] = 0;
        u[sizeof u - 1] = 0;
        vt_rec r = { .type = VT_REC_NVML_DEVICE, .device = (int8_t)i, .str = u, .str_len = (uint32_t)strlen(u) };
        emit(&r);
    }
    vt_n.ndev = n;
    vt_n.state = 1;
}

/* This process's used bytes + 1 on device d; 0 when not known. */
static uint64_t mine(nvmlDevice_t d)
{
    if (!vt_n.procs) return 0;
    unsigned cnt = VT_NVML_MAX_PROC;
    if (vt_n.procs(d, &cnt, &vt_n.buf) != 0) return 0;
    unsigned pid = (unsigned)getpid();
    for (unsigned i = 0; i < cnt && i < VT_NVML_MAX_PROC; i++) {
        unsigned p = vt_n.procs_v1 ? vt_n.buf.p1[i].pid : vt_n.buf.p2[i].pid;
        unsigned long long u = vt_n.procs_v1 ? vt_n.buf.p1[i].used : vt_n.buf.p2[i].used;
        if (p == pid) return u == NVML_VALUE_NOT_AVAILABLE ? 0 : (uint64_t)u + 1;
    }
    return 0;
}

int vt_nvml_due_in_ms(uint64_t now)
{
    if (vt_g.cfg.nvml_ms <= 0 || vt_n.state < 0) return 1000;
    if (vt_n.next_ns <= now) return 0;
    return (int)((vt_n.next_ns - now) / 1000000u);
}

void vt_nvml_sample(uint64_t now, void (*emit)(const vt_rec *r))
{
    if (vt_g.cfg.nvml_ms <= 0 || now < vt_n.next_ns) return;
    if (vt_n.state == 0) nvml_open(emit);
    vt_n.next_ns = now + (uint64_t)vt_g.cfg.nvml_ms * 1000000u;
    /* the driver pools at the same moment, with or without NVML (vt_pool.h) */
    vt_pool_sample(emit);
    if (vt_n.state < 0) return;
    /* NVML's queries go through the driver: time them, they run next to the program's
     * own calls (VRAMTRACE_STATS). */
    uint64_t t0 = vt_g.cfg.stats ? vt_now_abs() : 0;
    for (unsigned i = 0; i < vt_n.ndev; i++) {
        if (!vt_n.dev[i]) continue;
        vt_nvml_mem m;
        if (vt_n.meminfo(vt_n.dev[i], &m) != 0) continue;
        uint64_t me = mine(vt_n.dev[i]);
        if (vt_n.last[i].have && vt_n.last[i].used == m.used && vt_n.last[i].total == m.total
            && vt_n.last[i].mine == me)
            continue;
        vt_n.last[i].have = 1;
        vt_n.last[i].used = m.used;
        vt_n.last[i].total = m.total;
        vt_n.last[i].mine = me;
        vt_rec r = { .type = VT_REC_NVML, .device = (int8_t)i, .time_ns = vt_now(),
                     .aux0 = me, .size = m.used, .aux1 = m.total };
        emit(&r);
    }
    if (vt_g.cfg.stats) {
        vt_stats_add(VT_STAT_NS_NVML, vt_now_abs() - t0);
        vt_stats_add(VT_STAT_N_NVML, 1);
    }
}
