// SPDX-License-Identifier: MIT
/* vt_sym_tab.c - a module's function symbols, sorted once for binary search. */
#include "vt_sym_int.h"

#include <gelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* How many entries below the closest one are searched for a sized symbol that still
 * covers the address (a function that contains another symbol: rare, and never deep). */
#define VT_SYM_TAB_NEST 32

typedef struct {
    vt_sym_entry e;
    uint32_t     index; /* in the symbol table: libdwfl's tie-break after binding */
    uint8_t      rank;  /* binding: global 3, weak 2, local 1, as libdwfl ranks them */
} vt_sym_cand;

static int vt_sym_tab_cmp(const void *a, const void *b)
{
    const vt_sym_cand *x = a, *y = b;
    if (x->e.addr != y->e.addr) return x->e.addr < y->e.addr ? -1 : 1;
    /* libdwfl never picks a label inside a sized symbol's range, then prefers binding. */
    if ((x->e.size != 0) != (y->e.size != 0)) return x->e.size != 0 ? -1 : 1;
    if (x->rank != y->rank) return x->rank > y->rank ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

static int vt_sym_tab_cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void vt_sym_tab_sections(vt_sym_tab *t, Dwfl_Module *dm)
{
    Dwarf_Addr bias;
    Elf *elf = dwfl_module_getelf(dm, &bias);
    size_t nsec = 0;
    if (elf == NULL || elf_getshdrnum(elf, &nsec) != 0 || nsec == 0) return;
    t->xsec = malloc(2 * nsec * sizeof *t->xsec);
    if (t->xsec == NULL) return;
    for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn)) != NULL;) {
        GElf_Shdr sh;
        if (gelf_getshdr(scn, &sh) == NULL || !(sh.sh_flags & SHF_EXECINSTR) || sh.sh_size == 0)
            continue;
        t->xsec[2 * t->nxsec] = sh.sh_addr + bias;
        t->xsec[2 * t->nxsec + 1] = sh.sh_addr + bias + sh.sh_size;
        t->nxsec++;
    }
    qsort(t->xsec, t->nxsec, 2 * sizeof *t->xsec, vt_sym_tab_cmp_u64);
}

int vt_sym_tab_build(vt_sym_tab *t, Dwfl_Module *dm)
{
    memset(t, 0, sizeof *t);
    int nsym = dwfl_module_getsymtab(dm);
    if (nsym <= 0) return 0;
    vt_sym_cand *c = malloc((size_t)nsym * sizeof *c);
    if (c == NULL) return -1;
    size_t n = 0;
    for (int i = 1; i < nsym; i++) {
        GElf_Sym sym;
        GElf_Addr addr;
        GElf_Word shndx;
        const char *name = dwfl_module_getsym_info(dm, i, &sym, &addr, &shndx, NULL, NULL);
        if (name == NULL || name[0] == '\0' || shndx == SHN_UNDEF) continue;
        int type = GELF_ST_TYPE(sym.st_info);
        if (type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_NOTYPE) continue;
        int bind = GELF_ST_BIND(sym.st_info);
        c[n].e.addr = addr, c[n].e.size = sym.st_size, c[n].e.name = name, c[n].e.pretty = NULL;
        c[n].index = (uint32_t)i;
        c[n].rank = bind == STB_GLOBAL ? 3 : bind == STB_WEAK ? 2 : bind == STB_LOCAL ? 1 : 0;
        n++;
    }
    qsort(c, n, sizeof *c, vt_sym_tab_cmp);
    t->e = malloc((n ? n : 1) * sizeof *t->e);
    if (t->e == NULL) {
        free(c);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        if (t->n == 0 || t->e[t->n - 1].addr != c[i].e.addr) t->e[t->n++] = c[i].e;
    free(c);
    vt_sym_tab_sections(t, dm);
    return 0;
}

/* Index of the executable section holding addr, or -1. */
static long vt_sym_tab_section(const vt_sym_tab *t, uint64_t addr)
{
    size_t lo = 0, hi = t->nxsec;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (t->xsec[2 * mid] <= addr) lo = mid + 1; else hi = mid;
    }
    return lo > 0 && addr < t->xsec[2 * (lo - 1) + 1] ? (long)(lo - 1) : -1;
}

vt_sym_entry *vt_sym_tab_find(const vt_sym_tab *t, uint64_t addr)
{
    size_t lo = 0, hi = t->n; /* first entry above addr */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (t->e[mid].addr <= addr) lo = mid + 1; else hi = mid;
    }
    if (lo == 0) return NULL;
    vt_sym_entry *p = &t->e[lo - 1];
    if (p->size == 0) {
        /* A label: only when nothing sized below it still runs past addr, and it is in
         * the same section (not the end of one function and the start of padding). */
        for (size_t i = lo - 1, k = 0; i-- > 0 && k < VT_SYM_TAB_NEST; k++)
            if (t->e[i].size != 0 && addr - t->e[i].addr < t->e[i].size) return &t->e[i];
        long s = vt_sym_tab_section(t, addr);
        return t->nxsec == 0 || (s >= 0 && s == vt_sym_tab_section(t, p->addr)) ? p : NULL;
    }
    for (size_t i = lo, k = 0; i-- > 0 && k < VT_SYM_TAB_NEST; k++)
        if (t->e[i].size != 0 && addr - t->e[i].addr < t->e[i].size) return &t->e[i];
    return NULL;
}

void vt_sym_tab_free(vt_sym_tab *t)
{
    free(t->e);
    free(t->xsec);
    memset(t, 0, sizeof *t);
}
