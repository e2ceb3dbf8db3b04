// SPDX-License-Identifier: MIT
/* sym_vs_dwfl.c - checks vt_sym's sorted symbol table against libdwfl's own
 * dwfl_module_addrinfo at every STEP-th byte of FILE's executable sections.
 *
 * Usage: sym_vs_dwfl FILE [STEP]   (STEP defaults to 1)
 * Exits 1 when the two name different symbols where libdwfl's answer is a sized symbol
 * that covers the address (the case return addresses are in). Other differences (bytes
 * past a sizeless label at a section's end) are counted and shown, not failed. */
#define _GNU_SOURCE
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vt_sym_int.h"

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: sym_vs_dwfl FILE [STEP]\n");
        return 2;
    }
    long step = argc > 2 ? atol(argv[2]) : 1;
    static char *dipath = NULL;
    Dwfl_Callbacks cb = {.find_elf = dwfl_build_id_find_elf,
                         .find_debuginfo = dwfl_standard_find_debuginfo,
                         .section_address = dwfl_offline_section_address,
                         .debuginfo_path = &dipath};
    Dwfl *d = dwfl_begin(&cb);
    dwfl_report_begin(d);
    Dwfl_Module *m = dwfl_report_elf(d, "m", argv[1], -1, 0x7f0000000000ull, true);
    dwfl_report_end(d, NULL, NULL);
    if (m == NULL) {
        fprintf(stderr, "sym_vs_dwfl: %s: %s\n", argv[1], dwfl_errmsg(-1));
        return 2;
    }
    vt_sym_tab t;
    if (vt_sym_tab_build(&t, m) != 0) return 2;
    Dwarf_Addr bias;
    Elf *elf = dwfl_module_getelf(m, &bias);
    long n = 0, named = 0, bad = 0, other = 0;
    for (Elf_Scn *scn = NULL; elf && (scn = elf_nextscn(elf, scn)) != NULL;) {
        GElf_Shdr sh;
        if (gelf_getshdr(scn, &sh) == NULL || !(sh.sh_flags & SHF_EXECINSTR)) continue;
        for (GElf_Addr a = sh.sh_addr + bias; a < sh.sh_addr + bias + sh.sh_size; a += (GElf_Addr)step) {
            GElf_Off off;
            GElf_Sym sym;
            const char *x = dwfl_module_addrinfo(m, a, &off, &sym, NULL, NULL, NULL);
            vt_sym_entry *e = vt_sym_tab_find(&t, a);
            const char *y = e ? e->name : NULL;
            n++;
            named += y != NULL;
            if ((x == NULL) == (y == NULL) && (x == NULL || strcmp(x, y) == 0)) continue;
            int strict = x != NULL && sym.st_size != 0 && off < sym.st_size;
            if (strict) bad++; else other++;
            if (bad + other <= 10)
                printf("  %s+%#llx: libdwfl %s, vt_sym %s%s\n", argv[1],
                       (unsigned long long)(a - bias), x ? x : "-", y ? y : "-",
                       strict ? "  <- wrong" : "");
        }
    }
    printf("%s: %ld text addresses (step %ld), %ld named, %ld wrong, %ld other differences\n",
           argv[1], n, step, named, bad, other);
    vt_sym_tab_free(&t);
    dwfl_end(d);
    return bad || n == 0 ? 1 : 0;
}
