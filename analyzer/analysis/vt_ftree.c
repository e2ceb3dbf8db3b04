// SPDX-License-Identifier: MIT
/* vt_ftree.c - the call tree of the sites (flame graphs, folded stacks). */
#include "vt_ftree.h"
#include "vt_frame_label.h"
#include "vt_rows.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

static uint32_t intern(vt_strtab *t, const char *s)
{
    return vt_strtab_intern(t, s, strlen(s));
}

static int set_detail(vt_ftree *t, uint32_t name, const vt_site_frame *f)
{
    if (name >= t->detail_cap) {
        size_t c = t->detail_cap ? t->detail_cap * 2 : 256;
        while (c <= name) c *= 2;
        uint32_t *p = realloc(t->detail, c * sizeof *p);
        if (!p) return -1;
        for (size_t i = t->detail_cap; i < c; i++) p[i] = NONE;
        t->detail = p;
        t->detail_cap = c;
    }
    if (t->detail[name] != NONE) return 0; /* the first frame seen with this label speaks for it */
    char buf[1024];
    size_t k = 0;
    buf[0] = 0;
    if (f && f->file && f->line) k += (size_t)snprintf(buf, sizeof buf, "%s:%u", f->file, f->line);
    else if (f && f->file) k += (size_t)snprintf(buf, sizeof buf, "%s", f->file);
    if (f && f->module && f->kind == VT_FRAME_NATIVE && k < sizeof buf)
        snprintf(buf + k, sizeof buf - k, "%s[%s]", k ? " " : "", f->module);
    uint32_t id = intern(&t->details, buf);
    if (id == NONE) return -1;
    t->detail[name] = id;
    return 0;
}

static uint32_t new_node(vt_ftree *t, uint32_t parent, uint32_t name, uint8_t kind, uint8_t fclass)
{
    if (t->nn == t->cap) {
        size_t c = t->cap ? t->cap * 2 : 256;
        vt_fnode *p = realloc(t->n, c * sizeof *p);
        if (!p) return NONE;
        t->n = p;
        t->cap = c;
    }
    uint32_t id = (uint32_t)t->nn++;
    vt_fnode *n = &t->n[id];
    memset(n, 0, sizeof *n);
    n->name = name;
    n->parent = parent;
    n->child = n->next = NONE;
    n->kind = kind;
    n->fclass = fclass;
    if (parent != NONE) {
        n->depth = t->n[parent].depth + 1;
        n->next = t->n[parent].child;
        t->n[parent].child = id;
        if (n->depth > t->max_depth) t->max_depth = n->depth;
    }
    return id;
}

static uint32_t child_of(vt_ftree *t, uint32_t parent, const vt_site_frame *f, const char *label)
{
    uint32_t name = intern(&t->names, label);
    if (name == NONE || set_detail(t, name, f)) return NONE;
    uint64_t key = (uint64_t)parent << 32 | name;
    uint32_t *v = vt_idmap_get(&t->child_ix, key);
    if (v) return *v;
    uint32_t id = new_node(t, parent, name, f ? f->kind : VT_FRAME_NATIVE, f ? f->fclass : VT_FC_COUNT);
    if (id == NONE || vt_idmap_put(&t->child_ix, key, id)) return NONE;
    return id;
}

/* qsort has no context argument in C11: the node array being sorted is read from
 * here (the CLI builds one tree at a time, on one thread). */
static const vt_fnode *sort_nodes;

static int by_value(const void *x, const void *y)
{
    const vt_fnode *a = &sort_nodes[*(const uint32_t *)x], *b = &sort_nodes[*(const uint32_t *)y];
    if (a->value != b->value) return a->value > b->value ? -1 : 1;
    return a->name < b->name ? -1 : a->name > b->name;
}

static int sort_children(vt_ftree *t)
{
    uint32_t *tmp = malloc((t->nn ? t->nn : 1) * sizeof *tmp);
    if (!tmp) return -1;
    sort_nodes = t->n;
    for (size_t p = 0; p < t->nn; p++) {
        size_t k = 0;
        for (uint32_t c = t->n[p].child; c != NONE; c = t->n[c].next) tmp[k++] = c;
        if (k < 2) continue;
        qsort(tmp, k, sizeof *tmp, by_value);
        t->n[p].child = tmp[0];
        for (size_t i = 0; i + 1 < k; i++) t->n[tmp[i]].next = tmp[i + 1];
        t->n[tmp[k - 1]].next = NONE;
    }
    free(tmp);
    return 0;
}

/* A frame the default (not --native) picture shows. */
static int shown(const vt_site *s, int has_py, uint32_t fi)
{
    const vt_site_frame *f = &s->frames[fi];
    if (has_py) return f->kind != VT_FRAME_NATIVE && f->fclass != VT_FC_INTERPRETER && f->fclass != VT_FC_PLUMBING;
    return f->fclass != VT_FC_INTERPRETER && f->fclass != VT_FC_PLUMBING;
}

int vt_ftree_build(vt_ftree *t, const vt_eset *e, vt_what w, const char *root_label, int native)
{
    memset(t, 0, sizeof *t);
    uint32_t rn = intern(&t->names, root_label);
    if (rn == NONE || set_detail(t, rn, NULL) || new_node(t, NONE, rn, 255, VT_FC_COUNT) == NONE) return -1;
    t->n[0].kind = 255;
    const vt_sites *ss = &e->a->sites;
    for (size_t i = 0; i < e->n; i++) {
        uint64_t v = vt_egroup_bytes(e, &e->g[i], w);
        if (!v) continue;
        const vt_site *s = e->g[i].g->site < ss->n ? &ss->sites[e->g[i].g->site] : NULL;
        uint32_t node = 0;
        t->n[0].value += v;
        if (!s || !s->nframes) {
            /* PyTorch's idle segment bytes are no site's: named as the rows name them */
            node = child_of(t, 0, NULL, e->g[i].g->kind == VT_GROUP_IDLE ? VT_ROW_IDLE_NAME
                                             : e->g[i].g->kind == VT_GROUP_POOL ? VT_ROW_POOL_NAME : "[no stack]");
            if (node == NONE) return -1;
            t->n[node].value += v;
            continue;
        }
        int has_py = 0;
        for (uint32_t fi = 0; fi < s->nframes && !has_py; fi++) has_py = s->frames[fi].kind == VT_FRAME_PYTHON;
        uint32_t kept = 0;
        for (uint32_t fi = s->nframes; fi-- > 0;) {
            /* the innermost frame stays when all would go: a stack cut at the driver */
            if (!native && !shown(s, has_py, fi) && (fi || kept)) continue;
            char label[1024];
            vt_export_frame_label(&s->frames[fi], label, sizeof label);
            node = child_of(t, node, &s->frames[fi], label);
            if (node == NONE) return -1;
            t->n[node].value += v;
            kept++;
        }
        if (!native && has_py && s->op) {
            node = child_of(t, node, NULL, s->op);
            if (node == NONE) return -1;
            t->n[node].value += v;
        }
    }
    return sort_children(t);
}

/* The child of parent labelled as node sn of src (its label, detail, kind and class), made
 * when new. */
static uint32_t child_like(vt_ftree *t, uint32_t parent, const vt_ftree *src, uint32_t sn)
{
    const vt_fnode *o = &src->n[sn];
    uint32_t name = intern(&t->names, vt_strtab_get(&src->names, o->name));
    if (name == NONE) return NONE;
    uint64_t key = (uint64_t)parent << 32 | name;
    uint32_t *v = vt_idmap_get(&t->child_ix, key);
    if (v) return *v;
    if (set_detail(t, name, NULL)) return NONE;
    uint32_t d = o->name < src->detail_cap ? src->detail[o->name] : NONE;
    if (d != NONE && (t->detail[name] = intern(&t->details, vt_strtab_get(&src->details, d))) == NONE) return NONE;
    uint32_t id = new_node(t, parent, name, o->kind, o->fclass);
    if (id == NONE || vt_idmap_put(&t->child_ix, key, id)) return NONE;
    return id;
}

int vt_ftree_invert(vt_ftree *t, const vt_ftree *src)
{
    memset(t, 0, sizeof *t);
    if (!src->nn) return 0;
    if (child_like(t, NONE, src, 0) == NONE) return -1;
    t->n[0].kind = 255;
    t->n[0].value = src->n[0].value;
    for (uint32_t i = 1; i < src->nn; i++) {
        uint64_t own = src->n[i].value;
        for (uint32_t c = src->n[i].child; c != NONE; c = src->n[c].next) own -= src->n[c].value;
        if (!own) continue;
        uint32_t node = 0;
        for (uint32_t p = i; p != 0 && p != NONE; p = src->n[p].parent) {
            node = child_like(t, node, src, p);
            if (node == NONE) return -1;
            t->n[node].value += own;
        }
    }
    return sort_children(t);
}

void vt_ftree_free(vt_ftree *t)
{
    free(t->n);
    free(t->detail);
    vt_strtab_free(&t->names);
    vt_strtab_free(&t->details);
    vt_idmap_free(&t->child_ix);
    memset(t, 0, sizeof *t);
}

int vt_ftree_walk(const vt_ftree *t, int (*fn)(const vt_ftree *t, uint32_t node, void *ctx), void *ctx)
{
    if (!t->nn) return 0;
    /* Preorder without recursion: stacks can be 256 frames deep. */
    uint32_t n = 0;
    for (;;) {
        int rc = fn(t, n, ctx);
        if (rc) return rc;
        if (t->n[n].child != NONE) {
            n = t->n[n].child;
            continue;
        }
        while (n != NONE && t->n[n].next == NONE) n = t->n[n].parent;
        if (n == NONE) return 0;
        n = t->n[n].next;
    }
}
