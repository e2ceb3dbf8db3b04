// SPDX-License-Identifier: MIT
/* vt_sites.c - folding recorded stacks into sites. */
#include "vt_sites.h"

#include "vt_ctrl.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *vt_fclass_name(unsigned c)
{
    static const char *const names[] = {
#define VT_FC_NAME(id, name) name,
        VT_FCLASS_LIST(VT_FC_NAME)
#undef VT_FC_NAME
    };
    return c < VT_FC_COUNT ? names[c] : NULL;
}

int vt_fclass_parse(const char *s)
{
    for (unsigned c = 0; c < VT_FC_COUNT; c++)
        if (!strcmp(s, vt_fclass_name(c))) return (int)c;
    return -1;
}

static const char *base_name(const char *p)
{
    if (!p) return NULL;
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

int vt_sites_is_plumbing(const char *m)
{
    if (!m) return 0;
    return strncmp(m, "libcuda.so", 10) == 0 || strncmp(m, "libcudart", 9) == 0 ||
           strncmp(m, "libvramtrace", 12) == 0;
}

/* The CUDA runtime linked statically into the program (vt-bert, nvcc's default) lives in
 * the program's own module, so the module test above misses it: its internal symbols are
 * named libcudart_static_<hash>, its API entry points cudaXxx, the driver's cuXxx. Only
 * resolved native frames qualify, and only innermost (the caller folds a prefix). */
int vt_sites_is_plumbing_function(const char *f)
{
    if (!f) return 0;
    if (strncmp(f, "libcudart_static_", 17) == 0 || strncmp(f, "__cudart", 8) == 0) return 1;
    if (f[0] != 'c' || f[1] != 'u') return 0;
    if (f[2] >= 'A' && f[2] <= 'Z') return 1;                       /* cuMemAlloc_v2 */
    return f[2] == 'd' && f[3] == 'a' && f[4] >= 'A' && f[4] <= 'Z'; /* cudaMalloc */
}

static int is_plumbing_frame(const vt_site_frame *f)
{
    if (f->kind != VT_FRAME_NATIVE) return 0;
    return vt_sites_is_plumbing(f->module) ||
           (f->resolved && vt_sites_is_plumbing_function(f->function));
}

/* Interned copy: frames of thousands of sites share their strings. Every name a view
 * prints passes here, so control bytes (from the trace, or from the symbols of a file it
 * names) are escaped here once. */
static const char *name(vt_sites *ss, const char *s)
{
    if (!s) return NULL;
    size_t n = strlen(s);
    uint32_t id;
    if (vt_ctrl_safe(s, n)) {
        id = vt_strtab_intern(&ss->names, s, n);
    } else {
        char *e = vt_ctrl_dup(s, n);
        if (!e) return NULL;
        id = vt_strtab_intern(&ss->names, e, strlen(e));
        free(e);
    }
    return id == UINT32_MAX ? NULL : vt_strtab_get(&ss->names, id);
}

static const char *rp_string(const vt_replay *rp, uint32_t id)
{
    const vt_replay_result *res = vt_replay_result_of(rp);
    const uint32_t *ix = vt_idarr_get(res->string_ix, id);
    return ix ? res->strings[*ix] : NULL;
}

static void frame_of(vt_sites *ss, const vt_replay *rp, const vt_stack_node *n,
                     vt_site_frame *f)
{
    const vt_replay_result *res = vt_replay_result_of(rp);
    char buf[96];
    memset(f, 0, sizeof *f);
    f->kind = n->kind;
    if (n->kind == VT_FRAME_PYTHON) {
        const uint32_t *ix = vt_idarr_get(res->pyframe_ix, (uint32_t)n->value);
        const vt_pyframe *pf = ix ? &res->pyframes[*ix] : NULL;
        const char *fn = pf ? rp_string(rp, pf->function) : NULL;
        if (!fn) {
            snprintf(buf, sizeof buf, "python+%" PRIu64, n->value);
            fn = buf;
        } else {
            f->resolved = 1;
        }
        /* a line of generated code the program named a layer for (torch.compile's
         * buffers): the frame says which module of the model it makes the buffer for */
        int64_t src = pf ? vt_replay_srcline(rp, rp_string(rp, pf->file), pf->line) : -1;
        char lbuf[512];
        if (src >= 0) {
            snprintf(lbuf, sizeof lbuf, "%s [%s]", fn, res->srcs[src].layer);
            fn = lbuf;
        }
        f->function = name(ss, fn);
        f->file = pf ? name(ss, rp_string(rp, pf->file)) : NULL;
        f->line = pf ? pf->line : 0;
        f->module = "python";
    } else if (n->kind == VT_FRAME_SCOPE) {
        const char *s = rp_string(rp, (uint32_t)n->value);
        if (!s) {
            snprintf(buf, sizeof buf, "scope+%" PRIu64, n->value);
            s = buf;
        } else {
            f->resolved = 1;
        }
        f->function = name(ss, s);
    }
    f->file_base = name(ss, base_name(f->file));
    if (!f->function) f->function = "?";
}

/* "module+0xhex" into buf (n bytes): every unresolved frame is named so, and
 * snprintf's format parsing cost more than the rest of the folding. */
static void module_offset(char *buf, size_t n, const char *mb, uint64_t off)
{
    char hex[16];
    size_t k = 0;
    do {
        hex[k++] = "0123456789abcdef"[off & 15];
        off >>= 4;
    } while (off);
    size_t m = strlen(mb);
    if (m + 3 + k >= n) m = n - 4 - k;  /* n leaves room for 16 digits and a short name */
    memcpy(buf, mb, m);
    memcpy(buf + m, "+0x", 3);
    m += 3;
    while (k) buf[m++] = hex[--k];
    buf[m] = 0;
}

/* Per stack node of one trace, its frames, made once: stacks share their outer frames
 * (the benchmark's 10,000 stacks of 20 to 40 frames are 143,380 nodes), and making a
 * frame (symbols, interning) is most of the folding. Kept while one trace's stacks are
 * folded (NULL when it could not be made: frames are then made each time). */
typedef struct {
    uint32_t *first;        /* node index -> pool index + 1; 0: not made yet */
    uint8_t *count;
    vt_site_frame *pool;
    size_t n, cap;
    const char *mod_path, *mod_name;  /* the last module path and its interned base name */
} node_memo;

/* A native frame expands to the functions inlined at its address, innermost first.
 * Returns how many frames it wrote (at least 1). */
static size_t native_frames(vt_sites *ss, node_memo *nm, vt_sym *sym, uint64_t ip, vt_site_frame *out, size_t max)
{
    vt_frame vf[16];
    int k = sym ? vt_sym_resolve_inline(sym, ip, vf, 16) : -1;
    if (k > 16) k = 16;
    if (k < 1) { /* in no recorded module */
        memset(&vf[0], 0, sizeof vf[0]);
        vf[0].offset = ip;
        k = 1;
    }
    if ((size_t)k > max) k = (int)max;
    for (int i = 0; i < k; i++) {
        vt_site_frame *f = &out[i];
        char buf[96];
        memset(f, 0, sizeof *f);
        f->kind = VT_FRAME_NATIVE;
        const char *mb = vf[i].module ? base_name(vf[i].module) : "[unknown]";
        if (nm && vf[i].module && vf[i].module == nm->mod_path) {
            f->module = nm->mod_name;
        } else {
            f->module = name(ss, mb);
            if (nm && vf[i].module) {
                nm->mod_path = vf[i].module;
                nm->mod_name = f->module;
            }
        }
        f->offset = vf[i].offset;
        if (vf[i].function) {
            f->function = name(ss, vf[i].function);
            f->resolved = 1;
        } else {
            module_offset(buf, sizeof buf, mb, vf[i].offset);
            f->function = name(ss, buf);
        }
        if (!f->function) f->function = "?";
        f->file = name(ss, vf[i].file);
        f->file_base = name(ss, base_name(f->file));
        f->line = vf[i].line;
    }
    return (size_t)k;
}

/* ------------------------------------------------------------------------ *
 *  Site keys
 * ------------------------------------------------------------------------ */
/* A site is keyed by its folded frames' (function, file base name, line, module).
 * Frame strings are interned in ss->names, so equal strings are equal pointers and the
 * key needs no text: a hash of the pointers finds candidates, pointers compare them.
 * NULL and "" are the same key text. */
static inline const char *key_str(const char *p)
{
    return p && *p ? p : NULL;
}

static uint64_t key_hash(const vt_site_frame *f, size_t n)
{
    uint64_t h = n;
    for (size_t i = 0; i < n; i++) {
        h = vt_hash64(h ^ (uint64_t)(uintptr_t)key_str(f[i].function));
        h = vt_hash64(h ^ (uint64_t)(uintptr_t)key_str(f[i].file_base));
        h = vt_hash64(h ^ (uint64_t)(uintptr_t)key_str(f[i].module) ^ (uint64_t)f[i].line << 32);
    }
    return h;
}

static int key_equal(const vt_site *s, const vt_site_frame *f, size_t n)
{
    if (s->nframes != n) return 0;
    for (size_t i = 0; i < n; i++) {
        const vt_site_frame *a = &s->frames[i], *b = &f[i];
        if (a->line != b->line || key_str(a->function) != key_str(b->function) ||
            key_str(a->file_base) != key_str(b->file_base) || key_str(a->module) != key_str(b->module))
            return 0;
    }
    return 1;
}

static int slots_grow(vt_sites *ss)
{
    size_t cap = ss->mask ? (ss->mask + 1) * 2 : 1024;
    uint32_t *slots = calloc(cap, sizeof *slots);
    if (!slots) return -1;
    for (size_t k = 0; k < ss->n; k++) {
        size_t j = (size_t)ss->sites[k].hash & (cap - 1);
        while (slots[j]) j = (j + 1) & (cap - 1);
        slots[j] = (uint32_t)k + 1;
    }
    free(ss->slots);
    ss->slots = slots;
    ss->mask = cap - 1;
    return 0;
}

/* The key's text, a byte at a time, for vt_sites_cmp: no copy of it is kept. */
typedef struct {
    const vt_site *s;     /* NULL: the empty key */
    uint32_t frame;
    int field;            /* 0 function, 2 file base, 4 line, 6 module; odd: a separator */
    const char *p;        /* in the current string field, or NULL before it */
    char num[12];
} key_cursor;

static int key_next(key_cursor *c)
{
    for (;;) {
        if (!c->s || c->frame >= c->s->nframes) return -1;
        const vt_site_frame *f = &c->s->frames[c->frame];
        if (c->field & 1) {
            int sep = c->field == 7 ? 0x1e : 0x1f;
            if (++c->field == 8) {
                c->field = 0;
                c->frame++;
            }
            return sep;
        }
        if (!c->p) {
            if (c->field == 4) {
                snprintf(c->num, sizeof c->num, "%u", f->line);
                c->p = c->num;
            } else {
                const char *t = c->field == 0 ? f->function : c->field == 2 ? f->file_base : f->module;
                c->p = t ? t : "";
            }
        }
        if (*c->p) return (unsigned char)*c->p++;
        c->p = NULL;
        c->field++;
    }
}

int vt_sites_cmp(const vt_sites *ss, uint32_t a, uint32_t b)
{
    key_cursor x = { .s = a < ss->n ? &ss->sites[a] : NULL };
    key_cursor y = { .s = b < ss->n ? &ss->sites[b] : NULL };
    for (;;) {
        int u = key_next(&x), v = key_next(&y);
        if (u != v) return u < v ? -1 : 1;
        if (u < 0) return 0;
    }
}

/* ------------------------------------------------------------------------ *
 *  Folding
 * ------------------------------------------------------------------------ */
/* The frames of node ix into out (room for max), from the memo or made (and kept). */
static size_t node_frames(vt_sites *ss, node_memo *nm, const vt_replay *rp, vt_sym *sym, uint32_t ix,
                          vt_site_frame *out, size_t max)
{
    const vt_replay_result *res = vt_replay_result_of(rp);
    if (nm && nm->first[ix]) {
        size_t k = nm->count[ix] < max ? nm->count[ix] : max;
        memcpy(out, &nm->pool[nm->first[ix] - 1], k * sizeof *out);
        return k;
    }
    const vt_stack_node *node = &res->nodes[ix];
    size_t k = 1;
    if (node->kind == VT_FRAME_NATIVE) k = native_frames(ss, nm, sym, node->value, out, max);
    else frame_of(ss, rp, node, out);
    /* kept only whole (max did not cut it short), and only while memory lasts */
    if (nm && max >= 16 && nm->n + k < UINT32_MAX) {
        if (nm->n + k > nm->cap) {
            size_t c = nm->cap + nm->cap / 2 + 16;
            vt_site_frame *p = realloc(nm->pool, c * sizeof *p);
            if (!p) return k;
            nm->pool = p;
            nm->cap = c;
        }
        memcpy(&nm->pool[nm->n], out, k * sizeof *out);
        nm->first[ix] = (uint32_t)nm->n + 1;
        nm->count[ix] = (uint8_t)k;
        nm->n += k;
    }
    return k;
}

/* Folds the stack ending at node stack_id into a site; its index, or UINT32_MAX when out
 * of memory. */
static uint32_t fold(vt_sites *ss, node_memo *nm, const vt_replay *rp, vt_sym *sym, uint32_t stack_id)
{
    const vt_replay_result *res = vt_replay_result_of(rp);
    vt_site_frame fr[VT_SITE_MAX_FRAMES];
    size_t n = 0;
    uint32_t id = stack_id;
    /* A corrupt trace may hold a cycle; the depth limit ends the walk. */
    while (id && n < VT_SITE_MAX_FRAMES) {
        const uint32_t *ix = vt_idarr_get(res->node_ix, id);
        if (!ix) break;
        n += node_frames(ss, nm, rp, sym, *ix, &fr[n], VT_SITE_MAX_FRAMES - n);
        id = res->nodes[*ix].parent;
    }
    /* Drop the innermost plumbing frames, keeping the outermost one of them when
     * nothing else is left (a stack cut at the driver still says where it was). */
    size_t skip = 0;
    while (skip < n && is_plumbing_frame(&fr[skip])) skip++;
    if (skip == n && n) skip = n - 1;

    const vt_site_frame *f = fr + skip;
    size_t nf = n - skip;
    uint64_t h = key_hash(f, nf);
    if (ss->mask) {
        for (size_t i = (size_t)h & ss->mask; ss->slots[i]; i = (i + 1) & ss->mask) {
            uint32_t k = ss->slots[i] - 1;
            if (ss->sites[k].hash == h && key_equal(&ss->sites[k], f, nf)) return k; /* seen already */
        }
    }
    if (ss->n >= UINT32_MAX - 1) return UINT32_MAX;
    if ((ss->n + 1) * 2 > (ss->mask ? ss->mask + 1 : 0) && slots_grow(ss)) return UINT32_MAX;
    if (ss->n == ss->cap) {
        size_t c = ss->cap ? ss->cap * 2 : 256;
        vt_site *p = realloc(ss->sites, c * sizeof *p);
        if (!p) return UINT32_MAX;
        ss->sites = p;
        ss->cap = c;
    }
    uint32_t site = (uint32_t)ss->n;
    vt_site *s = &ss->sites[site];
    memset(s, 0, sizeof *s);
    s->hash = h;
    s->nframes = (uint32_t)nf;
    s->frames = vt_arena_alloc(&ss->arena, (nf ? nf : 1) * sizeof *s->frames);
    if (!s->frames) return UINT32_MAX;
    if (nf) memcpy(s->frames, f, nf * sizeof *s->frames);
    const char *fn = nf ? s->frames[0].function : "[no stack]";
    const char *mod = nf && s->frames[0].module ? s->frames[0].module : "[none]";
    s->function_id = vt_strtab_intern(&ss->names, fn, strlen(fn));
    s->module_id = vt_strtab_intern(&ss->names, mod, strlen(mod));
    ss->n++;
    size_t i = (size_t)h & ss->mask;
    while (ss->slots[i]) i = (i + 1) & ss->mask;
    ss->slots[i] = site + 1;
    return site;
}

int vt_sites_assign(vt_sites *ss, vt_replay *rp, vt_sym *sym)
{
    const vt_replay_result *res = vt_replay_result_of(rp);
    /* Groups of one stack (several kinds or devices) fold once. */
    vt_idmap done = { 0 };
    int rc = 0;
    node_memo memo = { 0 }, *nm = NULL;
    memo.first = calloc(res->nnodes ? res->nnodes : 1, sizeof *memo.first);
    memo.count = malloc(res->nnodes ? res->nnodes : 1);
    /* a frame per node, mostly (more where functions were inlined): sized so, not doubled */
    memo.cap = res->nnodes + 1024;
    memo.pool = malloc(memo.cap * sizeof *memo.pool);
    if (memo.first && memo.count && memo.pool) nm = &memo;
    for (size_t i = 0; i < res->ngroups && !rc; i++) {
        vt_group *g = &vt_replay_groups_edit(rp)[i];
        uint32_t *v = vt_idmap_get(&done, g->stack_id);
        if (v) { g->site = *v; continue; }
        g->site = fold(ss, nm, rp, sym, g->stack_id);
        if (g->site == UINT32_MAX || vt_idmap_put(&done, g->stack_id, g->site)) rc = -1;
    }
    for (size_t i = 0; i < res->nooms && !rc; i++) {
        uint32_t *v = vt_idmap_get(&done, res->ooms[i].stack_id);
        vt_oom *oo = &vt_replay_ooms_edit(rp)[i];
        oo->site = v ? *v : fold(ss, nm, rp, sym, oo->stack_id);
        if (oo->site == UINT32_MAX) rc = -1;
    }
    vt_idmap_free(&done);
    free(memo.first);
    free(memo.count);
    free(memo.pool);
    return rc;
}

void vt_sites_free(vt_sites *ss)
{
    free(ss->slots);
    vt_strtab_free(&ss->names);
    vt_arena_free(&ss->arena);
    free(ss->sites);
    memset(ss, 0, sizeof *ss);
}
