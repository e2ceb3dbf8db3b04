/* vt_writer.c - the writer thread: drains the side buffer and the ring, encodes
 * records (vt_codec), compresses chunks (zstd, with checksums), writes them.
 *
 * Everything that costs more than a few nanoseconds happens here, off the allocating
 * threads: encoding, compression, module scans, NVML sampling and I/O.
 *
 * One cycle, in this order (the order is what makes every reference resolvable when
 * the file is read front to back):
 *   1. snapshot the ring's head H;
 *   2. take the side buffer: it holds the stack nodes and thread names of every event
 *      before H (a producer queues them before it claims its ring slot);
 *   3. check the loaded modules: the modules of those stack nodes were loaded before
 *      the nodes were queued, so they are seen now;
 *   4. encode MODULE, then the side records, then the ring events up to H.
 * A chunk is cut when its raw bytes pass VT_CHUNK_SOFT or VRAMTRACE_FLUSH_MS has passed
 * since the last flush. Each chunk goes out as one write() (looping on short writes), so
 * a killed process leaves a file that reads to its last chunk. A write error stops
 * tracing for good (one warning); the program runs on untraced. */
#include "vt_internal.h"
#include "vt_codec.h"

#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <zstd.h>

#define VT_CHUNK_SOFT  (1u << 20)   /* cut a chunk past 1 MiB of raw records */
#define VT_CHUNK_CAP   (4u << 20)   /* never more than this (well under VT_CHUNK_MAX_RAW) */
#define VT_CYCLE_MS    10
#define VT_JOIN_NS     2000000000ll /* exit waits at most 2 s for the writer */
#define VT_POP_WAIT_NS 1000000ull   /* a claimed-but-unwritten slot is waited for 1 ms */

/* Writer state: one writer thread per process. wake and stop are the only fields
 * other threads touch. */
static struct {
    pthread_t      th;
    int            fd;
    _Atomic uint32_t wake;  /* futex word: bumped to wake the writer */
    _Atomic int    stop;
    _Atomic int    done;    /* the thread has finished (for the timed join) */
    int            failed;
    ZSTD_CCtx     *cctx;
    vt_codec       codec;
    uint8_t       *raw;
    size_t         raw_len;
    uint32_t       nrec;
    uint64_t       base_time;
    uint8_t       *out;
    size_t         out_cap;
    uint64_t       last_flush;
    uint64_t       counts[VT_REC_TYPE_MAX];
    uint64_t       lost_reported;
} vt_w;

/* ------------------------------------------------------------------------ *
 *  Wake-ups (any thread)
 * ------------------------------------------------------------------------ */
void vt_writer_wake(void)
{
    atomic_fetch_add_explicit(&vt_w.wake, 1, memory_order_release);
    syscall(SYS_futex, &vt_w.wake, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void wait_ms(uint32_t seen, int ms)
{
    if (ms <= 0) return;
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    syscall(SYS_futex, &vt_w.wake, FUTEX_WAIT_PRIVATE, seen, &ts, NULL, 0);
}

/* ------------------------------------------------------------------------ *
 *  Chunks
 * ------------------------------------------------------------------------ */
static int write_all(int fd, const uint8_t *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) return -1;
        if (w == 0) { errno = EIO; return -1; }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static void fail(const char *what, int err)
{
    if (vt_w.failed) return;
    vt_w.failed = 1;
    vt_disable();
    vt_warn("%s %s: %s; tracing stopped, the program continues untraced", what, vt_g.path, strerror(err));
    close(vt_w.fd);
    vt_w.fd = -1;
}

static void flush(void)
{
    if (!vt_w.nrec || vt_w.failed) return;
    vt_chunk_header h = { VT_CHUNK_MAGIC, 0, (uint32_t)vt_w.raw_len, vt_w.nrec, vt_w.base_time };
    uint64_t t0 = vt_g.cfg.stats ? vt_now_abs() : 0;
    size_t c = ZSTD_compress2(vt_w.cctx, vt_w.out + sizeof h, vt_w.out_cap - sizeof h, vt_w.raw, vt_w.raw_len);
    if (ZSTD_isError(c)) { fail("cannot compress a chunk of", EINVAL); return; }
    h.comp_size = (uint32_t)c;
    memcpy(vt_w.out, &h, sizeof h);
    if (write_all(vt_w.fd, vt_w.out, sizeof h + c)) { fail("cannot write", errno); return; }
    vt_w.raw_len = 0;
    vt_w.nrec = 0;
    vt_w.last_flush = vt_now();
    if (vt_g.cfg.stats) {
        vt_stats_add(VT_STAT_NS_FLUSH, vt_w.last_flush + vt_g.start_mono_ns - t0);
        vt_stats_add(VT_STAT_N_FLUSH, 1);
    }
}

void vt_writer_emit(const vt_rec *r)
{
    if (vt_w.failed) return;
    size_t bound = vt_codec_bound(r);
    if (vt_w.raw_len + bound > VT_CHUNK_CAP) flush();
    if (vt_w.failed || bound > VT_CHUNK_CAP) return;
    if (vt_w.nrec == 0) {
        vt_w.base_time = vt_now();
        vt_codec_reset(&vt_w.codec, vt_w.base_time);
    }
    vt_w.raw_len += vt_codec_encode(&vt_w.codec, r, vt_w.raw + vt_w.raw_len);
    vt_w.nrec++;
    if (r->type < VT_REC_TYPE_MAX) vt_w.counts[r->type]++;
}

/* ------------------------------------------------------------------------ *
 *  Draining
 * ------------------------------------------------------------------------ */
static void ev_to_rec(const vt_ev *e, vt_rec *r)
{
    memset(r, 0, sizeof *r);
    r->type = e->type; r->kind = e->kind; r->device = e->device; r->flags = e->flags;
    r->tid = e->tid; r->stack_id = e->stack_id; r->time_ns = e->time;
    switch (e->type) {
    case VT_REC_ALLOC: case VT_REC_FREE:
        r->addr = e->a; r->size = e->b; r->stream = e->c;
        break;
    case VT_REC_OOM:
        r->aux0 = e->a; r->size = e->b; r->stream = e->c; r->aux1 = e->d;
        break;
    case VT_REC_VMM:
        r->addr = e->a; r->size = e->b; r->aux0 = e->c; r->aux1 = e->d;
        break;
    case VT_REC_POOL_TRIM:
        r->addr = e->a; r->size = e->b;
        break;
    case VT_REC_ANNOTATE:
        r->addr = e->a; r->size = e->b; r->aux0 = e->c; r->aux1 = e->d;
        break;
    default:
        break;
    }
}

static void cycle(void)
{
    uint64_t head = vt_ring_head();
    uint8_t *side;
    size_t side_len = vt_side_take(&side);
    vt_module_check();

    vt_rec r;
    const uint8_t *p = side, *end = side + side_len;
    while (side_len && (p = vt_side_next(p, end, &r)) != NULL) vt_writer_emit(&r);

    vt_ev e;
    uint64_t wait_from = 0;
    for (;;) {
        int got = vt_ring_pop(&e, head);
        if (got == 1) {
            vt_rec er;
            ev_to_rec(&e, &er);
            vt_writer_emit(&er);
            wait_from = 0;
            continue;
        }
        if (got == 0) break;
        /* A producer claimed the slot and has not written it yet: it is a few
         * instructions from done, unless it was descheduled. Wait a little, then
         * leave it to the next cycle. */
        if (!wait_from) wait_from = vt_now_abs();
        else if (vt_now_abs() - wait_from > VT_POP_WAIT_NS) break;
        sched_yield();
    }

    uint64_t lost = vt_ring_lost() + vt_side_dropped();
    if (lost != vt_w.lost_reported) {
        vt_rec l = { .type = VT_REC_LOST, .device = -1, .time_ns = vt_now(), .size = lost - vt_w.lost_reported };
        vt_writer_emit(&l);
        vt_w.lost_reported = lost;
    }
}

/* ------------------------------------------------------------------------ *
 *  The thread
 * ------------------------------------------------------------------------ */
static int cycle_ms(void)
{
    int ms = VT_CYCLE_MS;
    if (vt_g.cfg.flush_ms < ms) ms = vt_g.cfg.flush_ms;
    if (vt_g.cfg.nvml_ms > 0 && vt_g.cfg.nvml_ms < ms) ms = vt_g.cfg.nvml_ms;
    return ms;
}

static void *writer_main(void *arg)
{
    (void)arg;
    vt_tls.in_hook = 1;  /* nothing this thread does is the program's */
    int ms = cycle_ms();
    for (;;) {
        uint32_t seen = atomic_load_explicit(&vt_w.wake, memory_order_acquire);
        if (atomic_load(&vt_w.stop) || vt_w.failed) break;
        vt_nvml_sample(vt_now());
        cycle();
        uint64_t now = vt_now();
        if (vt_w.raw_len >= VT_CHUNK_SOFT
            || (vt_w.nrec && now - vt_w.last_flush >= (uint64_t)vt_g.cfg.flush_ms * 1000000u))
            flush();
        if (atomic_load(&vt_w.stop) || vt_w.failed) break;
        int due = vt_nvml_due_in_ms(vt_now());
        wait_ms(seen, due < ms ? (due > 0 ? due : 1) : ms);
    }
    if (!vt_w.failed) {
        cycle();
        vt_rec t = { .type = VT_REC_TRAILER, .device = -1, .time_ns = vt_now(), .flags = 1 };
        uint64_t counts[VT_REC_TYPE_MAX];
        memcpy(counts, vt_w.counts, sizeof counts);  /* the records before the trailer */
        t.counts = counts;
        vt_writer_emit(&t);
        flush();
        if (!vt_w.failed) {
            uint64_t lost = vt_ring_lost() + vt_side_dropped(), nostack = vt_stack_dropped();
            if (lost) vt_warn("%llu events were dropped (the writer fell behind)", (unsigned long long)lost);
            if (nostack) vt_warn("%llu events have no stack (stack tables full)", (unsigned long long)nostack);
            uint64_t nostr = vt_str_dropped();
            if (nostr) vt_warn("%llu scope or Python names were left out (string table full)", (unsigned long long)nostr);
            if (close(vt_w.fd) != 0) vt_warn("closing %s: %s", vt_g.path, strerror(errno));
            vt_w.fd = -1;
        }
    }
    atomic_store(&vt_w.done, 1);
    return NULL;
}

int vt_writer_start(int fd)
{
    vt_w.fd = fd;
    vt_w.cctx = ZSTD_createCCtx();
    vt_w.raw = malloc(VT_CHUNK_CAP + 4096);
    vt_w.out_cap = ZSTD_compressBound(VT_CHUNK_CAP) + sizeof(vt_chunk_header);
    vt_w.out = malloc(vt_w.out_cap);
    if (!vt_w.cctx || !vt_w.raw || !vt_w.out) return -1;
    ZSTD_CCtx_setParameter(vt_w.cctx, ZSTD_c_compressionLevel, vt_g.cfg.zstd_level);
    ZSTD_CCtx_setParameter(vt_w.cctx, ZSTD_c_checksumFlag, 1);
    vt_w.last_flush = vt_now();

    /* The writer must never receive the program's signals. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&vt_w.th, NULL, writer_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc) return -1;
    pthread_setname_np(vt_w.th, "vramtrace");
    return 0;
}

void vt_writer_stop(void)
{
    atomic_store(&vt_w.stop, 1);
    vt_writer_wake();
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += VT_JOIN_NS / 1000000000ll;
    /* A writer stuck in write() (a hung network file system) must not hang the exit. */
    if (pthread_timedjoin_np(vt_w.th, NULL, &ts) != 0)
        vt_warn("the writer did not finish in time; %s may lack its last chunk", vt_g.path);
}
