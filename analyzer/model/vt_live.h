// SPDX-License-Identifier: MIT
/* vt_live.h - the live set: (space, address) -> what a live allocation or VMM mapping
 * holds. Open addressing, linear probing, deletion by backward shift.
 *
 * Why 16-byte entries: the set of a long training run is far larger than the caches and
 * is hit at random, one line per event, so its size decides how much of it a cache
 * holds. An entry packs the space, group and size of an allocation beside its address
 * (four entries to a line, where the 32-byte entries of before held two): the replay's
 * fast paths read and write nothing else. What does not fit (groups from 2^24 on, sizes
 * from 64 GiB on, VMM mappings) and what the category log may still ask for (the
 * allocations of its window: their time and log index) goes to an "ext" record instead,
 * which the entry then names. Nothing else needs an allocation's time: lifetimes are
 * summed per group (vt_replay.h).
 *
 * Pointers to entries are valid until the next insert or delete; pointers to ext records
 * until the next vt_live_set. */
#ifndef VT_LIVE_H
#define VT_LIVE_H

#include <stddef.h>
#include <stdint.h>

/* addr, then v: bits 0-2 the space (vt_space or VT_SPACE_MAPPING; 0 = empty slot);
 * bit 3 VT_LIVE_EXT; then either the group (bits 4-27) and the size (bits 28-63), or the
 * index of its ext record (bits 4-63). */
typedef struct {
    uint64_t addr;
    uint64_t v;
} vt_live;
_Static_assert(sizeof(vt_live) == 16, "vt_live: four to a cache line");

#define VT_SPACE_MAPPING   7
#define VT_LIVE_EXT        8u
#define VT_LIVE_GROUP_MAX  (1u << 24)       /* groups below this fit an entry */
#define VT_LIVE_SIZE_MAX   (1ull << 36)     /* and sizes below this */
#define VT_LIVE_NO_GROUP   UINT32_MAX       /* the group of a mapping */

typedef struct {
    uint64_t size;
    uint64_t aux;           /* allocation: its time; mapping: its handle; free: next + 1 */
    uint32_t group;         /* VT_LIVE_NO_GROUP: a mapping */
    uint32_t logix;         /* its vt_catlog entry, VT_CATLOG_NONE: not logged */
} vt_live_ext;

typedef struct {
    vt_live *tab;
    size_t mask, n;         /* capacity - 1 (0 with no table), entries */
    unsigned shift;         /* 64 - log2(capacity): the hash takes the top bits */
    vt_live_ext *ext;
    size_t next, ext_cap;   /* ext records made, allocated */
    uint64_t ext_free;      /* the first free one + 1, 0 = none */
} vt_liveset;

/* ------------------------------------------------------------------------ *
 *  Entries
 * ------------------------------------------------------------------------ */
static inline unsigned vt_live_space(const vt_live *e) { return (unsigned)(e->v & 7); }
static inline int vt_live_is_ext(const vt_live *e) { return (e->v & VT_LIVE_EXT) != 0; }

static inline vt_live_ext *vt_live_ext_of(const vt_liveset *s, const vt_live *e)
{
    return &s->ext[e->v >> 4];
}

static inline uint32_t vt_live_group(const vt_liveset *s, const vt_live *e)
{
    return vt_live_is_ext(e) ? vt_live_ext_of(s, e)->group : (uint32_t)(e->v >> 4) & (VT_LIVE_GROUP_MAX - 1);
}

static inline uint64_t vt_live_size(const vt_liveset *s, const vt_live *e)
{
    return vt_live_is_ext(e) ? vt_live_ext_of(s, e)->size : e->v >> 28;
}

/* The packed v of an allocation that fits one (the caller checked the two limits). */
static inline uint64_t vt_live_pack(unsigned space, uint32_t group, uint64_t size)
{
    return space | (uint64_t)group << 4 | size << 28;
}

/* Fills e, just found or made by vt_live_upsert or vt_live_insert (an ext record it
 * names is given back first). keep: aux and logix must be kept, so an ext record is
 * made whatever fits. Returns 0, or -1 when that record could not be made: e is then
 * left empty or deleted, as if never inserted. */
int vt_live_set(vt_liveset *s, vt_live *e, unsigned space, uint64_t addr, uint64_t size, uint32_t group,
                uint64_t aux, uint32_t logix, int keep);

/* ------------------------------------------------------------------------ *
 *  The table
 * ------------------------------------------------------------------------ */
static inline size_t vt_live_hash(const vt_liveset *s, unsigned space, uint64_t addr)
{
    /* Addresses are aligned and clustered: a multiplicative mix spreads them. */
    return (size_t)(((addr ^ ((uint64_t)space << 59)) * 0x9e3779b97f4a7c15ull) >> s->shift);
}

static inline vt_live *vt_live_find(vt_liveset *s, unsigned space, uint64_t addr)
{
    if (!s->tab) return NULL;
    for (size_t i = vt_live_hash(s, space, addr);; i = (i + 1) & s->mask) {
        vt_live *e = &s->tab[i];
        if (vt_live_space(e) == space && e->addr == addr) return e;
        if (!e->v) return NULL;
    }
}

/* The table is over half full with one more entry: vt_live_upsert and vt_live_insert
 * grow it first. */
static inline int vt_live_full(const vt_liveset *s) { return (s->n + 1) * 2 > s->mask + 1; }

/* Doubles the table (makes it, the first time). Returns -1 when out of memory. */
int vt_live_grow(vt_liveset *s);

/* Finds the entry of (space, addr), or the empty slot where it goes (counted as used,
 * left for vt_live_set to fill) and sets *fresh. NULL when out of memory. */
static inline vt_live *vt_live_upsert(vt_liveset *s, unsigned space, uint64_t addr, int *fresh)
{
    if (vt_live_full(s) && vt_live_grow(s)) return NULL;
    for (size_t i = vt_live_hash(s, space, addr);; i = (i + 1) & s->mask) {
        vt_live *e = &s->tab[i];
        if (vt_live_space(e) == space && e->addr == addr) {
            *fresh = 0;
            return e;
        }
        if (!e->v) {
            s->n++;
            *fresh = 1;
            return e;
        }
    }
}

/* The empty slot for a key known to be absent (counted as used, for vt_live_set). */
static inline vt_live *vt_live_insert(vt_liveset *s, unsigned space, uint64_t addr)
{
    if (vt_live_full(s) && vt_live_grow(s)) return NULL;
    size_t i = vt_live_hash(s, space, addr);
    while (s->tab[i].v) i = (i + 1) & s->mask;
    s->n++;
    return &s->tab[i];
}

/* Gives an ext record back (its aux links the free ones). */
static inline void vt_live_ext_put(vt_liveset *s, uint64_t ix)
{
    s->ext[ix].aux = s->ext_free;
    s->ext_free = ix + 1;
}

/* Deletes e by shifting later members of its probe run back (no tombstones, so probe
 * runs stay short however many allocations come and go). */
static inline void vt_live_delete(vt_liveset *s, vt_live *e)
{
    if (vt_live_is_ext(e)) vt_live_ext_put(s, e->v >> 4);
    size_t i = (size_t)(e - s->tab), j = i;
    for (;;) {
        j = (j + 1) & s->mask;
        const vt_live *f = &s->tab[j];
        if (!f->v) break;
        size_t home = vt_live_hash(s, vt_live_space(f), f->addr);
        /* f may move to i when its home is not in the cyclic range (i, j]. */
        if ((j > i && (home <= i || home > j)) || (j < i && (home <= i && home > j))) {
            s->tab[i] = *f;
            i = j;
        }
    }
    s->tab[i] = (vt_live){ 0, 0 };
    s->n--;
}

void vt_live_free(vt_liveset *s);

#endif /* VT_LIVE_H */
