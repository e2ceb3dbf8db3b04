/* vt_sites.c - folding recorded stacks into sites. */
#include "vt_sites.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Interned copy: frames of thousands of sites share their strings. */
static const char *name(vt_sites *ss, const char *s)
{
    if (!s) return NULL;
    uint32_t id = vt_strtab_intern(&ss->names, s, strlen(s));
    return id == UINT32_MAX ? NULL : vt_strtab_get(&ss->names, id);
}

static const char *rp_string(const vt_replay *rp, uint32_t id)
{
    const uint32_t *ix = vt_idmap_get(&rp->string_ix, id);
    return ix ? rp->strings[*ix] : NULL;
}

static void frame_of(vt_sites *ss, const vt_replay *rp, const vt_stack_node *n,
                     vt_site_frame *f)
{
    char buf[96];
    memset(f, 0, sizeof *f);
    f->kind = n->kind;
    if (n->kind == VT_FRAME_PYTHON) {
        const uint32_t *ix = vt_idmap_get(&rp->pyframe_ix, (uint32_t)n->value);
        const vt_pyframe *pf = ix ? &rp->pyframes[*ix] : NULL;
        const char *fn = pf ? rp_string(rp, pf->function) : NULL;
        if (!fn) {
            snprintf(buf, sizeof buf, "python+%" PRIu64, n->value);
            fn = buf;
        } else {
            f->resolved = 1;
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

/* A native frame expands to the functions inlined at its address, innermost first.
 * Returns how many frames it wrote (at least 1). */
static size_t native_frames(vt_sites *ss, vt_sym *sym, uint64_t ip, vt_site_frame *out, size_t max)
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
        f->module = name(ss, mb);
        f->offset = vf[i].offset;
        if (vf[i].function) {
            f->function = name(ss, vf[i].function);
            f->resolved = 1;
        } else {
            snprintf(buf, sizeof buf, "%s+0x%" PRIx64, mb, vf[i].offset);
            f->function = name(ss, buf);
        }
        if (!f->function) f->function = "?";
        f->file = name(ss, vf[i].file);
        f->file_base = name(ss, base_name(f->file));
        f->line = vf[i].line;
    }
    return (size_t)k;
}

static int append(char **buf, size_t *len, size_t *cap, const char *s)
{
    size_t n = strlen(s);
    if (*len + n + 1 > *cap) {
        size_t c = *cap ? *cap * 2 : 512;
        while (c < *len + n + 1) c *= 2;
        char *p = realloc(*buf, c);
        if (!p) return -1;
        *buf = p;
        *cap = c;
    }
    memcpy(*buf + *len, s, n + 1);
    *len += n;
    return 0;
}

uint32_t vt_sites_fold(vt_sites *ss, const vt_replay *rp, vt_sym *sym, uint32_t stack_id)
{
    vt_site_frame fr[VT_SITE_MAX_FRAMES];
    size_t n = 0;
    uint32_t id = stack_id;
    /* A corrupt trace may hold a cycle; the depth limit ends the walk. */
    while (id && n < VT_SITE_MAX_FRAMES) {
        const uint32_t *ix = vt_idmap_get(&rp->node_ix, id);
        if (!ix) break;
        const vt_stack_node *node = &rp->nodes[*ix];
        if (node->kind == VT_FRAME_NATIVE)
            n += native_frames(ss, sym, node->value, &fr[n], VT_SITE_MAX_FRAMES - n);
        else
            frame_of(ss, rp, node, &fr[n++]);
        id = node->parent;
    }
    /* Drop the innermost plumbing frames, keeping the outermost one of them when
     * nothing else is left (a stack cut at the driver still says where it was). */
    size_t skip = 0;
    while (skip < n && is_plumbing_frame(&fr[skip])) skip++;
    if (skip == n && n) skip = n - 1;

    char *key = NULL;
    size_t klen = 0, kcap = 0;
    if (append(&key, &klen, &kcap, "")) return UINT32_MAX;
    for (size_t i = skip; i < n; i++) {
        char line[16];
        snprintf(line, sizeof line, "%u", fr[i].line);
        if (append(&key, &klen, &kcap, fr[i].function) || append(&key, &klen, &kcap, "\x1f") ||
            append(&key, &klen, &kcap, fr[i].file_base ? fr[i].file_base : "") ||
            append(&key, &klen, &kcap, "\x1f") || append(&key, &klen, &kcap, line) ||
            append(&key, &klen, &kcap, "\x1f") ||
            append(&key, &klen, &kcap, fr[i].module ? fr[i].module : "") ||
            append(&key, &klen, &kcap, "\x1e")) {
            free(key);
            return UINT32_MAX;
        }
    }
    size_t before = ss->keys.n;
    uint32_t site = vt_strtab_intern(&ss->keys, key, klen);
    free(key);
    if (site == UINT32_MAX) return UINT32_MAX;
    if (ss->keys.n == before) return site; /* seen already */

    if (ss->n == ss->cap) {
        size_t c = ss->cap ? ss->cap * 2 : 256;
        vt_site *p = realloc(ss->sites, c * sizeof *p);
        if (!p) return UINT32_MAX;
        ss->sites = p;
        ss->cap = c;
    }
    vt_site *s = &ss->sites[ss->n++];
    memset(s, 0, sizeof *s);
    s->key = vt_strtab_get(&ss->keys, site);
    s->nframes = (uint32_t)(n - skip);
    s->frames = vt_arena_alloc(&ss->arena, (s->nframes ? s->nframes : 1) * sizeof *s->frames);
    if (!s->frames) return UINT32_MAX;
    if (s->nframes) memcpy(s->frames, fr + skip, s->nframes * sizeof *s->frames);
    const char *fn = s->nframes ? s->frames[0].function : "[no stack]";
    const char *mod = s->nframes && s->frames[0].module ? s->frames[0].module : "[none]";
    s->function_id = vt_strtab_intern(&ss->names, fn, strlen(fn));
    s->module_id = vt_strtab_intern(&ss->names, mod, strlen(mod));
    return site;
}

int vt_sites_assign(vt_sites *ss, vt_replay *rp, vt_sym *sym)
{
    /* Groups of one stack (several kinds or devices) fold once. */
    vt_idmap done = { 0 };
    int rc = 0;
    for (size_t i = 0; i < rp->ngroups && !rc; i++) {
        vt_group *g = &rp->groups[i];
        uint32_t *v = vt_idmap_get(&done, g->stack_id);
        if (v) { g->site = *v; continue; }
        g->site = vt_sites_fold(ss, rp, sym, g->stack_id);
        if (g->site == UINT32_MAX || vt_idmap_put(&done, g->stack_id, g->site)) rc = -1;
    }
    for (size_t i = 0; i < rp->nooms && !rc; i++) {
        uint32_t *v = vt_idmap_get(&done, rp->ooms[i].stack_id);
        rp->ooms[i].site = v ? *v : vt_sites_fold(ss, rp, sym, rp->ooms[i].stack_id);
        if (rp->ooms[i].site == UINT32_MAX) rc = -1;
    }
    vt_idmap_free(&done);
    return rc;
}

void vt_sites_free(vt_sites *ss)
{
    vt_strtab_free(&ss->keys);
    vt_strtab_free(&ss->names);
    vt_arena_free(&ss->arena);
    free(ss->sites);
    memset(ss, 0, sizeof *ss);
}
