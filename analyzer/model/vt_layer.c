// SPDX-License-Identifier: MIT
/* vt_layer.c - layers (see vt_layer.h). */
#include "vt_layer.h"
#include "vt_replay_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Per node of the stack tree (parallel to rp->nodes): the innermost scope and the
 * innermost model Python frame on the path from the node to the root. */
typedef struct {
    uint32_t scope;         /* STRING id, 0 = none */
    uint32_t py;            /* PYFRAME id, 0 = none */
    uint32_t src;           /* a named source line (rp->srcs) + 1, 0 = none */
    uint8_t  done;
} node_memo;

struct vt_layers {
    node_memo *memo;
    size_t memo_cap;
    vt_idmap py_model;      /* PYFRAME id -> 1 (model) or 2 (not) */
    vt_idmap py_src;        /* PYFRAME id -> its named source line + 1, or 0 */
    vt_strtab names;        /* layer name -> local id */
    vt_idmap ctr_ix;        /* local id << 8 | (device + 1) -> index in ctrs */
    vt_layer_ctr **ctrs;
    size_t nctrs, ctrs_cap;
    vt_arena arena;         /* the counters (stable addresses: groups point at them) */
};

void vt_layers_free(vt_layers *ls)
{
    if (!ls) return;
    free(ls->memo);
    vt_idmap_free(&ls->py_model);
    vt_idmap_free(&ls->py_src);
    vt_strtab_free(&ls->names);
    vt_idmap_free(&ls->ctr_ix);
    free(ls->ctrs);
    vt_arena_free(&ls->arena);
    free(ls);
}

void vt_layers_done(vt_layers *ls)
{
    if (!ls) return;
    free(ls->memo);
    ls->memo = NULL;
    ls->memo_cap = 0;
    vt_idmap_free(&ls->py_model);
    vt_idmap_free(&ls->py_src);
}

/* ------------------------------------------------------------------------ *
 *  Whose code a Python file is
 * ------------------------------------------------------------------------ */
/* Packages whose frames are never a layer: the frameworks' own Python code. */
static const char *const framework_pkgs[] = {
    "torch", "torchgen", "functorch", "triton", "jax", "jaxlib", "flax", "optax", "haiku",
    "numpy", "scipy", "cupy", "cupyx", "cupy_backends", "nvidia", "tensorflow", "keras",
    "tf_keras", "accelerate", "deepspeed", "apex", "vramtrace_py", NULL
};

static int is_framework_component(const char *c, size_t n)
{
    for (const char *const *p = framework_pkgs; *p; p++) {
        size_t k = strlen(*p);
        /* "torch", or a single-file module "torch.py" */
        if ((n == k || (n == k + 3 && !memcmp(c + k, ".py", 3))) && !memcmp(c, *p, k)) return 1;
    }
    return 0;
}

int vt_layer_is_model_file(const char *path)
{
    if (!path || !*path || path[0] == '<') return 0;
    /* any directory (or module) of a framework: site-packages, editable installs */
    for (const char *c = path; *c;) {
        const char *e = strchr(c, '/');
        size_t n = e ? (size_t)(e - c) : strlen(c);
        if (n && is_framework_component(c, n)) return 0;
        if (!e) break;
        c = e + 1;
    }
    if (strstr(path, "/site-packages/") || strstr(path, "/dist-packages/")) return 1;
    /* the Python library: .../lib/pythonX.Y/... */
    const char *l = strstr(path, "/lib/python");
    if (!l) l = strstr(path, "/lib64/python");
    if (l) {
        const char *v = strchr(l + 1, '/') + 7;  /* after "python" */
        if (*v >= '2' && *v <= '3') return 0;
    }
    return 1;
}

/* ------------------------------------------------------------------------ *
 *  A stack's layer
 * ------------------------------------------------------------------------ */
static const char *rp_string(const vt_replay *rp, uint32_t id)
{
    const uint32_t *ix = vt_idarr_get(&rp->string_ix, id);
    return ix ? rp->strings[*ix] : NULL;
}

static const vt_pyframe *rp_pyframe(const vt_replay *rp, uint32_t id)
{
    const uint32_t *ix = vt_idarr_get(&rp->pyframe_ix, id);
    return ix ? &rp->pyframes[*ix] : NULL;
}

/* XLA's compiler names its passes with NVTX ranges ("XlaPass:#name=...",
 * "XlaCompileBackend:#module=...", "XlaAutotunerMeasurement..."): work of the
 * compiler, never a part of the model. */
int vt_layer_scope_is_layer(const char *name)
{
    return !(name && !strncmp(name, "Xla", 3) && name[3] >= 'A' && name[3] <= 'Z');
}

static int py_is_model(vt_layers *ls, const vt_replay *rp, uint32_t pyid)
{
    uint32_t *v = vt_idmap_get(&ls->py_model, pyid);
    if (v) return *v == 1;
    const vt_pyframe *pf = rp_pyframe(rp, pyid);
    int model = pf && vt_layer_is_model_file(rp_string(rp, pf->file));
    vt_idmap_put(&ls->py_model, pyid, model ? 1 : 2);
    return model;
}

/* The layer the program named for the line of Python frame pyid (a SOURCE record):
 * its index in rp->srcs + 1, or 0. */
static uint32_t py_src(vt_layers *ls, const vt_replay *rp, uint32_t pyid)
{
    if (!rp->nsrcs) return 0;
    uint32_t *v = vt_idmap_get(&ls->py_src, pyid);
    if (v) return *v;
    const vt_pyframe *pf = rp_pyframe(rp, pyid);
    int64_t ix = pf ? vt_replay_srcline(rp, rp_string(rp, pf->file), pf->line) : -1;
    uint32_t r = (uint32_t)(ix + 1);
    vt_idmap_put(&ls->py_src, pyid, r);
    return r;
}

static int memo_fit(vt_layers *ls, size_t n)
{
    if (n <= ls->memo_cap) return 0;
    size_t c = ls->memo_cap ? ls->memo_cap : 1024;
    while (c < n) c *= 2;
    node_memo *m = realloc(ls->memo, c * sizeof *m);
    if (!m) return -1;
    memset(m + ls->memo_cap, 0, (c - ls->memo_cap) * sizeof *m);
    ls->memo = m;
    ls->memo_cap = c;
    return 0;
}

/* The innermost scope and model frame of the stack ending at node id. */
static node_memo layer_of_stack(vt_layers *ls, const vt_replay *rp, uint32_t id)
{
    node_memo none = { 0, 0, 0, 1 };
    if (!id || memo_fit(ls, rp->nnodes)) return none;
    enum { MAXP = 4096 };   /* a corrupt trace may hold a cycle */
    uint32_t path[MAXP];
    size_t np = 0;
    node_memo base = none;
    while (id && np < MAXP) {
        const uint32_t *ix = vt_idarr_get(&rp->node_ix, id);
        if (!ix) break;
        if (ls->memo[*ix].done) { base = ls->memo[*ix]; break; }
        path[np++] = *ix;
        id = rp->nodes[*ix].parent;
    }
    while (np--) {   /* outermost first: an inner frame overrides */
        const vt_stack_node *n = &rp->nodes[path[np]];
        if (n->kind == VT_FRAME_SCOPE && n->value && vt_layer_scope_is_layer(rp_string(rp, (uint32_t)n->value))) {
            base.scope = (uint32_t)n->value;
            base.src = 0;
        } else if (n->kind == VT_FRAME_PYTHON) {
            uint32_t s = py_src(ls, rp, (uint32_t)n->value);
            if (s) {
                base.src = s;
                base.scope = 0;
            } else if (py_is_model(ls, rp, (uint32_t)n->value)) {
                base.py = (uint32_t)n->value;
            }
        }
        ls->memo[path[np]] = base;
    }
    return base;
}

static const char *base_name(const char *p)
{
    const char *s = p ? strrchr(p, '/') : NULL;
    return s ? s + 1 : p;
}

static vt_layers *layers_of(vt_replay *rp)
{
    if (!rp->layers) rp->layers = calloc(1, sizeof *rp->layers);
    return rp->layers;
}

static vt_layer_ctr *ctr_for(vt_layers *ls, const char *name, int device);

vt_layer_ctr *vt_layer_named(vt_replay *rp, uint32_t sid, int device)
{
    vt_layers *ls = layers_of(rp);
    const char *name = ls ? rp_string(rp, sid) : NULL;
    return name && *name ? ctr_for(ls, name, device) : NULL;
}

vt_layer_ctr *vt_layer_group(vt_replay *rp, uint32_t stack_id, int device)
{
    if (!stack_id) return NULL;
    vt_layers *ls = layers_of(rp);
    if (!ls) return NULL;
    node_memo m = layer_of_stack(ls, rp, stack_id);
    char buf[1024];
    const char *name = NULL;
    if (m.src) {
        name = rp->srcs[m.src - 1].layer;
    } else if (m.scope) {
        name = rp_string(rp, m.scope);
        if (!name) {
            snprintf(buf, sizeof buf, "scope+%u", m.scope);
            name = buf;
        }
    } else if (m.py) {
        const vt_pyframe *pf = rp_pyframe(rp, m.py);
        const char *fn = pf ? rp_string(rp, pf->function) : NULL;
        const char *file = pf ? base_name(rp_string(rp, pf->file)) : NULL;
        if (fn && file) snprintf(buf, sizeof buf, "%s (%s)", fn, file);
        else snprintf(buf, sizeof buf, "python+%u", m.py);
        name = buf;
    } else {
        return NULL;
    }
    return ctr_for(ls, name, device);
}

static vt_layer_ctr *ctr_for(vt_layers *ls, const char *name, int device)
{
    uint32_t local = vt_strtab_intern(&ls->names, name, strlen(name));
    if (local == UINT32_MAX) return NULL;
    uint64_t key = (uint64_t)local << 8 | (uint8_t)(device + 1);
    uint32_t *ix = vt_idmap_get(&ls->ctr_ix, key);
    if (ix) return ls->ctrs[*ix];
    if (ls->nctrs == ls->ctrs_cap) {
        size_t c = ls->ctrs_cap ? ls->ctrs_cap * 2 : 64;
        vt_layer_ctr **p = realloc(ls->ctrs, c * sizeof *p);
        if (!p) return NULL;
        ls->ctrs = p;
        ls->ctrs_cap = c;
    }
    vt_layer_ctr *c = vt_arena_alloc(&ls->arena, sizeof *c);
    if (!c || vt_idmap_put(&ls->ctr_ix, key, (uint32_t)ls->nctrs)) return NULL;
    memset(c, 0, sizeof *c);
    c->layer = local;
    c->name_id = UINT32_MAX;
    c->device = device;
    ls->ctrs[ls->nctrs++] = c;
    return c;
}

/* ------------------------------------------------------------------------ *
 *  After the replay
 * ------------------------------------------------------------------------ */
const char *vt_layer_name(const vt_replay *rp, const vt_layer_ctr *c)
{
    const char *s = rp->layers ? vt_strtab_get(&rp->layers->names, c->layer) : NULL;
    return s ? s : "?";
}

int vt_layers_intern(vt_replay *rp, vt_strtab *names)
{
    vt_layers *ls = rp->layers;
    if (!ls) return 0;
    for (size_t i = 0; i < ls->nctrs; i++) {
        const char *s = vt_layer_name(rp, ls->ctrs[i]);
        ls->ctrs[i]->name_id = vt_strtab_intern(names, s, strlen(s));
        if (ls->ctrs[i]->name_id == UINT32_MAX) return -1;
    }
    return 0;
}

size_t vt_layers_list(const vt_replay *rp, vt_layer_ctr *const **out)
{
    if (!rp->layers) {
        *out = NULL;
        return 0;
    }
    *out = rp->layers->ctrs;
    return rp->layers->nctrs;
}
