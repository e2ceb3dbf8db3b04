// SPDX-License-Identifier: MIT
/* vt_export_folded.c - folded stacks, the input of flamegraph.pl and inferno: one line
 * per distinct stack, outermost frame first, frames joined by ';', then a space and
 * the bytes of allocations made at exactly that stack.
 *
 * `folded-classes` ends each frame with its class as the annotations FlameGraph's
 * flamegraph.pl and inferno know (they strip them from the labels, and
 * `--colors=java` colours by them): user "_[j]" (green), library Python "_[i]" (aqua),
 * plumbing "_[k]" (orange), interpreter "_[w]", framework none (yellow or red, as
 * native code). */
#include "vt_export.h"
#include "vt_ftree.h"

#include <inttypes.h>

typedef struct {
    FILE *f;
    int classes;
} folded_out;

static const char *class_suffix(uint8_t c)
{
    switch (c) {
    case VT_FC_USER: return "_[j]";
    case VT_FC_LIBRARY: return "_[i]";
    case VT_FC_PLUMBING: return "_[k]";
    case VT_FC_INTERPRETER: return "_[w]";
    default: return "";     /* framework; and the "[no stack]" leaf */
    }
}

static int folded_line(const vt_ftree *t, uint32_t node, void *ctx)
{
    const folded_out *o = ctx;
    FILE *f = o->f;
    const vt_fnode *n = &t->n[node];
    uint64_t below = 0;
    for (uint32_t c = n->child; c != UINT32_MAX; c = t->n[c].next) below += t->n[c].value;
    if (node == 0 || n->value <= below) return 0;
    uint32_t path[VT_SITE_MAX_FRAMES * 16 + 2];
    size_t k = 0;
    for (uint32_t p = node; p != 0 && p != UINT32_MAX && k < sizeof path / sizeof path[0]; p = t->n[p].parent)
        path[k++] = p;
    while (k-- > 0) {
        fputs(vt_strtab_get(&t->names, t->n[path[k]].name), f);
        if (o->classes) fputs(class_suffix(t->n[path[k]].fclass), f);
        if (k) fputc(';', f);
    }
    fprintf(f, " %" PRIu64 "\n", n->value - below);
    return 0;
}

static int folded(FILE *f, const vt_analysis *a, const vt_export_opts *o, int classes)
{
    vt_eset e;
    if (vt_eset_init(&e, a, o->device)) return 2;
    vt_ftree t;
    int rc = 0;
    if (vt_ftree_build(&t, &e, o->what, "all", 1)) {
        fprintf(stderr, "vramtrace: out of memory\n");
        rc = 2;
    } else {
        folded_out fo = { f, classes };
        vt_ftree_walk(&t, folded_line, &fo);
    }
    vt_ftree_free(&t);
    vt_eset_free(&e);
    return rc;
}

int vt_export_folded(FILE *f, const vt_analysis *a, const vt_export_opts *o)
{
    return folded(f, a, o, 0);
}

int vt_export_folded_classes(FILE *f, const vt_analysis *a, const vt_export_opts *o)
{
    return folded(f, a, o, 1);
}
