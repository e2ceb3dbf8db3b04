// SPDX-License-Identifier: MIT
/* vt_sym_int.h - internals of vt_sym shared by its files (not part of the analyzer API).
 *
 * vt_sym_tab.c:   a module's function symbols, sorted once for binary search. libdwfl's
 *                 dwfl_module_addrinfo scans the whole table on every call, too slow for
 *                 tens of thousands of addresses in libraries with large symbol tables.
 * vt_sym_dwarf.c: the chain of inlined calls at an address, and DWARF function names. */
#ifndef VT_SYM_INT_H
#define VT_SYM_INT_H

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------------------ *
 *  Symbol tables (vt_sym_tab.c)
 * ------------------------------------------------------------------------ */

typedef struct {
    uint64_t    addr;   /* absolute: symbol value plus the module's bias */
    uint64_t    size;   /* 0 for a label without a size */
    const char *name;   /* as in the symbol table (libdwfl's memory, lives with the Dwfl) */
    const char *pretty; /* demangled and interned by vt_sym on first use; NULL before */
} vt_sym_entry;

typedef struct {
    vt_sym_entry *e;     /* by address; one entry per address (the preferred alias) */
    size_t        n;
    uint64_t     *xsec;  /* executable sections as [start, end) pairs, by address */
    size_t        nxsec;
} vt_sym_tab;

/* Reads the symbols of dm (libdwfl's choice of .symtab, debug file, .gnu_debugdata,
 * .dynsym). Returns 0, or -1 when out of memory (t is then empty). */
int vt_sym_tab_build(vt_sym_tab *t, Dwfl_Module *dm);

/* The symbol that covers addr, chosen as libdwfl does: the sized symbol that starts
 * closest below addr, else a sizeless label right before addr in the same executable
 * section; NULL when none. */
vt_sym_entry *vt_sym_tab_find(const vt_sym_tab *t, uint64_t addr);

void vt_sym_tab_free(vt_sym_tab *t);

/* ------------------------------------------------------------------------ *
 *  DWARF scopes and names (vt_sym_dwarf.c)
 * ------------------------------------------------------------------------ */
#define VT_SYM_CHAIN_MAX 64 /* function scopes followed per address (inline depth) */

/* Per module: for each compile unit seen, its out-of-line functions' address ranges,
 * sorted, so that an address needs a binary search instead of a walk of the unit. */
typedef struct vt_sym_cus vt_sym_cus;

void vt_sym_cus_free(vt_sym_cus *c);

/* Fills chain, outermost first, with the out-of-line function (DW_TAG_subprogram) of cu
 * that holds pc and the inlined instances inside it that hold pc. pc is a DWARF address
 * (the module's address minus the bias dwfl_module_addrdie gave). *cus is created on
 * first use. Returns how many DIEs were written (0: no function known there). */
int vt_sym_dwarf_chain(vt_sym_cus **cus, Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *chain);

/* A function DIE's name: its linkage name when it has one (demangles to the C++ name
 * with parameters), else its name, qualified by namespaces and classes in C++ units.
 * Returns a string of libdw's, or buf. */
const char *vt_sym_dwarf_name(Dwarf_Die *die, Dwarf_Die *cu, char *buf, size_t cap);

#endif /* VT_SYM_INT_H */
