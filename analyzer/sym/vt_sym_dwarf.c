// SPDX-License-Identifier: MIT
/* vt_sym_dwarf.c - the chain of inlined calls at an address, and DWARF function names.
 *
 * libdw's dwarf_getscopes is not used: in elfutils 0.188 it drops the enclosing function
 * when that sits in a C++ namespace (it returns the inlined DIE, then the unit), and it
 * walks the whole unit for every address. Here each unit is indexed once (the address
 * ranges of its out-of-line functions, sorted); an address then costs a binary search
 * and a walk of one function's DIEs. */
#include "vt_sym_int.h"

#include <dwarf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How many index entries below the closest one are searched for a range that still holds
 * the address (GNU C nested functions lie inside their parent's range). */
#define VT_SYM_CU_NEST 16

typedef struct {
    Dwarf_Addr lo, hi; /* [lo, hi) */
    Dwarf_Die  die;    /* DW_TAG_subprogram */
} vt_sym_fnrange;

typedef struct {
    const void     *key;  /* the unit DIE's address in libdw's memory: unique per unit */
    vt_sym_fnrange *r;    /* by lo */
    size_t          n, cap;
} vt_sym_cu;

struct vt_sym_cus {
    vt_sym_cu *slot;      /* open addressing on key; power-of-two size */
    size_t     nslots, nused;
};

/* ------------------------------------------------------------------------ *
 *  Unit index
 * ------------------------------------------------------------------------ */
static int vt_sym_cu_add(vt_sym_cu *u, Dwarf_Die *die)
{
    ptrdiff_t off = 0;
    Dwarf_Addr base, lo, hi;
    while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
        if (hi <= lo) continue;
        if (u->n == u->cap) {
            size_t cap = u->cap ? 2 * u->cap : 64;
            vt_sym_fnrange *r = realloc(u->r, cap * sizeof *r);
            if (r == NULL) return -1;
            u->r = r, u->cap = cap;
        }
        u->r[u->n].lo = lo, u->r[u->n].hi = hi, u->r[u->n].die = *die;
        u->n++;
    }
    return 0;
}

/* Collects the functions with code among parent's children, looking inside namespaces,
 * imported units and (GNU C) functions nested in functions. */
static int vt_sym_cu_collect(vt_sym_cu *u, Dwarf_Die *parent, int depth)
{
    Dwarf_Die child;
    if (depth > 64 || dwarf_child(parent, &child) != 0) return 0;
    do {
        Dwarf_Attribute a;
        Dwarf_Die unit;
        switch (dwarf_tag(&child)) {
        case DW_TAG_subprogram:
            if (vt_sym_cu_add(u, &child) != 0) return -1;
            break;
        case DW_TAG_namespace:
        case DW_TAG_module:
            if (vt_sym_cu_collect(u, &child, depth + 1) != 0) return -1;
            break;
        case DW_TAG_imported_unit:
            if (dwarf_formref_die(dwarf_attr(&child, DW_AT_import, &a), &unit) != NULL &&
                vt_sym_cu_collect(u, &unit, depth + 1) != 0)
                return -1;
            break;
        default:
            break;
        }
    } while (dwarf_siblingof(&child, &child) == 0);
    return 0;
}

static int vt_sym_fnrange_cmp(const void *a, const void *b)
{
    const vt_sym_fnrange *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static vt_sym_cu *vt_sym_cus_get(vt_sym_cus **cp, Dwarf_Die *cu)
{
    vt_sym_cus *c = *cp;
    if (c == NULL && (c = *cp = calloc(1, sizeof *c)) == NULL) return NULL;
    const void *key = cu->addr;
    if (2 * (c->nused + 1) > c->nslots) {
        size_t cap = c->nslots ? 2 * c->nslots : 64;
        vt_sym_cu *t = calloc(cap, sizeof *t);
        if (t == NULL) return NULL;
        for (size_t i = 0; i < c->nslots; i++) {
            if (c->slot[i].key == NULL) continue;
            size_t j = ((uintptr_t)c->slot[i].key >> 4) & (cap - 1);
            while (t[j].key != NULL) j = (j + 1) & (cap - 1);
            t[j] = c->slot[i];
        }
        free(c->slot);
        c->slot = t, c->nslots = cap;
    }
    size_t mask = c->nslots - 1, j = ((uintptr_t)key >> 4) & mask;
    for (; c->slot[j].key != NULL; j = (j + 1) & mask)
        if (c->slot[j].key == key) return &c->slot[j];
    vt_sym_cu *u = &c->slot[j];
    u->key = key;
    c->nused++;
    if (vt_sym_cu_collect(u, cu, 0) != 0) u->n = 0; /* out of memory: no inline info */
    qsort(u->r, u->n, sizeof *u->r, vt_sym_fnrange_cmp);
    return u;
}

void vt_sym_cus_free(vt_sym_cus *c)
{
    if (c == NULL) return;
    for (size_t i = 0; i < c->nslots; i++) free(c->slot[i].r);
    free(c->slot);
    free(c);
}

/* ------------------------------------------------------------------------ *
 *  Inline chain
 * ------------------------------------------------------------------------ */

/* Appends the inlined_subroutine DIEs under parent that hold pc, outermost first,
 * through lexical blocks. A nested function's code is indexed on its own, so nested
 * subprograms are not entered here. */
static int vt_sym_inlines(Dwarf_Die *parent, Dwarf_Addr pc, Dwarf_Die *chain, int n, int depth)
{
    Dwarf_Die child;
    if (depth > 512 || dwarf_child(parent, &child) != 0) return n;
    do {
        int tag = dwarf_tag(&child);
        if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_lexical_block &&
            tag != DW_TAG_try_block && tag != DW_TAG_catch_block)
            continue;
        if (dwarf_haspc(&child, pc) != 1) continue;
        if (tag == DW_TAG_inlined_subroutine && n < VT_SYM_CHAIN_MAX) chain[n++] = child;
        return vt_sym_inlines(&child, pc, chain, n, depth + 1);
    } while (dwarf_siblingof(&child, &child) == 0);
    return n;
}

int vt_sym_dwarf_chain(vt_sym_cus **cus, Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *chain)
{
    vt_sym_cu *u = vt_sym_cus_get(cus, cu);
    if (u == NULL) return 0;
    size_t lo = 0, hi = u->n; /* first range starting above pc */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (u->r[mid].lo <= pc) lo = mid + 1; else hi = mid;
    }
    /* The latest-starting range that holds pc is the innermost (nested) function. */
    for (size_t i = lo, k = 0; i-- > 0 && k < VT_SYM_CU_NEST; k++) {
        if (pc < u->r[i].hi) {
            chain[0] = u->r[i].die;
            return vt_sym_inlines(&chain[0], pc, chain, 1, 0);
        }
    }
    return 0;
}

/* ------------------------------------------------------------------------ *
 *  Names
 * ------------------------------------------------------------------------ */
static bool vt_sym_is_cxx(Dwarf_Die *cu)
{
    switch (dwarf_srclang(cu)) {
    case DW_LANG_C_plus_plus:
    case DW_LANG_C_plus_plus_03:
    case DW_LANG_C_plus_plus_11:
    case DW_LANG_C_plus_plus_14:
        return true;
    default:
        return false;
    }
}

/* Writes into buf the "ns::Klass::" that encloses die. A DIE does not point to its
 * parent, but a parent's children lie between its offset and its next sibling's, so the
 * path down from the unit is found by offset. */
static void vt_sym_scope_prefix(Dwarf_Die *die, char *buf, size_t cap)
{
    buf[0] = '\0';
    Dwarf_Die cur;
    if (dwarf_diecu(die, &cur, NULL, NULL) == NULL) return;
    Dwarf_Off target = dwarf_dieoffset(die);
    size_t len = 0;
    for (int depth = 0; depth < 64; depth++) {
        Dwarf_Die child, next;
        if (dwarf_child(&cur, &child) != 0) return;
        for (;;) {
            Dwarf_Off off = dwarf_dieoffset(&child);
            if (off == target) return;
            int last = dwarf_siblingof(&child, &next) != 0;
            if (off < target && (last || target < dwarf_dieoffset(&next))) break;
            if (last) return;
            child = next;
        }
        int tag = dwarf_tag(&child);
        if (tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
            tag == DW_TAG_structure_type || tag == DW_TAG_union_type) {
            const char *n = dwarf_diename(&child);
            int k = snprintf(buf + len, cap - len, "%s::", n ? n : "(anonymous namespace)");
            if (k < 0 || (size_t)k >= cap - len) {
                buf[len] = '\0';
                return;
            }
            len += (size_t)k;
        }
        cur = child;
    }
}

const char *vt_sym_dwarf_name(Dwarf_Die *die, Dwarf_Die *cu, char *buf, size_t cap)
{
    Dwarf_Attribute a;
    const char *n = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &a));
    if (n == NULL) n = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a));
    if (n != NULL) return n;
    n = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &a));
    /* A C++ function with internal linkage has no linkage name: it is shown qualified by
     * its namespaces and classes, without parameters. */
    if (n == NULL || cu == NULL || !vt_sym_is_cxx(cu)) return n;

    /* The declaration sits where the name is scoped: behind abstract_origin, then
     * specification (an out-of-class member definition). */
    Dwarf_Die decl = *die, t;
    for (int i = 0; i < 8; i++) {
        if (dwarf_formref_die(dwarf_attr(&decl, DW_AT_abstract_origin, &a), &t) != NULL ||
            dwarf_formref_die(dwarf_attr(&decl, DW_AT_specification, &a), &t) != NULL)
            decl = t;
        else
            break;
    }
    vt_sym_scope_prefix(&decl, buf, cap);
    size_t len = strlen(buf);
    if (len == 0) return n;
    snprintf(buf + len, cap - len, "%s", n);
    return buf;
}
