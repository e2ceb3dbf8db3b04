// SPDX-License-Identifier: MIT
/* vt_side.c - the side buffer: rare, variable-length records (THREAD, STACK nodes,
 * DEVICE, DRIVER, LOOKUP) queued under a mutex for the writer.
 *
 * Why not the ring: these carry strings, and they are rare (a stack node is queued
 * once in the life of the process). The writer drains this buffer before the ring
 * entries it has snapshotted, so a record that an event refers to (its stack nodes, its
 * thread's name) always precedes the event in the file. Nothing under the mutex calls
 * the loader or the driver; only memcpy and, when the buffer grows, realloc. */
#include "vt_side.h"
#include "vt_format.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define VT_SIDE_MAX (64u << 20)  /* past this the writer is not keeping up: drop */

/* One queued record: its total length, a copy of the vt_rec (pointers cleared), then
 * its bytes and string, padded to 8. */
typedef struct {
    uint32_t len;
    uint32_t pad_;
    vt_rec   r;
} vt_side_hdr;

/* Process-wide queue (one writer drains it); buf is filled by producers, spare is the
 * buffer the writer is reading, swapped at each take. */
static struct {
    pthread_mutex_t mu;
    uint8_t *buf;
    size_t   len, cap;
    uint8_t *spare;
    size_t   spare_cap;
    _Atomic uint64_t dropped;
} vt_s = { .mu = PTHREAD_MUTEX_INITIALIZER };

void vt_side_push(const vt_rec *r)
{
    size_t need = (sizeof(vt_side_hdr) + r->bytes_len + r->str_len + 7) & ~(size_t)7;
    pthread_mutex_lock(&vt_s.mu);
    if (vt_s.len + need > vt_s.cap) {
        size_t cap = vt_s.cap ? vt_s.cap * 2 : 64 * 1024;
        while (cap < vt_s.len + need) cap *= 2;
        uint8_t *nb = cap <= VT_SIDE_MAX ? realloc(vt_s.buf, cap) : NULL;
        if (!nb) {
            atomic_fetch_add_explicit(&vt_s.dropped, 1, memory_order_relaxed);
            pthread_mutex_unlock(&vt_s.mu);
            return;
        }
        vt_s.buf = nb;
        vt_s.cap = cap;
    }
    vt_side_hdr *h = (vt_side_hdr *)(vt_s.buf + vt_s.len);
    h->len = (uint32_t)need;
    h->pad_ = 0;
    h->r = *r;
    h->r.bytes = NULL; h->r.str = NULL; h->r.counts = NULL;
    uint8_t *o = (uint8_t *)(h + 1);
    if (r->bytes_len) memcpy(o, r->bytes, r->bytes_len);
    if (r->str_len) memcpy(o + r->bytes_len, r->str, r->str_len);
    vt_s.len += need;
    pthread_mutex_unlock(&vt_s.mu);
}

size_t vt_side_take(uint8_t **out)
{
    pthread_mutex_lock(&vt_s.mu);
    uint8_t *b = vt_s.buf;
    size_t l = vt_s.len, c = vt_s.cap;
    vt_s.buf = vt_s.spare;
    vt_s.cap = vt_s.spare_cap;
    vt_s.len = 0;
    vt_s.spare = b;
    vt_s.spare_cap = c;
    pthread_mutex_unlock(&vt_s.mu);
    *out = b;
    return l;
}

const uint8_t *vt_side_next(const uint8_t *p, const uint8_t *end, vt_rec *r)
{
    if (!p || p + sizeof(vt_side_hdr) > end) return NULL;
    const vt_side_hdr *h = (const vt_side_hdr *)p;
    *r = h->r;
    const uint8_t *o = (const uint8_t *)(h + 1);
    r->bytes = r->bytes_len ? o : NULL;
    r->str = r->str_len ? (const char *)(o + r->bytes_len) : NULL;
    return p + h->len;
}

uint64_t vt_side_dropped(void)
{
    return atomic_load_explicit(&vt_s.dropped, memory_order_relaxed);
}
