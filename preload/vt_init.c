// SPDX-License-Identifier: MIT
/* vt_init.c - the recorder's life: constructor, lazy start at the first event, fork,
 * and the orderly stop at exit.
 *
 * Lifecycle (vt_g.state):
 *   constructor     OFF (bad config, VRAMTRACE_DISABLE=1) or IDLE
 *   first event     IDLE -> STARTING -> ACTIVE: ring and stack tables mapped, the file
 *                   created and its header written, the writer thread started. A
 *                   process that never allocates leaves no file.
 *   write error     -> OFF (the writer warns once and closes the file)
 *   exit, _exit     ACTIVE -> STOPPED: the writer drains, writes the trailer, closes
 *   fatal signal,   the writer drains and writes what is queued (vt_ends.c); tracing
 *   exec            goes on (the program may survive the signal, the exec may fail)
 *   fork child      -> OFF, without touching anything the parent owns
 * Wrappers test the state with one load; below IDLE they are plain pass-throughs. */
#include "vt_init.h"
#include "vt_config.h"
#include "vt_dlsym.h"
#include "vt_elf.h"
#include "vt_ends.h"
#include "vt_env.h"
#include "vt_format.h"
#include "vt_global.h"
#include "vt_out.h"
#include "vt_py.h"
#include "vt_record.h"
#include "vt_ring.h"
#include "vt_scope.h"
#include "vt_stack.h"
#include "vt_stats.h"
#include "vt_tsc.h"
#include "vt_writer.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

/* Serializes the one start of the trace; never held across a driver or loader call. */
static pthread_mutex_t vt_start_mu = PTHREAD_MUTEX_INITIALIZER;
/* The exit path runs once (destructor or atexit, whichever comes first). */
static _Atomic int vt_finished;
static int vt_writer_running;

/* ------------------------------------------------------------------------ *
 *  Our own extent: frames and pointers inside it are the recorder's
 * ------------------------------------------------------------------------ */
static int self_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
    uintptr_t probe = (uintptr_t)arg;
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD) continue;
        uintptr_t a = info->dlpi_addr + ph->p_vaddr;
        if (a < lo) lo = a;
        if (a + ph->p_memsz > hi) hi = a + ph->p_memsz;
    }
    if (probe >= lo && probe < hi) {
        vt_g.self_lo = lo;
        vt_g.self_hi = hi;
        return 1;
    }
    (void)size;
    return 0;
}

/* ------------------------------------------------------------------------ *
 *  Start: the first event
 * ------------------------------------------------------------------------ */
static int read_file(const char *path, char *buf, size_t n)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, buf + got, n - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        got += (size_t)r;
    }
    close(fd);
    return (int)got;
}

static int write_header(void)
{
    char host[256] = "", exe[VT_PATH_MAX] = "";
    static char cmd[65536];  /* start path only, under vt_start_mu */
    if (gethostname(host, sizeof host - 1) != 0) host[0] = 0;
    host[sizeof host - 1] = 0;
    ssize_t el = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[el > 0 ? el : 0] = 0;
    int cl = read_file("/proc/self/cmdline", cmd, sizeof cmd);
    if (cl > 0 && cmd[cl - 1] == 0) cl--;   /* argv joined by NUL: no trailing one */

    uint32_t lens[3] = { (uint32_t)strlen(host), (uint32_t)strlen(exe), (uint32_t)cl };
    vt_file_header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, VT_MAGIC, VT_MAGIC_LEN);
    h.version_major = VT_VERSION_MAJOR;
    h.version_minor = VT_VERSION_MINOR;
    h.header_size = (uint32_t)(sizeof h + 12 + lens[0] + lens[1] + lens[2]);
    h.pid = (uint32_t)getpid();
    h.ppid = (uint32_t)getppid();
    h.start_realtime_ns = vt_g.start_real_ns;
    h.start_monotonic_ns = vt_g.start_mono_ns;
    h.stack_depth = (uint32_t)vt_g.cfg.depth;
    h.rank = vt_g.cfg.rank;
    h.flags = (vt_g.cfg.free_stacks ? VT_HDR_FREE_STACKS : 0) | VT_HDR_LOCAL_RANK;
    /* a rank on one node fits 16 bits; a value that does not is no rank we can name */
    h.local_rank = (int16_t)(vt_g.cfg.local_rank >= -1 && vt_g.cfg.local_rank <= INT16_MAX ? vt_g.cfg.local_rank : -1);
    h.arch = VT_ARCH_HOST;

    if (vt_out_write(&h, sizeof h)) return -1;
    const char *blobs[3] = { host, exe, cmd };
    for (int i = 0; i < 3; i++)
        if (vt_out_write(&lens[i], 4) || vt_out_write(blobs[i], lens[i])) return -1;
    return 0;
}

static int start_locked(void)
{
    if (vt_ring_init(vt_g.cfg.ring_slots) || vt_stack_init()) {
        vt_warn("cannot map the event ring or the stack tables; tracing disabled");
        return -1;
    }
    char want[VT_PATH_MAX];
    if (vt_env_expand(&vt_g.cfg, want, sizeof want)) {
        vt_warn("output path too long; tracing disabled");
        return -1;
    }
    int renamed, quiet;
    if (vt_out_create(want, vt_g.cfg.readable, vt_g.path, sizeof vt_g.path, &renamed, &quiet) < 0) {
        vt_warn("cannot create %s: %s; tracing disabled", want,
                errno == EEXIST ? "it and 99 numbered names exist" : strerror(errno));
        return -1;
    }
    /* An exec chain in one pid finds its earlier image's trace: no warning for that. */
    if (renamed && !quiet) vt_warn("%s exists; it is left alone and the trace goes to %s", want, vt_g.path);
    if (write_header()) {
        vt_warn("cannot write %s: %s; tracing disabled", vt_g.path, strerror(errno));
        vt_out_close();
        return -1;
    }
    vt_py_try_init();  /* a Python process: its frames go into the stacks */
    vt_g.tsc = vt_tsc_usable();  /* before the first event is stamped (vt_tsc.c) */
    if (vt_writer_start()) {
        vt_warn("cannot start the writer thread; tracing disabled");
        vt_out_close();
        return -1;
    }
    vt_writer_running = 1;
    return 0;
}

int vt_start(void)
{
    int st = atomic_load_explicit(&vt_g.state, memory_order_acquire);
    if (st == VT_ST_ACTIVE) return 1;
    if (st < VT_ST_IDLE) return 0;
    pthread_mutex_lock(&vt_start_mu);
    st = atomic_load_explicit(&vt_g.state, memory_order_acquire);
    if (st == VT_ST_IDLE) {
        atomic_store_explicit(&vt_g.state, VT_ST_STARTING, memory_order_release);
        int ok = start_locked() == 0;
        /* The ACTIVE store publishes the ring and the tables to the producers. */
        atomic_store_explicit(&vt_g.state, ok ? VT_ST_ACTIVE : VT_ST_OFF, memory_order_release);
        st = ok ? VT_ST_ACTIVE : VT_ST_OFF;
    }
    pthread_mutex_unlock(&vt_start_mu);
    if (st == VT_ST_ACTIVE) vt_rec_devices();  /* when cuInit went by unseen */
    return st == VT_ST_ACTIVE;
}

void vt_disable(void)
{
    atomic_store_explicit(&vt_g.state, VT_ST_OFF, memory_order_release);
}

/* ------------------------------------------------------------------------ *
 *  Exit
 * ------------------------------------------------------------------------ */
static void vt_finish(void)
{
    if (atomic_exchange(&vt_finished, 1)) return;
    if (atomic_load(&vt_g.forked)) return;
    /* A start in progress on another thread finishes first (it takes no time). */
    pthread_mutex_lock(&vt_start_mu);
    int expect = VT_ST_ACTIVE;
    atomic_compare_exchange_strong(&vt_g.state, &expect, VT_ST_STOPPED);
    if (expect == VT_ST_IDLE) atomic_store(&vt_g.state, VT_ST_STOPPED);
    int running = vt_writer_running;
    pthread_mutex_unlock(&vt_start_mu);
    if (running) vt_writer_stop(1);
    if (running) vt_stats_print();
}

/* _exit/_Exit (vt_ends.c): the same end, but async-signal-safe (it may run in a signal
 * handler): no lock, no join; a start in progress is left as it is. */
void vt_finish_now(void)
{
    if (atomic_load(&vt_g.forked) || getpid() != vt_g.pid) return;
    if (atomic_exchange(&vt_finished, 1)) return;
    int expect = VT_ST_ACTIVE;
    if (atomic_compare_exchange_strong(&vt_g.state, &expect, VT_ST_STOPPED)) vt_writer_stop(0);
    else if (expect == VT_ST_IDLE) atomic_store(&vt_g.state, VT_ST_STOPPED);
}

static void vt_atexit(void) { vt_finish(); }

__attribute__((destructor)) static void vt_destructor(void) { vt_finish(); }

/* ------------------------------------------------------------------------ *
 *  Fork: the child stops tracing. It must not touch the parent's file, writer (not
 *  copied into the child), ring or locks (another parent thread may have held one at
 *  the fork): so it only flips two flags.
 * ------------------------------------------------------------------------ */
static void vt_fork_child(void)
{
    atomic_store(&vt_g.forked, 1);
    atomic_store(&vt_g.state, VT_ST_OFF);
    vt_tls.tid = 0;
}

/* ------------------------------------------------------------------------ *
 *  Constructor
 * ------------------------------------------------------------------------ */
__attribute__((constructor)) static void vt_constructor(void)
{
    struct timespec m, r;
    clock_gettime(CLOCK_MONOTONIC, &m);
    clock_gettime(CLOCK_REALTIME, &r);
    vt_g.start_mono_ns = (uint64_t)m.tv_sec * 1000000000ull + (uint64_t)m.tv_nsec;
    vt_g.start_real_ns = (uint64_t)r.tv_sec * 1000000000ull + (uint64_t)r.tv_nsec;
    vt_g.pid = getpid();
    vt_ends_init();
    /* A setuid or setgid program (the loader only preloads us from a system folder
     * then): writing a file chosen by the invoking user with the program's rights would
     * be a hole. Say so once and stay out. */
    if (getauxval(AT_SECURE)) {
        vt_warn("setuid/setgid program (AT_SECURE): not traced");
        atomic_store(&vt_g.state, VT_ST_OFF);
        return;
    }
    dl_iterate_phdr(self_cb, (void *)(uintptr_t)&vt_constructor);
    vt_elf_init();
    (void)vt_real_dlsym(RTLD_DEFAULT, "");  /* resolves glibc's dlsym before threads exist */
    dlerror();

    if (vt_env_parse(&vt_g.cfg) || vt_g.cfg.disable || !vt_g.self_hi) {
        atomic_store(&vt_g.state, VT_ST_OFF);
        return;
    }
    vt_g.lookups_on = 1;
    vt_scope_init();
    vt_py_init();
    pthread_atfork(NULL, NULL, vt_fork_child);
    atexit(vt_atexit);
    vt_ends_arm();
    atomic_store(&vt_g.state, VT_ST_IDLE);
}
