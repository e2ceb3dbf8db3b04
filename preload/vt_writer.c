// SPDX-License-Identifier: MIT
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
 * a killed process leaves a file that reads to its last chunk; inside a chunk the zstd
 * frame is flushed every VT_BLOCK_RAW bytes of records, so a chunk cut short (a full
 * disk, a crash in the middle of the write) still holds whole zstd blocks that a
 * streaming reader can decode. A write error stops tracing for good (one warning that
 * says what the file keeps); the program runs on untraced.
 *
 * Other threads may ask for a sync (vt_writer_sync: a fatal signal, exec): the writer
 * drains everything queued before the request, writes it, and says so through a futex
 * word; the asking side uses only atomics and futexes, so a signal handler may ask. */
#include "vt_writer.h"
#include "vt_codec.h"
#include "vt_config.h"
#include "vt_format.h"
#include "vt_global.h"
#include "vt_init.h"
#include "vt_module.h"
#include "vt_nvml.h"
#include "vt_out.h"
#include "vt_ring.h"
#include "vt_side.h"
#include "vt_stack.h"
#include "vt_stats.h"
#include "vt_str.h"
#include "vt_tsc.h"

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
#define VT_BLOCK_RAW   (32u << 10)  /* zstd flush points inside a chunk (see the top) */
#define VT_STALL_NS    2000000000ull /* exit or sync: give up after 2 s without progress */
#define VT_POP_WAIT_NS 1000000ull   /* a claimed-but-unwritten slot is waited for 1 ms */

/* Writer state: one writer thread per process. stop, done, the sync words and
 * the progress counters are the only fields other threads touch. */
static struct {
    pthread_t      th;
    _Atomic uint32_t tid;   /* the writer's thread id: it never waits for itself */
    _Atomic int    stop;
    _Atomic uint32_t done;  /* futex word: 1 once the thread has finished */
    _Atomic uint32_t sync_req;  /* bumped by a thread that asks for a sync */
    _Atomic uint32_t sync_done; /* futex word: the last request served */
    _Atomic uint64_t written;   /* ring events in chunks written whole */
    _Atomic uint64_t progress;  /* bumped at each chunk written (the waiters' clock) */
    uint64_t       chunk_events;/* ring events in the chunk being built */
    uint64_t       chunks;      /* chunks written whole */
    uint64_t       defer_since; /* a chunk waits for a free descriptor since then */
    _Atomic int    failed;
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
    vt_tsc_line    clock;       /* event times in TSC ticks -> ns (vt_g.tsc) */
} vt_w;

/* ------------------------------------------------------------------------ *
 *  Chunks
 * ------------------------------------------------------------------------ */
/* The one warning of a write error: what the file keeps, and that tracing stops. */
static void fail(const char *what, int err)
{
    if (vt_w.failed) return;
    atomic_store(&vt_w.failed, 1);
    vt_ring_consumer(0);
    vt_disable();
    unsigned long long ev = (unsigned long long)atomic_load(&vt_w.written), ch = (unsigned long long)vt_w.chunks;
    if (err == ENOSPC || err == EDQUOT)
        vt_warn("%s %s: %s: the trace keeps its first %llu events (%llu complete chunks); later events are "
                "not recorded, the program continues untraced", what, vt_g.path, strerror(err), ev, ch);
    else if (err == ESTALE)
        vt_warn("%s %s: the file was removed or replaced; the trace keeps its first %llu events; later events "
                "are not recorded, the program continues untraced", what, vt_g.path, ev);
    else
        vt_warn("%s %s: %s; the trace keeps its first %llu events; tracing stopped, the program continues "
                "untraced", what, vt_g.path, strerror(err), ev);
    vt_out_close();
}

/* Compresses raw[0, len) into one zstd frame at out (cap bytes), with a flush point every
 * VT_BLOCK_RAW bytes. Returns the frame's size, or 0 on error. */
static size_t compress_chunk(size_t len, uint8_t *out, size_t cap)
{
    ZSTD_CCtx *c = vt_w.cctx;
    ZSTD_CCtx_reset(c, ZSTD_reset_session_only);
    if (ZSTD_isError(ZSTD_CCtx_setPledgedSrcSize(c, len))) return 0;
    ZSTD_outBuffer o = { out, cap, 0 };
    ZSTD_inBuffer in = { vt_w.raw, 0, 0 };
    for (;;) {
        in.size = in.pos + VT_BLOCK_RAW < len ? in.pos + VT_BLOCK_RAW : len;
        ZSTD_EndDirective how = in.size == len ? ZSTD_e_end : ZSTD_e_flush;
        size_t left;
        do {
            left = ZSTD_compressStream2(c, &o, &in, how);
            if (ZSTD_isError(left) || (left && o.pos == o.size)) return 0;  /* no room: an error */
        } while (left != 0 || in.pos < in.size);
        if (how == ZSTD_e_end) return o.pos;
    }
}

/* Writes the chunk being built. Returns 0 when it went out (or tracing has failed), -1
 * when it must be tried again: the program holds every descriptor number, so the file
 * could not be reopened (vt_out.h). After VT_STALL_NS of that, tracing stops. */
static int flush(void)
{
    if (!vt_w.nrec || vt_w.failed) return 0;
    vt_chunk_header h = { VT_CHUNK_MAGIC, 0, (uint32_t)vt_w.raw_len, vt_w.nrec, vt_w.base_time };
    uint64_t t0 = vt_g.cfg.stats ? vt_now_abs() : 0;
    size_t c = compress_chunk(vt_w.raw_len, vt_w.out + sizeof h, vt_w.out_cap - sizeof h);
    if (!c) { fail("cannot compress a chunk of", EINVAL); return 0; }
    h.comp_size = (uint32_t)c;
    memcpy(vt_w.out, &h, sizeof h);
    if (vt_out_write(vt_w.out, sizeof h + c)) {
        uint64_t now = vt_now_abs();
        if (errno != EMFILE) { fail("cannot write", errno); return 0; }
        if (!vt_w.defer_since) vt_w.defer_since = now;
        if (now - vt_w.defer_since > VT_STALL_NS) { fail("cannot reopen", EMFILE); return 0; }
        return -1;
    }
    vt_w.defer_since = 0;
    atomic_fetch_add(&vt_w.written, vt_w.chunk_events);
    atomic_fetch_add(&vt_w.progress, 1);
    vt_w.chunks++;
    vt_w.chunk_events = 0;
    vt_w.raw_len = 0;
    vt_w.nrec = 0;
    vt_w.last_flush = vt_now();
    if (vt_g.cfg.stats) {
        vt_stats_add(VT_STAT_NS_FLUSH, vt_w.last_flush + vt_g.start_mono_ns - t0);
        vt_stats_add(VT_STAT_N_FLUSH, 1);
    }
    return 0;
}

/* Flushes until the chunk went out or tracing failed (a full chunk, the end). */
static void flush_hard(void)
{
    while (flush() != 0) {
        struct timespec ts = { 0, 1000000L };
        nanosleep(&ts, NULL);
    }
}

void vt_writer_emit(const vt_rec *r)
{
    if (vt_w.failed) return;
    size_t bound = vt_codec_bound(r);
    if (vt_w.raw_len + bound > VT_CHUNK_CAP) flush_hard();
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
static void ev_to_rec(const vt_ring_ev *e, vt_rec *r)
{
    memset(r, 0, sizeof *r);
    r->type = e->type; r->kind = e->kind; r->device = e->device; r->flags = e->flags;
    r->tid = e->tid; r->stack_id = e->stack_id;
    r->time_ns = vt_g.tsc ? vt_tsc_ns(&vt_w.clock, e->time) : e->time;
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
    if (vt_g.tsc) vt_tsc_advance(&vt_w.clock);  /* after head: every event up to it is stamped */
    uint8_t *side;
    size_t side_len = vt_side_take(&side);
    vt_module_check(vt_writer_emit);

    vt_rec r;
    const uint8_t *p = side, *end = side + side_len;
    while (side_len && (p = vt_side_next(p, end, &r)) != NULL) vt_writer_emit(&r);

    vt_ring_ev e;
    uint64_t wait_from = 0;
    for (;;) {
        int got = vt_ring_pop(&e, head);
        if (got == 1) {
            vt_rec er;
            ev_to_rec(&e, &er);
            vt_writer_emit(&er);
            vt_w.chunk_events++;
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
    if (vt_g.tsc) vt_tsc_commit(&vt_w.clock);

    vt_ring_notify();
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

/* Serves a sync request made before this point: everything queued goes out now. */
static void serve_sync(uint32_t req)
{
    cycle();
    flush_hard();
    atomic_store_explicit(&vt_w.sync_done, req, memory_order_release);
    syscall(SYS_futex, &vt_w.sync_done, FUTEX_WAKE_PRIVATE, 0x7fffffff, NULL, NULL, 0);
}

static void *writer_main(void *arg)
{
    (void)arg;
    vt_tls.in_hook = 1;  /* nothing this thread does is the program's */
    atomic_store(&vt_w.tid, (uint32_t)syscall(SYS_gettid));
    if (vt_g.tsc) vt_tsc_start(&vt_w.clock);
    int ms = cycle_ms();
    for (;;) {
        uint32_t seen = vt_ring_bell();
        if (atomic_load(&vt_w.stop) || vt_w.failed) break;
        uint32_t req = atomic_load_explicit(&vt_w.sync_req, memory_order_acquire);
        if (req != atomic_load_explicit(&vt_w.sync_done, memory_order_relaxed)) { serve_sync(req); continue; }
        vt_nvml_sample(vt_now(), vt_writer_emit);
        cycle();
        uint64_t now = vt_now();
        if (vt_w.raw_len >= VT_CHUNK_SOFT
            || (vt_w.nrec && now - vt_w.last_flush >= (uint64_t)vt_g.cfg.flush_ms * 1000000u))
            flush();
        if (atomic_load(&vt_w.stop) || vt_w.failed) break;
        int due = vt_nvml_due_in_ms(vt_now());
        vt_ring_wait(seen, due < ms ? (due > 0 ? due : 1) : ms);
    }
    if (!vt_w.failed) {
        cycle();
        vt_rec t = { .type = VT_REC_TRAILER, .device = -1, .time_ns = vt_now(), .flags = 1 };
        uint64_t counts[VT_REC_TYPE_MAX];
        memcpy(counts, vt_w.counts, sizeof counts);  /* the records before the trailer */
        t.counts = counts;
        vt_writer_emit(&t);
        flush_hard();
        if (!vt_w.failed) {
            uint64_t lost = vt_ring_lost() + vt_side_dropped(), nostack = vt_stack_dropped();
            if (lost)
                vt_warn("%llu events were dropped (%s); the trace's LOST records count them",
                        (unsigned long long)lost, vt_g.cfg.drop_ms ? "VRAMTRACE_DROP_MS" : "the writer was stuck");
            if (nostack) vt_warn("%llu events have no stack (stack tables full)", (unsigned long long)nostack);
            uint64_t nostr = vt_str_dropped();
            if (nostr) vt_warn("%llu scope or Python names were left out (string table full)", (unsigned long long)nostr);
            if (vt_out_close() != 0) vt_warn("closing %s: %s", vt_g.path, strerror(errno));
        }
    }
    /* A sync asked for while the thread was ending is answered too. */
    atomic_store_explicit(&vt_w.sync_done, atomic_load(&vt_w.sync_req), memory_order_release);
    syscall(SYS_futex, &vt_w.sync_done, FUTEX_WAKE_PRIVATE, 0x7fffffff, NULL, NULL, 0);
    vt_ring_consumer(0);
    atomic_store(&vt_w.done, 1);
    syscall(SYS_futex, &vt_w.done, FUTEX_WAKE_PRIVATE, 0x7fffffff, NULL, NULL, 0);
    return NULL;
}

static int vt_writer_alive(void)
{
    return vt_w.cctx && !atomic_load_explicit(&vt_w.done, memory_order_relaxed)
           && !atomic_load_explicit(&vt_w.failed, memory_order_relaxed);
}

/* Waits on the futex word *w until pred says done, or until the writer has written
 * nothing for VT_STALL_NS. Async-signal-safe. Returns 1 when done. */
static int wait_progress(_Atomic uint32_t *w, int (*pred)(uint32_t), uint32_t arg)
{
    uint64_t last = atomic_load(&vt_w.progress), at = vt_now_abs();
    for (;;) {
        uint32_t v = atomic_load_explicit(w, memory_order_acquire);
        if (pred(v - arg)) return 1;
        if (atomic_load(&vt_w.done)) return pred(atomic_load(w) - arg);
        uint64_t p = atomic_load(&vt_w.progress), now = vt_now_abs();
        if (p != last) { last = p; at = now; }
        else if (now - at > VT_STALL_NS) return 0;
        struct timespec ts = { 0, 10000000L };
        syscall(SYS_futex, w, FUTEX_WAIT_PRIVATE, v, &ts, NULL, 0);
    }
}

static int sync_served(uint32_t d) { return (int32_t)d >= 0; }  /* sync_done - req >= 0 */
static int is_done(uint32_t d) { return d != 0; }

int vt_writer_sync(void)
{
    if (!vt_writer_alive() || (uint32_t)syscall(SYS_gettid) == atomic_load(&vt_w.tid)) return -1;
    uint32_t req = atomic_fetch_add(&vt_w.sync_req, 1) + 1;
    vt_ring_wake();
    return wait_progress(&vt_w.sync_done, sync_served, req) ? 0 : -1;
}

int vt_writer_start(void)
{
    vt_w.cctx = ZSTD_createCCtx();
    vt_w.raw = malloc(VT_CHUNK_CAP + 4096);
    vt_w.out_cap = ZSTD_compressBound(VT_CHUNK_CAP) + sizeof(vt_chunk_header);
    vt_w.out = malloc(vt_w.out_cap);
    if (!vt_w.cctx || !vt_w.raw || !vt_w.out) return -1;
    ZSTD_CCtx_setParameter(vt_w.cctx, ZSTD_c_compressionLevel, vt_g.cfg.zstd_level);
    ZSTD_CCtx_setParameter(vt_w.cctx, ZSTD_c_checksumFlag, 1);
    vt_w.last_flush = vt_now();
    vt_ring_consumer(1);

    /* The writer must never receive the program's signals. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&vt_w.th, NULL, writer_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc) { vt_ring_consumer(0); return -1; }
    pthread_setname_np(vt_w.th, "vramtrace");
    return 0;
}

void vt_writer_stop(int join)
{
    atomic_store(&vt_w.stop, 1);
    vt_ring_wake();
    /* The drain takes as long as it takes while chunks go out; a writer stuck in write()
     * (a hung network file system) for VT_STALL_NS must not hang the exit. */
    if (!wait_progress(&vt_w.done, is_done, 0)) {
        uint64_t head = vt_ring_head(), w = atomic_load(&vt_w.written);
        vt_warn("the writer made no progress for %llu s: %llu events were not written to %s",
                (unsigned long long)(VT_STALL_NS / 1000000000ull), (unsigned long long)(head > w ? head - w : 0),
                vt_g.path);
        return;
    }
    if (join) pthread_join(vt_w.th, NULL);
}
