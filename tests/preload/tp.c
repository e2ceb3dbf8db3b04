// SPDX-License-Identifier: MIT
/* tp.c - the expectation log and driver-table helpers of the recorder's test programs.
 * Line format of <pid>.expect (numbers in C notation, read with strtoull base 0):
 *   H pid ppid realtime_ns        T trace_path            E exe_path
 *   K rank local_rank (tp_rank: the launchers' variables, in the recorder's order)
 *   C hex(argv joined by NUL)      R driver_version
 *   N fnid lo hi bias module_path name         (a calling function)
 *   A kind addr size stream flags tid dev fnid (dev -2: any)
 *   F kind addr stream flags tid dev fnid
 *   O kind size stream flags tid dev free total fnid
 *   V op addr size aux0 aux1 tid dev fnid
 *   P pool size tid dev fnid
 *   D ordinal total major minor uuid_hex name
 *   X key value                                (the fake driver's counters) */
#define _GNU_SOURCE
#include "tp.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------------------ *
 *  State (one log per process; the program is the only writer)
 * ------------------------------------------------------------------------ */
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
/* The log is written with write(2), never stdio: a fork child must not inherit (and flush
 * again at exit) lines another thread of the parent had buffered. -1: no log. */
static int g_log = -1;
static int g_detached;
static uint64_t g_nalloc[VT_KIND_ALLOC_MAX], g_nfree, g_noom, g_nvmm[8], g_ntrim, g_nfailed;
static uint64_t g_calls[FAKECUDA_FN_MAX];
static struct { void *fn; int id; } g_fns[64];
static int g_nfns;
static _Thread_local int t_dev;

void tp_die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "tp[%d]: ", (int)getpid());
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(2);
}

void tp_ck(CUresult got, CUresult want, const char *what, const char *file, int line)
{
    if (got != want) tp_die("%s:%d: %s returned %d, expected %d", file, line, what, (int)got, (int)want);
}

static unsigned tid(void) { return (unsigned)syscall(SYS_gettid); }

static void logf_locked(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logf_locked(const char *fmt, ...)
{
    if (g_log < 0) return;
    char buf[8192];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n >= sizeof buf) n = sizeof buf - 1;
    for (int off = 0; off < n;) {
        ssize_t w = write(g_log, buf + off, (size_t)(n - off));
        if (w <= 0) tp_die("writing the expect file failed");
        off += (int)w;
    }
}

/* ------------------------------------------------------------------------ *
 *  Start: header facts and the trace path the recorder must write
 * ------------------------------------------------------------------------ */
/* The rank the recorder must write, spelled out here on its own (not from vt_format.h's
 * table, so that a wrong table fails): the global rank from RANK, SLURM_PROCID,
 * OMPI_COMM_WORLD_RANK or PMI_RANK, else the local rank; the local rank from LOCAL_RANK,
 * SLURM_LOCALID, OMPI_COMM_WORLD_LOCAL_RANK or MPI_LOCALRANKID. A value that is not
 * plain decimal digits is passed over. -1: none. */
static int tp_rank_var(const char *name)
{
    const char *v = getenv(name);
    if (!v || !*v || strlen(v) > 10 || strspn(v, "0123456789") != strlen(v)) return -1;
    long n = atol(v);
    return n < (1L << 30) ? (int)n : -1;
}

static int tp_rank(int local)
{
    static const char *const global_vars[] = { "RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK", "PMI_RANK" };
    static const char *const local_vars[] = { "LOCAL_RANK", "SLURM_LOCALID", "OMPI_COMM_WORLD_LOCAL_RANK",
                                              "MPI_LOCALRANKID" };
    if (!local)
        for (int i = 0; i < 4; i++)
            if (tp_rank_var(global_vars[i]) >= 0) return tp_rank_var(global_vars[i]);
    for (int i = 0; i < 4; i++)
        if (tp_rank_var(local_vars[i]) >= 0) return tp_rank_var(local_vars[i]);
    return -1;
}

static void expand_pattern(const char *pat, int exec_child, char *out, size_t n)
{
    size_t o = 0;
    int has_pid = 0;
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    int r = tp_rank(0);
    char rank[16];
    snprintf(rank, sizeof rank, "%d", r < 0 ? 0 : r);
    for (const char *p = pat; *p && o + 64 < n; p++) {
        if (*p != '%' || !p[1]) { out[o++] = *p; continue; }
        p++;
        if (*p == 'p') { o += (size_t)snprintf(out + o, n - o, "%d", (int)getpid()); has_pid = 1; }
        else if (*p == 'h') o += (size_t)snprintf(out + o, n - o, "%s", host);
        else if (*p == 'r') o += (size_t)snprintf(out + o, n - o, "%s", rank);
        else if (*p == '%') out[o++] = '%';
        else { out[o++] = '%'; out[o++] = *p; }
    }
    out[o] = 0;
    if (exec_child && !has_pid) snprintf(out + o, n - o, ".%d", (int)getpid());
}

void tp_init(int argc, char **argv, int exec_child)
{
    const char *dir = getenv("TP_EXPECT_DIR");
    if (!dir || !*dir) return;
    char path[PATH_MAX];
    /* TP_EXPECT_TAG: one pid, several images (an exec chain), one log each. */
    const char *tag = getenv("TP_EXPECT_TAG");
    if (tag && *tag) snprintf(path, sizeof path, "%s/%d.%s.expect", dir, (int)getpid(), tag);
    else snprintf(path, sizeof path, "%s/%d.expect", dir, (int)getpid());
    g_log = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
    if (g_log < 0) tp_die("cannot write %s", path);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    logf_locked("H %d %d %llu\n", (int)getpid(), (int)getppid(),
                (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec);
    char exe[PATH_MAX];
    if (realpath("/proc/self/exe", exe)) logf_locked("E %s\n", exe);
    char cmd[8192];
    size_t o = 0;
    o += (size_t)snprintf(cmd + o, sizeof cmd - o, "C ");
    for (int i = 0; i < argc && o + 8 < sizeof cmd; i++) {
        if (i) o += (size_t)snprintf(cmd + o, sizeof cmd - o, "00");
        for (const unsigned char *c = (const unsigned char *)argv[i]; *c && o + 8 < sizeof cmd; c++)
            o += (size_t)snprintf(cmd + o, sizeof cmd - o, "%02x", *c);
    }
    logf_locked("%s\n", cmd);
    logf_locked("K %d %d\n", tp_rank(0), tp_rank(1));
    const char *pat = getenv("VRAMTRACE_OUTPUT");
    if (!pat || !*pat) pat = "vramtrace-%p.vtrace";
    char tpath[PATH_MAX], cwd[PATH_MAX];
    expand_pattern(pat, exec_child, tpath, sizeof tpath);
    /* TP_TRACE_SUFFIX: the name the recorder must take when the pattern's is taken. */
    const char *suffix = getenv("TP_TRACE_SUFFIX");
    if (!suffix) suffix = "";
    if (tpath[0] != '/' && getcwd(cwd, sizeof cwd)) logf_locked("T %s/%s%s\n", cwd, tpath, suffix);
    else logf_locked("T %s%s\n", tpath, suffix);
}

int tp_log_fd(void) { return g_log; }

/* ------------------------------------------------------------------------ *
 *  Calling functions: address range, load bias and module, written once
 * ------------------------------------------------------------------------ */
typedef struct { uintptr_t addr; uintptr_t bias; const char *name; } phdr_q;

static int find_module(struct dl_phdr_info *info, size_t size, void *arg)
{
    phdr_q *q = arg;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD) continue;
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (q->addr >= lo && q->addr < lo + ph->p_memsz) {
            q->bias = info->dlpi_addr;
            q->name = info->dlpi_name;
            return 1;
        }
    }
    return 0;
}

static int fn_id_locked(void *fn)
{
    for (int i = 0; i < g_nfns; i++)
        if (g_fns[i].fn == fn) return g_fns[i].id;
    if (g_nfns == (int)(sizeof g_fns / sizeof g_fns[0])) tp_die("too many calling functions");
    Dl_info di;
    ElfW(Sym) *sym = NULL;
    if (!dladdr1(fn, &di, (void **)&sym, RTLD_DL_SYMENT) || !sym || !di.dli_saddr)
        tp_die("no symbol for %p: build the test programs with -rdynamic", fn);
    phdr_q q = { (uintptr_t)fn, 0, NULL };
    dl_iterate_phdr(find_module, &q);
    char mod[PATH_MAX];
    const char *m = q.name && *q.name ? q.name : "/proc/self/exe";
    if (!realpath(m, mod)) snprintf(mod, sizeof mod, "%s", m);
    int id = g_nfns + 1;
    g_fns[g_nfns].fn = fn;
    g_fns[g_nfns].id = id;
    g_nfns++;
    logf_locked("N %d 0x%llx 0x%llx 0x%llx %s %s\n", id, (unsigned long long)(uintptr_t)di.dli_saddr,
                (unsigned long long)((uintptr_t)di.dli_saddr + sym->st_size), (unsigned long long)q.bias,
                mod, di.dli_sname ? di.dli_sname : "?");
    return id;
}

/* ------------------------------------------------------------------------ *
 *  Events
 * ------------------------------------------------------------------------ */
void tp_set_device(int dev) { t_dev = dev; }

void tp_calling(int id)
{
    if (g_detached || id < 0 || id >= FAKECUDA_FN_MAX) return;
    pthread_mutex_lock(&g_mu);
    g_calls[id]++;
    pthread_mutex_unlock(&g_mu);
}

static int dev_for(int kind)
{
    /* Pinned host memory belongs to no device: any device value is accepted. */
    return kind == VT_KIND_HOST_ALLOC || kind == VT_KIND_HOST_ALLOC_HOST || kind == VT_KIND_HOST_FREE ? -2 : t_dev;
}

void tp_alloc(int kind, uint64_t addr, uint64_t size, uint64_t stream, unsigned flags, void *fn)
{
    if (g_detached) return;
    pthread_mutex_lock(&g_mu);
    if (kind > 0 && kind < VT_KIND_ALLOC_MAX) g_nalloc[kind]++;
    int id = fn_id_locked(fn);
    logf_locked("A %d 0x%llx %llu 0x%llx 0x%x %u %d %d\n", kind, (unsigned long long)addr,
                (unsigned long long)size, (unsigned long long)stream, flags, tid(), dev_for(kind), id);
    pthread_mutex_unlock(&g_mu);
}

void tp_free(int kind, uint64_t addr, uint64_t stream, unsigned flags, void *fn)
{
    if (g_detached) return;
    pthread_mutex_lock(&g_mu);
    g_nfree++;
    int id = fn_id_locked(fn);
    logf_locked("F %d 0x%llx 0x%llx 0x%x %u %d %d\n", kind, (unsigned long long)addr,
                (unsigned long long)stream, flags, tid(), dev_for(kind), id);
    pthread_mutex_unlock(&g_mu);
}

void tp_oom(int kind, uint64_t size, uint64_t stream, unsigned flags, uint64_t free_b, uint64_t total, void *fn)
{
    if (g_detached) return;
    pthread_mutex_lock(&g_mu);
    g_noom++;
    int id = fn_id_locked(fn);
    logf_locked("O %d %llu 0x%llx 0x%x %u %d %llu %llu %d\n", kind, (unsigned long long)size,
                (unsigned long long)stream, flags, tid(), t_dev, (unsigned long long)free_b,
                (unsigned long long)total, id);
    pthread_mutex_unlock(&g_mu);
}

void tp_vmm(int op, uint64_t addr, uint64_t size, uint64_t aux0, uint64_t aux1, void *fn)
{
    if (g_detached) return;
    pthread_mutex_lock(&g_mu);
    if (op > 0 && op < 8) g_nvmm[op]++;
    int id = fn_id_locked(fn);
    logf_locked("V %d 0x%llx %llu 0x%llx 0x%llx %u %d %d\n", op, (unsigned long long)addr,
                (unsigned long long)size, (unsigned long long)aux0, (unsigned long long)aux1, tid(), t_dev, id);
    pthread_mutex_unlock(&g_mu);
}

void tp_trim(uint64_t pool, uint64_t size, void *fn)
{
    if (g_detached) return;
    pthread_mutex_lock(&g_mu);
    g_ntrim++;
    int id = fn_id_locked(fn);
    logf_locked("P 0x%llx %llu %u %d %d\n", (unsigned long long)pool, (unsigned long long)size, tid(), t_dev, id);
    pthread_mutex_unlock(&g_mu);
}

void tp_failed_call(void)
{
    pthread_mutex_lock(&g_mu);
    g_nfailed++;
    pthread_mutex_unlock(&g_mu);
}

void tp_devices(const tp_api *a)
{
    int n = 0, v = 0;
    TP_CK(a->device_count(&n), CUDA_SUCCESS);
    TP_CK(a->driver_version(&v), CUDA_SUCCESS);
    pthread_mutex_lock(&g_mu);
    logf_locked("R %d\n", v);
    for (int d = 0; d < n; d++) {
        char name[256];
        size_t total = 0;
        int major = 0, minor = 0;
        CUuuid u;
        TP_CK(a->device_name(name, sizeof name, d), CUDA_SUCCESS);
        TP_CK(a->device_total(&total, d), CUDA_SUCCESS);
        TP_CK(a->device_attr(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d), CUDA_SUCCESS);
        TP_CK(a->device_attr(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d), CUDA_SUCCESS);
        TP_CK(a->device_uuid(&u, d), CUDA_SUCCESS);
        logf_locked("D %d %llu %d %d ", d, (unsigned long long)total, major, minor);
        for (int i = 0; i < 16; i++) logf_locked("%02x", (unsigned char)u.bytes[i]);
        logf_locked(" %s\n", name);
    }
    pthread_mutex_unlock(&g_mu);
}

void tp_flush(void)
{
    /* Every line is written at once; kept so callers say where the log must be complete. */
}

/* A symbol of the loaded driver, also when it was dlopen'ed RTLD_LOCAL. */
static void *fake_sym(const char *name)
{
    void *p = dlsym(RTLD_DEFAULT, name);
    if (p) return p;
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    return h ? dlsym(h, name) : NULL;
}

void tp_detach(void)
{
    /* Another thread may have held the log's lock at fork: never touch it again here.
     * The parent flushed before fork, so nothing of the parent's is lost. */
    g_log = -1;
    g_detached = 1;
}

fakecuda_stats_t tp_fake_stats(void)
{
    fakecuda_stats_t (*stats)(void) = (fakecuda_stats_t (*)(void))fake_sym("fakecuda_stats");
    if (!stats) tp_die("fakecuda_stats not found: is libcuda.so.1 the fake?");
    return stats();
}

/* ------------------------------------------------------------------------ *
 *  End: the fake driver's own counters must agree with the log
 * ------------------------------------------------------------------------ */
/* Entry points only the program calls: a recorder has no business calling them. */
static int is_alloc_api(int id)
{
    switch (id) {
    case FAKECUDA_FN_cuMemAlloc: case FAKECUDA_FN_cuMemAlloc_v2: case FAKECUDA_FN_cuMemFree:
    case FAKECUDA_FN_cuMemFree_v2: case FAKECUDA_FN_cuMemAllocPitch: case FAKECUDA_FN_cuMemAllocPitch_v2:
    case FAKECUDA_FN_cuMemAllocManaged: case FAKECUDA_FN_cuMemAllocAsync: case FAKECUDA_FN_cuMemAllocAsync_ptsz:
    case FAKECUDA_FN_cuMemAllocFromPoolAsync: case FAKECUDA_FN_cuMemAllocFromPoolAsync_ptsz:
    case FAKECUDA_FN_cuMemFreeAsync: case FAKECUDA_FN_cuMemFreeAsync_ptsz: case FAKECUDA_FN_cuMemPoolTrimTo:
    case FAKECUDA_FN_cuMemCreate: case FAKECUDA_FN_cuMemRelease: case FAKECUDA_FN_cuMemMap:
    case FAKECUDA_FN_cuMemUnmap: case FAKECUDA_FN_cuMemAddressReserve: case FAKECUDA_FN_cuMemAddressFree:
    case FAKECUDA_FN_cuMemRetainAllocationHandle: case FAKECUDA_FN_cuMemHostAlloc:
    case FAKECUDA_FN_cuMemAllocHost: case FAKECUDA_FN_cuMemAllocHost_v2: case FAKECUDA_FN_cuMemFreeHost:
    case FAKECUDA_FN_cuArrayCreate: case FAKECUDA_FN_cuArrayCreate_v2: case FAKECUDA_FN_cuArray3DCreate:
    case FAKECUDA_FN_cuArray3DCreate_v2: case FAKECUDA_FN_cuArrayDestroy:
    case FAKECUDA_FN_cuMipmappedArrayCreate: case FAKECUDA_FN_cuMipmappedArrayDestroy:
        return 1;
    default:
        return 0;
    }
}

int tp_finish(void)
{
    if (g_detached) return 0;
    fakecuda_stats_t s = tp_fake_stats();
    int bad = 0;
#define AGREE(what, fake, mine) do { if ((uint64_t)(fake) != (uint64_t)(mine)) { \
        fprintf(stderr, "tp: fake driver counted %llu %s, the program logged %llu\n", \
                (unsigned long long)(fake), what, (unsigned long long)(mine)); bad = 1; } } while (0)
    uint64_t nalloc = 0, nvmm = 0;
    for (int k = 1; k < VT_KIND_ALLOC_MAX; k++) {
        char what[64];
        snprintf(what, sizeof what, "allocations of kind %d", k);
        AGREE(what, s.allocs[k], g_nalloc[k]);
        nalloc += s.allocs[k];
    }
    AGREE("frees", s.free_calls, g_nfree);
    AGREE("OOMs", s.ooms, g_noom);
    AGREE("maps", s.maps, g_nvmm[VT_VMM_MAP]);
    AGREE("unmaps", s.unmaps, g_nvmm[VT_VMM_UNMAP]);
    AGREE("retains", s.retains, g_nvmm[VT_VMM_RETAIN]);
    AGREE("reserves", s.reserves, g_nvmm[VT_VMM_RESERVE]);
    AGREE("address frees", s.address_frees, g_nvmm[VT_VMM_ADDRESS_FREE]);
    AGREE("pool trims", s.pool_trims, g_ntrim);
    /* Looked up, like fakecuda_stats: tp_dl is not linked with the driver. */
    const char *(*fn_name)(int) = (const char *(*)(int))fake_sym("fakecuda_fn_name");
    for (int i = 0; i < FAKECUDA_FN_MAX; i++) {
        if (!is_alloc_api(i)) continue;
        char what[96];
        snprintf(what, sizeof what, "calls of %s", fn_name ? fn_name(i) : "?");
        AGREE(what, s.calls[i], g_calls[i]);
    }
    if (s.errors < g_nfailed) {
        fprintf(stderr, "tp: fake driver counted %llu failed calls, the program made %llu\n",
                (unsigned long long)s.errors, (unsigned long long)g_nfailed);
        bad = 1;
    }
#undef AGREE
    nvmm = s.maps + s.unmaps + s.retains + s.reserves + s.address_frees;
    pthread_mutex_lock(&g_mu);
    logf_locked("X alloc %llu\nX free %llu\nX oom %llu\nX vmm %llu\nX trim %llu\n",
                (unsigned long long)nalloc, (unsigned long long)s.free_calls, (unsigned long long)s.ooms,
                (unsigned long long)nvmm, (unsigned long long)s.pool_trims);
    pthread_mutex_unlock(&g_mu);
    return bad ? 3 : 0;
}

/* ------------------------------------------------------------------------ *
 *  Driver tables
 * ------------------------------------------------------------------------ */
#define FILL(slot, name, fl) do { \
        a->slot.fn = (__typeof__(a->slot.fn))dlsym(handle, #name); \
        a->slot.id = FAKECUDA_FN_##name; a->slot.flags = (fl); \
        if (!a->slot.fn) tp_die("dlsym(%s) failed", #name); } while (0)
#define FILL_SETUP(field, name) do { \
        a->field = (__typeof__(a->field))dlsym(handle, #name); \
        if (!a->field) tp_die("dlsym(%s) failed", #name); } while (0)

int tp_api_from_dlsym(tp_api *a, void *handle)
{
    memset(a, 0, sizeof *a);
    a->mode = "dlsym";
    FILL_SETUP(init, cuInit);
    FILL_SETUP(driver_version, cuDriverGetVersion);
    FILL_SETUP(device_count, cuDeviceGetCount);
    FILL_SETUP(device_name, cuDeviceGetName);
    FILL_SETUP(device_total, cuDeviceTotalMem_v2);
    FILL_SETUP(device_uuid, cuDeviceGetUuid_v2);
    FILL_SETUP(device_attr, cuDeviceGetAttribute);
    FILL_SETUP(mem_info, cuMemGetInfo_v2);
    FILL_SETUP(ctx_set, cuCtxSetCurrent);
    FILL_SETUP(ctx_retain, cuDevicePrimaryCtxRetain);
    FILL_SETUP(default_pool, cuDeviceGetDefaultMemPool);
    FILL_SETUP(granularity, cuMemGetAllocationGranularity);
    FILL_SETUP(stream_create, cuStreamCreate);
    FILL(stream_sync, cuStreamSynchronize, 0);
    FILL(mem_alloc, cuMemAlloc_v2, 0);
    FILL(mem_free, cuMemFree_v2, 0);
    FILL(mem_alloc_v1, cuMemAlloc, 0);
    FILL(mem_free_v1, cuMemFree, 0);
    FILL(mem_alloc_pitch, cuMemAllocPitch_v2, 0);
    FILL(mem_alloc_pitch_v1, cuMemAllocPitch, 0);
    FILL(mem_alloc_managed, cuMemAllocManaged, 0);
    FILL(alloc_async, cuMemAllocAsync, 0);
    FILL(alloc_async_ptsz, cuMemAllocAsync_ptsz, VT_RF_PTDS);
    FILL(alloc_pool, cuMemAllocFromPoolAsync, 0);
    FILL(alloc_pool_ptsz, cuMemAllocFromPoolAsync_ptsz, VT_RF_PTDS);
    FILL(free_async, cuMemFreeAsync, 0);
    FILL(free_async_ptsz, cuMemFreeAsync_ptsz, VT_RF_PTDS);
    FILL(pool_trim, cuMemPoolTrimTo, 0);
    FILL(vmm_create, cuMemCreate, 0);
    FILL(vmm_release, cuMemRelease, 0);
    FILL(vmm_map, cuMemMap, 0);
    FILL(vmm_unmap, cuMemUnmap, 0);
    FILL(vmm_reserve, cuMemAddressReserve, 0);
    FILL(vmm_address_free, cuMemAddressFree, 0);
    FILL(vmm_retain, cuMemRetainAllocationHandle, 0);
    FILL(host_alloc, cuMemHostAlloc, 0);
    FILL(alloc_host, cuMemAllocHost_v2, 0);
    FILL(alloc_host_v1, cuMemAllocHost, 0);
    FILL(free_host, cuMemFreeHost, 0);
    FILL(array_create, cuArrayCreate_v2, 0);
    FILL(array_create_v1, cuArrayCreate, 0);
    FILL(array3d_create, cuArray3DCreate_v2, 0);
    FILL(array3d_create_v1, cuArray3DCreate, 0);
    FILL(array_destroy, cuArrayDestroy, 0);
    FILL(mipmap_create, cuMipmappedArrayCreate, 0);
    FILL(mipmap_destroy, cuMipmappedArrayDestroy, 0);
    return 0;
}
#undef FILL
#undef FILL_SETUP

typedef struct {
    void *gp;
    int v2;
    cuuint64_t flags;
} getproc_ctx;

static void *lookup(const getproc_ctx *g, const char *name, int version)
{
    void *p = NULL;
    CUresult r;
    if (g->v2) {
        CUdriverProcAddressQueryResult st = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
        r = ((PFN_cuGetProcAddress_v12000)g->gp)(name, &p, version, g->flags, &st);
        if (r == CUDA_SUCCESS && st != CU_GET_PROC_ADDRESS_SUCCESS)
            tp_die("cuGetProcAddress_v2(%s, %d): status %d", name, version, (int)st);
    } else {
        r = ((PFN_cuGetProcAddress_v11030)g->gp)(name, &p, version, g->flags);
    }
    if (r != CUDA_SUCCESS || !p) tp_die("cuGetProcAddress(%s, %d, flags %llu) failed: %d", name, version,
                                        (unsigned long long)g->flags, (int)r);
    return p;
}

#define GP(slot, name, version, idname, fl) do { \
        a->slot.fn = (__typeof__(a->slot.fn))lookup(&g, name, version); \
        a->slot.id = FAKECUDA_FN_##idname; a->slot.flags = (fl); } while (0)
#define GP_SETUP(field, name, version) a->field = (__typeof__(a->field))lookup(&g, name, version)

int tp_api_from_getproc(tp_api *a, void *gp, int v2, cuuint64_t flags)
{
    memset(a, 0, sizeof *a);
    a->mode = "getproc";
    getproc_ctx g = { gp, v2, flags };
    const int V = 13000;
    const int ptds = flags == CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM;
    GP_SETUP(init, "cuInit", V);
    GP_SETUP(driver_version, "cuDriverGetVersion", V);
    GP_SETUP(device_count, "cuDeviceGetCount", V);
    GP_SETUP(device_name, "cuDeviceGetName", V);
    GP_SETUP(device_total, "cuDeviceTotalMem", V);
    GP_SETUP(device_uuid, "cuDeviceGetUuid", V);
    GP_SETUP(device_attr, "cuDeviceGetAttribute", V);
    GP_SETUP(mem_info, "cuMemGetInfo", V);
    GP_SETUP(ctx_set, "cuCtxSetCurrent", V);
    GP_SETUP(ctx_retain, "cuDevicePrimaryCtxRetain", V);
    GP_SETUP(default_pool, "cuDeviceGetDefaultMemPool", V);
    GP_SETUP(granularity, "cuMemGetAllocationGranularity", V);
    GP_SETUP(stream_create, "cuStreamCreate", V);
    if (ptds) GP(stream_sync, "cuStreamSynchronize", V, cuStreamSynchronize_ptsz, 0);
    else GP(stream_sync, "cuStreamSynchronize", V, cuStreamSynchronize, 0);
    GP(mem_alloc, "cuMemAlloc", V, cuMemAlloc_v2, 0);
    GP(mem_free, "cuMemFree", V, cuMemFree_v2, 0);
    /* An old requested version resolves to the v1 entry points. */
    GP(mem_alloc_v1, "cuMemAlloc", 3010, cuMemAlloc, 0);
    GP(mem_free_v1, "cuMemFree", 2000, cuMemFree, 0);
    GP(mem_alloc_pitch, "cuMemAllocPitch", 12000, cuMemAllocPitch_v2, 0);
    GP(mem_alloc_pitch_v1, "cuMemAllocPitch", 2000, cuMemAllocPitch, 0);
    GP(mem_alloc_managed, "cuMemAllocManaged", V, cuMemAllocManaged, 0);
    if (ptds) {
        GP(alloc_async_ptsz, "cuMemAllocAsync", V, cuMemAllocAsync_ptsz, VT_RF_PTDS);
        GP(alloc_pool_ptsz, "cuMemAllocFromPoolAsync", V, cuMemAllocFromPoolAsync_ptsz, VT_RF_PTDS);
        GP(free_async_ptsz, "cuMemFreeAsync", V, cuMemFreeAsync_ptsz, VT_RF_PTDS);
    } else {
        GP(alloc_async, "cuMemAllocAsync", V, cuMemAllocAsync, 0);
        GP(alloc_pool, "cuMemAllocFromPoolAsync", V, cuMemAllocFromPoolAsync, 0);
        GP(free_async, "cuMemFreeAsync", V, cuMemFreeAsync, 0);
    }
    GP(pool_trim, "cuMemPoolTrimTo", V, cuMemPoolTrimTo, 0);
    GP(vmm_create, "cuMemCreate", V, cuMemCreate, 0);
    GP(vmm_release, "cuMemRelease", V, cuMemRelease, 0);
    GP(vmm_map, "cuMemMap", V, cuMemMap, 0);
    GP(vmm_unmap, "cuMemUnmap", V, cuMemUnmap, 0);
    GP(vmm_reserve, "cuMemAddressReserve", V, cuMemAddressReserve, 0);
    GP(vmm_address_free, "cuMemAddressFree", V, cuMemAddressFree, 0);
    GP(vmm_retain, "cuMemRetainAllocationHandle", V, cuMemRetainAllocationHandle, 0);
    GP(host_alloc, "cuMemHostAlloc", V, cuMemHostAlloc, 0);
    GP(alloc_host, "cuMemAllocHost", V, cuMemAllocHost_v2, 0);
    GP(alloc_host_v1, "cuMemAllocHost", 3000, cuMemAllocHost, 0);
    GP(free_host, "cuMemFreeHost", V, cuMemFreeHost, 0);
    GP(array_create, "cuArrayCreate", V, cuArrayCreate_v2, 0);
    GP(array_create_v1, "cuArrayCreate", 2000, cuArrayCreate, 0);
    GP(array3d_create, "cuArray3DCreate", V, cuArray3DCreate_v2, 0);
    GP(array3d_create_v1, "cuArray3DCreate", 2000, cuArray3DCreate, 0);
    GP(array_destroy, "cuArrayDestroy", V, cuArrayDestroy, 0);
    GP(mipmap_create, "cuMipmappedArrayCreate", V, cuMipmappedArrayCreate, 0);
    GP(mipmap_destroy, "cuMipmappedArrayDestroy", V, cuMipmappedArrayDestroy, 0);

    /* The lookups that fail must still fail, the same way (as driver 580.159.04 does:
     * v2 returns CUDA_SUCCESS with NULL and a status, v1 CUDA_ERROR_NOT_FOUND). */
    void *p = (void *)1;
    if (v2) {
        CUdriverProcAddressQueryResult st = CU_GET_PROC_ADDRESS_SUCCESS;
        CUresult r = ((PFN_cuGetProcAddress_v12000)gp)("cuMemAllocAsync", &p, 11000, flags, &st);
        if (r != CUDA_SUCCESS || p != NULL || st != CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT)
            tp_die("cuGetProcAddress_v2(cuMemAllocAsync, 11000): got %d, %p, status %d", (int)r, p, (int)st);
        p = (void *)1;
        r = ((PFN_cuGetProcAddress_v12000)gp)("cuNoSuchFunction", &p, V, flags, &st);
        if (r != CUDA_SUCCESS || p != NULL || st != CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND)
            tp_die("cuGetProcAddress_v2(cuNoSuchFunction): got %d, %p, status %d", (int)r, p, (int)st);
    } else {
        CUresult r = ((PFN_cuGetProcAddress_v11030)gp)("cuNoSuchFunction", &p, V, flags);
        if (r != CUDA_ERROR_NOT_FOUND || p != (void *)1)
            tp_die("cuGetProcAddress(cuNoSuchFunction): got %d, %p", (int)r, p);
        tp_failed_call();
    }
    return 0;
}
