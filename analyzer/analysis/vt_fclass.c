/* SPDX-License-Identifier: MIT */
/* vt_fclass.c - frame classes (by the rules' class: lines) and operator names. */
#include "vt_fclass.h"

#include "vt_cat_list.h"
#include "vt_rules.h"
#include "vt_table.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ *
 *  Operator names
 * ------------------------------------------------------------------------ */
static int ident_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Copies the identifier at s into buf; its length (0: none, or it did not fit). */
static size_t ident(const char *s, char *buf, size_t n)
{
    size_t k = 0;
    while (ident_char(s[k])) k++;
    if (!k || k >= n) return 0;
    memcpy(buf, s, k);
    buf[k] = 0;
    return k;
}

/* "log_softmax_cuda_out" -> "log_softmax": a structured kernel's class is named after
 * the backend's kernel (native_functions.yaml's dispatch names), whose words for the
 * device and the variant say nothing of the operator. */
static size_t drop_kernel_words(char *buf)
{
    static const char *const words[] = { "out", "cuda", "CUDA", "cpu", "CPU", "ufunc", "functional",
                                         "inplace", "default", NULL };
    char out[256];
    size_t k = 0;
    for (char *w = buf; *w;) {
        char *e = strchr(w, '_');
        size_t n = e ? (size_t)(e - w) : strlen(w);
        int drop = n == 0;
        for (int i = 0; !drop && words[i]; i++) drop = strlen(words[i]) == n && !memcmp(words[i], w, n);
        if (!drop && k + n + 1 < sizeof out) {
            if (k) out[k++] = '_';
            memcpy(out + k, w, n);
            k += n;
        }
        w += n;
        if (*w) w++;
    }
    out[k] = 0;
    memcpy(buf, out, k + 1);
    return k;
}

size_t vt_fclass_op(const char *f, char *buf, size_t n)
{
    const char *p;
    if (!f || n < 2) return 0;
    if ((p = strstr(f, "at::_ops::"))) return ident(p + 10, buf, n);
    if ((p = strstr(f, "VariableType::"))) {
        p += 14;
        if (!strncmp(p, "(anonymous namespace)::", 23)) p += 23;
        size_t k = ident(p, buf, n);
        return k && p[k] == '(' ? k : 0;  /* a function, not a nested namespace */
    }
    if ((p = strstr(f, "structured_"))) {
        if (p > f && ident_char(p[-1])) return 0;
        if (!ident(p + 11, buf, n)) return 0;
        return drop_kernel_words(buf);
    }
    return 0;
}

/* Operators that only make storage for another: the operator that asked for them says
 * more (aten::empty_strided under aten::addmm's output). */
static int generic_op(const char *op)
{
    return !strncmp(op, "empty", 5) || !strncmp(op, "new_empty", 9) || !strncmp(op, "resize_", 7) ||
           !strncmp(op, "_empty", 6);
}

/* The site's operator: the innermost one that is not a mere allocation, else the
 * outermost (torch.zeros is aten::zeros over aten::empty). */
static const char *site_op(vt_sites *ss, const vt_site *s)
{
    char buf[200], best[200] = "";
    for (uint32_t i = 0; i < s->nframes; i++) {
        const vt_site_frame *fr = &s->frames[i];
        if (fr->kind != VT_FRAME_NATIVE || !fr->resolved) continue;
        if (!vt_fclass_op(fr->function, buf, sizeof buf)) continue;
        memcpy(best, buf, sizeof buf);
        if (!generic_op(buf)) break;
    }
    if (!best[0]) return NULL;
    char name[210];
    int k = snprintf(name, sizeof name, "aten::%s", best);
    uint32_t id = vt_strtab_intern(&ss->names, name, (size_t)k);
    return id == UINT32_MAX ? NULL : vt_strtab_get(&ss->names, id);
}

/* ------------------------------------------------------------------------ *
 *  Classes
 * ------------------------------------------------------------------------ */
/* Memo: a distinct frame (its interned strings and kind) -> class. */
typedef struct {
    const char *function, *file, *module;
    uint8_t kind, fclass, used;
} memo_ent;

typedef struct {
    memo_ent *e;
    size_t mask, n;
} memo;

static size_t memo_hash(const vt_site_frame *f)
{
    uint64_t h = (uint64_t)(uintptr_t)f->function * 0x9e3779b97f4a7c15ull;
    h ^= (uint64_t)(uintptr_t)f->file * 0xc2b2ae3d27d4eb4full;
    h ^= ((uint64_t)(uintptr_t)f->module + f->kind) * 0x27d4eb2f165667c5ull;
    return (size_t)vt_hash64(h);
}

static int memo_grow(memo *m)
{
    size_t cap = m->e ? (m->mask + 1) * 2 : 4096;
    memo_ent *e = calloc(cap, sizeof *e);
    if (!e) return -1;
    for (size_t i = 0; m->e && i <= m->mask; i++) {
        if (!m->e[i].used) continue;
        vt_site_frame f = { .function = m->e[i].function, .file = m->e[i].file, .module = m->e[i].module,
                            .kind = m->e[i].kind };
        size_t j = memo_hash(&f) & (cap - 1);
        while (e[j].used) j = (j + 1) & (cap - 1);
        e[j] = m->e[i];
    }
    free(m->e);
    m->e = e;
    m->mask = cap - 1;
    return 0;
}

static int classify(vt_rules *rules, memo *m, const vt_site_frame *f)
{
    if ((m->n + 1) * 4 > (m->e ? m->mask + 1 : 0) * 3 && memo_grow(m)) return -1;
    size_t i = memo_hash(f) & m->mask;
    for (; m->e[i].used; i = (i + 1) & m->mask) {
        const memo_ent *e = &m->e[i];
        if (e->function == f->function && e->file == f->file && e->module == f->module && e->kind == f->kind)
            return e->fclass;
    }
    int c = rules ? vt_rules_frame_class(rules, f) : -1;
    if (c < 0) c = VT_FC_USER;
    m->e[i] = (memo_ent){ f->function, f->file, f->module, f->kind, (uint8_t)c, 1 };
    m->n++;
    return c;
}

int vt_fclass_assign(vt_sites *ss, vt_rules *rules, const vt_cat_opts *o)
{
    char err[600];
    int own = !rules || (o && o->no_default_rules);
    vt_rules *chain = own ? vt_rules_default(err, sizeof err) : rules;
    /* The user's files were read (and any error said) before the traces: one that fails
     * now is left out. */
    for (size_t i = own && o ? o->nrules : 0; chain && i-- > 0;) {
        vt_rules *r = vt_rules_load(o->rules[i], err, sizeof err);
        if (!r) continue;
        vt_rules_chain(r, chain);
        chain = r;
    }
    memo m = { 0 };
    int rc = 0;
    for (size_t k = 0; k < ss->n; k++) {
        vt_site *s = &ss->sites[k];
        for (uint32_t i = 0; i < s->nframes; i++) {
            int c = classify(chain, &m, &s->frames[i]);
            if (c < 0) { rc = -1; c = VT_FC_USER; }
            s->frames[i].fclass = (uint8_t)c;
        }
        s->op = site_op(ss, s);
    }
    free(m.e);
    if (own) vt_rules_free(chain);
    return rc;
}
