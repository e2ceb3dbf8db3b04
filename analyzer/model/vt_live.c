// SPDX-License-Identifier: MIT
/* vt_live.c - the live set's growth and ext records (vt_live.h). */
#include "vt_live.h"

#include "vt_huge.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ *
 *  The table
 * ------------------------------------------------------------------------ */
int vt_live_grow(vt_liveset *s)
{
    size_t cap = s->tab ? (s->mask + 1) * 2 : 1024;
    vt_live *old = s->tab;
    size_t old_cap = old ? s->mask + 1 : 0;
    vt_live *nt = vt_huge_calloc(cap, sizeof(vt_live)); /* probed at random: vt_huge.h */
    if (!nt) return -1;
    s->tab = nt;
    s->mask = cap - 1;
    s->shift = 64;
    for (size_t c = cap; c > 1; c >>= 1) s->shift--;
    for (size_t i = 0; i < old_cap; i++) {
        if (!old[i].v) continue;
        size_t j = vt_live_hash(s, vt_live_space(&old[i]), old[i].addr);
        while (nt[j].v) j = (j + 1) & s->mask;
        nt[j] = old[i];   /* ext records stay where they are */
    }
    free(old);
    return 0;
}

/* ------------------------------------------------------------------------ *
 *  Ext records
 * ------------------------------------------------------------------------ */
static int ext_new(vt_liveset *s, uint64_t *ix)
{
    if (s->ext_free) {
        *ix = s->ext_free - 1;
        s->ext_free = s->ext[*ix].aux;
        return 0;
    }
    if (s->next == s->ext_cap) {
        size_t cap = s->ext_cap ? s->ext_cap * 2 : 256;
        vt_live_ext *p = realloc(s->ext, cap * sizeof *p);
        if (!p) return -1;
        s->ext = p;
        s->ext_cap = cap;
    }
    *ix = s->next++;
    return 0;
}

int vt_live_set(vt_liveset *s, vt_live *e, unsigned space, uint64_t addr, uint64_t size, uint32_t group,
                uint64_t aux, uint32_t logix, int keep)
{
    int was_used = e->v != 0;
    if (vt_live_is_ext(e)) {
        vt_live_ext_put(s, e->v >> 4);
        e->v = vt_live_pack(space, 0, 0);  /* still in use, no record */
    }
    e->addr = addr;
    if (!keep && group < VT_LIVE_GROUP_MAX && size < VT_LIVE_SIZE_MAX) {
        e->v = vt_live_pack(space, group, size);
        return 0;
    }
    uint64_t ix;
    if (ext_new(s, &ix)) {
        if (was_used) {
            vt_live_delete(s, e);
        } else {
            e->v = 0;
            s->n--;
        }
        return -1;
    }
    s->ext[ix] = (vt_live_ext){ .size = size, .aux = aux, .group = group, .logix = logix };
    e->v = space | VT_LIVE_EXT | ix << 4;
    return 0;
}

void vt_live_free(vt_liveset *s)
{
    free(s->tab);
    free(s->ext);
    memset(s, 0, sizeof *s);
}
