// SPDX-License-Identifier: MIT
/* vt_cat_life.c - the category log's storage: the window of allocations and frees the
 * replay keeps for lifetime inference (vt_cat_infer.c reads it), bounded so that a long
 * trace cannot take all memory. */
#include "vt_cat_life.h"

#include <stdlib.h>
#include <string.h>

/* The log stops at t: what inference sees ends there, and the report says why. */
static int out_of_memory(vt_catlog *l, uint64_t t)
{
    l->full = 1;
    l->nomem = 1;
    l->full_time = t;
    return -1;
}

int vt_catlog_grow(vt_catlog *l, uint64_t t)
{
    if (l->cap >= VT_CATLOG_MAX) {
        l->full = 1;
        l->full_time = t;
        return -1;
    }
    size_t c = l->cap ? l->cap * 2 : 4096;
    if (c > VT_CATLOG_MAX) c = VT_CATLOG_MAX;
    vt_catlog_ent *e = realloc(l->e, c * sizeof *e);
    if (!e) return out_of_memory(l, t);
    l->e = e;
    l->cap = c;
    return 0;
}

int64_t vt_catlog_big(vt_catlog *l, uint64_t size, uint64_t t)
{
    if (l->nbig == l->big_cap) {
        size_t c = l->big_cap ? l->big_cap * 2 : 16;
        uint64_t *b = c < VT_CATLOG_BIG ? realloc(l->big, c * sizeof *b) : NULL;
        if (!b) return out_of_memory(l, t);
        l->big = b;
        l->big_cap = c;
    }
    l->big[l->nbig] = size;
    return (int64_t)l->nbig++;
}

void vt_catlog_free(vt_catlog *l)
{
    free(l->e);
    free(l->big);
    free(l->live_end);
    memset(l, 0, sizeof *l);
}
