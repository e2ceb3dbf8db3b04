// SPDX-License-Identifier: MIT
/* vt_str.c - interned strings: a text gets one STRING id for the life of the process,
 * and its STRING record is queued once, before any record that uses the id.
 *
 * Who interns: Python frames (file names and function names, once per code location)
 * and scopes (an NVTX range's message or a module's name at every push). A push is on
 * the program's own path, so the steady state is lock-free: a 64-bit hash of the text
 * is looked up in an open-addressing table; only a text never seen takes the mutex.
 * Like the stack table, two texts with one 64-bit hash would share an id (odds ~1e-8 at
 * a million texts), and the table never grows: past VT_STR_CAP / 2 texts, new ones get
 * id 0 (callers treat it as "no name") and a counter says how often. */
#include "vt_str.h"
#include "vt_format.h"
#include "vt_global.h"
#include "vt_side.h"

#include <pthread.h>
#include <string.h>
#include <sys/mman.h>

#define VT_STR_CAP (1u << 18)   /* slots; at most half are filled */

typedef struct {
    _Atomic uint64_t key;   /* 0 = empty */
    _Atomic uint32_t id;
    uint32_t pad_;
} vt_str_ent;

/* Process-wide: one trace per process, and a string id means the same on every thread.
 * The table is mapped at the first intern (a process that never names a scope or runs
 * Python pays nothing). */
static struct {
    _Atomic(vt_str_ent *) tab;
    pthread_mutex_t mu;      /* guards inserts, next_id, n and the mapping */
    uint32_t next_id;
    uint32_t n;
    _Atomic uint64_t dropped;
} vt_s = { .mu = PTHREAD_MUTEX_INITIALIZER, .next_id = 1 };

/* wyhash-style: 8 bytes per multiply. */
uint64_t vt_hash_bytes(const void *p, size_t n, uint64_t seed)
{
    const uint64_t k0 = 0xa0761d6478bd642full, k1 = 0xe7037ed1a0b428dbull;
    const uint8_t *b = p;
    uint64_t h = vt_mix(seed ^ k0 ^ n, k1);
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, b, 8);
        h = vt_mix(w ^ h ^ k0, k1);
        b += 8;
        n -= 8;
    }
    if (n) {
        uint64_t w = 0;
        memcpy(&w, b, n);
        h = vt_mix(w ^ h ^ k1, k0 ^ n);
    }
    h = vt_mix(h, k0 ^ k1);
    return h ? h : 1;
}

static uint32_t find(vt_str_ent *t, uint64_t h)
{
    uint64_t mask = VT_STR_CAP - 1;
    for (uint64_t i = h & mask;; i = (i + 1) & mask) {
        uint64_t k = atomic_load_explicit(&t[i].key, memory_order_acquire);
        if (k == h) return atomic_load_explicit(&t[i].id, memory_order_relaxed);
        if (k == 0) return 0;
    }
}

/* Rare: a text never seen. Queues its STRING record under the mutex, so that the id is
 * published (and usable by another thread) only after its record is in the side
 * buffer. */
static __attribute__((noinline)) uint32_t insert(uint64_t h, const char *s, size_t n)
{
    uint32_t id = 0;
    pthread_mutex_lock(&vt_s.mu);
    vt_str_ent *t = atomic_load_explicit(&vt_s.tab, memory_order_relaxed);
    if (!t) {
        void *m = mmap(NULL, VT_STR_CAP * sizeof(vt_str_ent), PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (m != MAP_FAILED) {
            t = m;
            atomic_store_explicit(&vt_s.tab, t, memory_order_release);
        }
    }
    if (t && !(id = find(t, h)) && vt_s.n < VT_STR_CAP / 2) {
        id = vt_s.next_id++;
        vt_rec r = { .type = VT_REC_STRING, .device = -1, .id = id, .str = s, .str_len = (uint32_t)n };
        vt_side_push(&r);
        uint64_t mask = VT_STR_CAP - 1, i = h & mask;
        while (atomic_load_explicit(&t[i].key, memory_order_relaxed)) i = (i + 1) & mask;
        atomic_store_explicit(&t[i].id, id, memory_order_relaxed);
        atomic_store_explicit(&t[i].key, h, memory_order_release);
        vt_s.n++;
    }
    pthread_mutex_unlock(&vt_s.mu);
    if (!id) atomic_fetch_add_explicit(&vt_s.dropped, 1, memory_order_relaxed);
    return id;
}

uint32_t vt_str_intern(const char *s, size_t n)
{
    if (!s || !n) return 0;
    if (n > VT_STR_MAX) n = VT_STR_MAX;
    uint64_t h = vt_hash_bytes(s, n, 0x5354524e47ull);
    vt_str_ent *t = atomic_load_explicit(&vt_s.tab, memory_order_acquire);
    uint32_t id = t ? find(t, h) : 0;
    return VT_LIKELY(id) ? id : insert(h, s, n);
}

uint64_t vt_str_dropped(void)
{
    return atomic_load_explicit(&vt_s.dropped, memory_order_relaxed);
}
