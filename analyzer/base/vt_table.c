// SPDX-License-Identifier: MIT
/* vt_table.c - arena, integer map, string interning. */
#include "vt_table.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ *
 *  Arena
 * ------------------------------------------------------------------------ */
struct vt_arena_block {
    vt_arena_block *next;
    size_t size;
    _Alignas(16) unsigned char data[];
};

void *vt_arena_alloc(vt_arena *a, size_t n)
{
    n = (n + 7) & ~(size_t)7;
    if (!a->head || a->used + n > a->cap) {
        size_t cap = n > 65536 ? n : 65536;
        vt_arena_block *b = malloc(sizeof *b + cap);
        if (!b) return NULL;
        b->size = cap;
        b->next = a->head;
        a->head = b;
        a->used = 0;
        a->cap = cap;
    }
    void *p = a->head->data + a->used;
    a->used += n;
    return p;
}

char *vt_arena_strdup(vt_arena *a, const char *s, size_t n)
{
    char *d = vt_arena_alloc(a, n + 1);
    if (!d) return NULL;
    if (n) memcpy(d, s, n);
    d[n] = 0;
    return d;
}

void vt_arena_free(vt_arena *a)
{
    vt_arena_block *b = a->head;
    while (b) {
        vt_arena_block *n = b->next;
        free(b);
        b = n;
    }
    memset(a, 0, sizeof *a);
}

/* ------------------------------------------------------------------------ *
 *  u64 -> u32 map (linear probing; never deletes)
 * ------------------------------------------------------------------------ */
uint32_t *vt_idmap_get(const vt_idmap *m, uint64_t key)
{
    if (!m->mask) return NULL;
    uint64_t k = key + 1;
    size_t i = (size_t)vt_hash64(key) & m->mask;
    for (;;) {
        if (m->keys[i] == k) return &m->vals[i];
        if (m->keys[i] == 0) return NULL;
        i = (i + 1) & m->mask;
    }
}

static int idmap_grow(vt_idmap *m)
{
    size_t cap = m->mask ? (m->mask + 1) * 2 : 64;
    uint64_t *keys = calloc(cap, sizeof *keys);
    uint32_t *vals = malloc(cap * sizeof *vals);
    if (!keys || !vals) { free(keys); free(vals); return -1; }
    for (size_t i = 0; m->mask && i <= m->mask; i++) {
        if (!m->keys[i]) continue;
        size_t j = (size_t)vt_hash64(m->keys[i] - 1) & (cap - 1);
        while (keys[j]) j = (j + 1) & (cap - 1);
        keys[j] = m->keys[i];
        vals[j] = m->vals[i];
    }
    free(m->keys);
    free(m->vals);
    m->keys = keys;
    m->vals = vals;
    m->mask = cap - 1;
    return 0;
}

int vt_idmap_put(vt_idmap *m, uint64_t key, uint32_t val)
{
    uint32_t *v = vt_idmap_get(m, key);
    if (v) { *v = val; return 0; }
    if ((m->n + 1) * 2 > m->mask + 1 && idmap_grow(m)) return -1;
    size_t i = (size_t)vt_hash64(key) & m->mask;
    while (m->keys[i]) i = (i + 1) & m->mask;
    m->keys[i] = key + 1;
    m->vals[i] = val;
    m->n++;
    return 0;
}

void vt_idmap_free(vt_idmap *m)
{
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof *m);
}

/* ------------------------------------------------------------------------ *
 *  Dense ids
 * ------------------------------------------------------------------------ */
int vt_idarr_put(vt_idarr *m, uint64_t id, uint32_t val)
{
    uint32_t *v = vt_idarr_get(m, id);
    if (v) { *v = val; return 0; }
    if (id >= m->ndense && id < 2 * (m->n + 4096)) {
        size_t c = m->ndense + m->ndense / 2;
        if (c <= id) c = (size_t)id + 1;
        c = (c + 1023) & ~(size_t)1023;
        uint32_t *d = realloc(m->dense, c * sizeof *d);
        if (!d) return -1;
        memset(d + m->ndense, 0xff, (c - m->ndense) * sizeof *d);
        m->dense = d;
        m->ndense = c;
    }
    if (id < m->ndense) {
        m->dense[id] = val;
    } else if (vt_idmap_put(&m->sparse, id, val)) {
        return -1;
    }
    m->n++;
    return 0;
}

void vt_idarr_free(vt_idarr *m)
{
    free(m->dense);
    vt_idmap_free(&m->sparse);
    memset(m, 0, sizeof *m);
}

/* ------------------------------------------------------------------------ *
 *  String interning
 * ------------------------------------------------------------------------ */
static int strtab_grow_slots(vt_strtab *t)
{
    size_t cap = t->mask ? (t->mask + 1) * 2 : 256;
    uint32_t *slots = calloc(cap, sizeof *slots);
    if (!slots) return -1;
    for (size_t id = 0; id < t->n; id++) {
        size_t j = (size_t)t->hashes[id] & (cap - 1);
        while (slots[j]) j = (j + 1) & (cap - 1);
        slots[j] = (uint32_t)id + 1;
    }
    free(t->slots);
    t->slots = slots;
    t->mask = cap - 1;
    return 0;
}

uint32_t vt_strtab_intern(vt_strtab *t, const char *s, size_t n)
{
    uint64_t h = vt_str_hash(s, n);
    if (t->mask) {
        size_t i = (size_t)h & t->mask;
        while (t->slots[i]) {
            uint32_t id = t->slots[i] - 1;
            if (t->hashes[id] == h && t->lens[id] == n && memcmp(t->strs[id], s, n) == 0)
                return id;
            i = (i + 1) & t->mask;
        }
    }
    if (t->n == UINT32_MAX - 1) return UINT32_MAX;
    if ((t->n + 1) * 2 > t->mask + 1 && strtab_grow_slots(t)) return UINT32_MAX;
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 256;
        const char **strs = realloc(t->strs, cap * sizeof *strs);
        if (!strs) return UINT32_MAX;
        t->strs = strs;
        uint32_t *lens = realloc(t->lens, cap * sizeof *lens);
        if (!lens) return UINT32_MAX;
        t->lens = lens;
        uint64_t *hashes = realloc(t->hashes, cap * sizeof *hashes);
        if (!hashes) return UINT32_MAX;
        t->hashes = hashes;
        t->cap = cap;
    }
    char *copy = vt_arena_strdup(&t->arena, s, n);
    if (!copy) return UINT32_MAX;
    uint32_t id = (uint32_t)t->n++;
    t->strs[id] = copy;
    t->lens[id] = (uint32_t)n;
    t->hashes[id] = h;
    size_t i = (size_t)h & t->mask;
    while (t->slots[i]) i = (i + 1) & t->mask;
    t->slots[i] = id + 1;
    return id;
}

void vt_strtab_free(vt_strtab *t)
{
    vt_arena_free(&t->arena);
    free(t->strs);
    free(t->lens);
    free(t->hashes);
    free(t->slots);
    memset(t, 0, sizeof *t);
}
