// SPDX-License-Identifier: MIT
/* vt_table.h - the small containers the analyzer is built on: an arena for strings
 * and records that live as long as the analysis, an integer map (u64 -> u32) and a
 * string interning table. Open addressing, power-of-two sizes, no per-insert malloc
 * once grown. */
#ifndef VT_TABLE_H
#define VT_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* ------------------------------------------------------------------------ *
 *  Arena
 * ------------------------------------------------------------------------ */
typedef struct vt_arena_block vt_arena_block;
typedef struct {
    vt_arena_block *head;
    size_t used, cap;
} vt_arena;

void *vt_arena_alloc(vt_arena *a, size_t n);          /* 8-byte aligned; NULL when out of memory */
char *vt_arena_strdup(vt_arena *a, const char *s, size_t n); /* NUL-terminated copy */
void vt_arena_free(vt_arena *a);

/* ------------------------------------------------------------------------ *
 *  u64 -> u32 map
 * ------------------------------------------------------------------------ */
typedef struct {
    uint64_t *keys;   /* key + 1; 0 = empty */
    uint32_t *vals;
    size_t mask;      /* capacity - 1, 0 before the first insert */
    size_t n;
} vt_idmap;

/* Returns a pointer to the value of key, or NULL. */
uint32_t *vt_idmap_get(const vt_idmap *m, uint64_t key);
/* Sets key to val (inserting or replacing). Returns 0, or -1 when out of memory. */
int vt_idmap_put(vt_idmap *m, uint64_t key, uint32_t val);
void vt_idmap_free(vt_idmap *m);

/* ------------------------------------------------------------------------ *
 *  Dense ids -> u32: an array indexed by id
 * ------------------------------------------------------------------------ */
/* For ids a producer numbers from 1 (the recorder's stack nodes, strings, Python
 * frames): an array indexed by id costs 4 bytes an id where the hashed map costs 24
 * and a probe. Ids far past how many there are (a damaged or foreign trace) go to
 * the hashed map, so memory stays proportional to the entries. */
typedef struct {
    uint32_t *dense;  /* id -> value; UINT32_MAX = none */
    size_t ndense;
    size_t n;         /* entries */
    vt_idmap sparse;
} vt_idarr;

static inline uint32_t *vt_idarr_get(const vt_idarr *m, uint64_t id)
{
    if (id < m->ndense && m->dense[id] != UINT32_MAX) return &m->dense[id];
    return m->sparse.n ? vt_idmap_get(&m->sparse, id) : NULL;
}
/* Sets id to val (val != UINT32_MAX). Returns 0, or -1 when out of memory. */
int vt_idarr_put(vt_idarr *m, uint64_t id, uint32_t val);
void vt_idarr_free(vt_idarr *m);

static inline uint64_t vt_hash64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

/* A hash of the bytes s[0..n), eight at a time (symbol and frame names run to hundreds
 * of bytes, where a byte-at-a-time hash was most of the cost of interning them). */
static inline uint64_t vt_str_hash(const char *s, size_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    if (i < n) {
        uint64_t w = 0;
        memcpy(&w, s + i, n - i);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
    }
    return vt_hash64(h);
}

/* ------------------------------------------------------------------------ *
 *  String interning: equal strings get equal ids (0, 1, 2, ...)
 * ------------------------------------------------------------------------ */
typedef struct {
    vt_arena arena;
    const char **strs;    /* id -> string */
    uint32_t *lens;
    uint64_t *hashes;
    size_t n, cap;
    uint32_t *slots;      /* id + 1; 0 = empty */
    size_t mask;
} vt_strtab;

/* Returns the id of s[0..n), adding it when new; UINT32_MAX when out of memory. */
uint32_t vt_strtab_intern(vt_strtab *t, const char *s, size_t n);
static inline const char *vt_strtab_get(const vt_strtab *t, uint32_t id)
{
    return id < t->n ? t->strs[id] : NULL;
}
void vt_strtab_free(vt_strtab *t);

#endif /* VT_TABLE_H */
