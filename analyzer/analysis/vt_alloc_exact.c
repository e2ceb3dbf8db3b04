/* SPDX-License-Identifier: MIT */
/* vt_alloc_exact.c - the exact model: every request holds the bytes it asked for, no
 * rounding, no cache; reserved and allocated are the same, the traced per-tensor bytes. */
#include "vt_alloc_model_int.h"

#include <stdlib.h>

typedef struct {
    vt_am base;
    uint64_t *size;       /* handle -> bytes; free handles chain through it */
    uint32_t n, cap, free_head;
} am_exact;

#define NIL UINT32_MAX

static int exact_alloc(vt_am *m, uint64_t size, uint32_t stream, uint32_t *handle)
{
    (void)stream;
    am_exact *e = (am_exact *)m;
    if (m->limit != VT_AM_NO_LIMIT && m->st.reserved + size > m->limit) return VT_AM_OOM;
    uint32_t h;
    if (e->free_head != NIL) {
        h = e->free_head;
        e->free_head = (uint32_t)e->size[h];
    } else {
        if (e->n == e->cap) {
            uint32_t cap = e->cap ? e->cap * 2 : 1024;
            uint64_t *s = realloc(e->size, cap * sizeof *s);
            if (!s) return VT_AM_NOMEM;
            e->size = s;
            e->cap = cap;
        }
        h = e->n++;
    }
    e->size[h] = size;
    m->st.reserved += size;
    m->st.allocated += size;
    m->st.segments++;
    m->st.device_allocs++;
    vt_am_settle(&m->st);
    *handle = h;
    return VT_AM_OK;
}

static void exact_release(vt_am *m, uint32_t h)
{
    am_exact *e = (am_exact *)m;
    m->st.reserved -= e->size[h];
    m->st.allocated -= e->size[h];
    m->st.segments--;
    m->st.device_frees++;
    e->size[h] = e->free_head;
    e->free_head = h;
}

static void exact_destroy(vt_am *m)
{
    am_exact *e = (am_exact *)m;
    free(e->size);
    free(e);
}

static const vt_am_ops exact_ops = { exact_alloc, exact_release, exact_destroy };

vt_am *vt_am_exact_new(const vt_am_conf *c, uint64_t limit)
{
    am_exact *e = calloc(1, sizeof *e);
    if (!e) return NULL;
    e->base.ops = &exact_ops;
    e->base.kind = VT_AM_EXACT;
    e->base.conf = *c;
    e->base.limit = limit;
    e->free_head = NIL;
    return &e->base;
}
