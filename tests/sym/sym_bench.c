// SPDX-License-Identifier: MIT
/* sym_bench.c - times vt_sym on one ELF file: N distinct addresses spread evenly over
 * its executable segment, resolved once (cold: opens the file, loads symbols and DWARF)
 * and once more (from the cache).
 *
 * Usage: sym_bench FILE [N]   (N defaults to 10000) */
#define _GNU_SOURCE
#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "vt_sym.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: sym_bench FILE [N]\n");
        return 2;
    }
    long n = argc > 2 ? atol(argv[2]) : 10000;
    elf_version(EV_CURRENT);
    int fd = open(argv[1], O_RDONLY);
    Elf *e = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
    GElf_Ehdr eh;
    size_t phnum;
    if (e == NULL || gelf_getehdr(e, &eh) == NULL || elf_getphdrnum(e, &phnum) != 0) {
        fprintf(stderr, "sym_bench: %s: not an ELF file\n", argv[1]);
        return 2;
    }
    uint64_t end = 0, tlo = 0, thi = 0;
    for (size_t i = 0; i < phnum; i++) {
        GElf_Phdr ph;
        if (gelf_getphdr(e, (int)i, &ph) == NULL || ph.p_type != PT_LOAD) continue;
        if (ph.p_vaddr + ph.p_memsz > end) end = ph.p_vaddr + ph.p_memsz;
        if ((ph.p_flags & PF_X) && thi == 0) tlo = ph.p_vaddr, thi = ph.p_vaddr + ph.p_memsz;
    }
    const void *id = NULL;
    ssize_t idlen = dwelf_elf_gnu_build_id(e, &id);
    uint64_t bias = eh.e_type == ET_DYN ? 0x7f1200000000ull : 0;

    vt_sym *s = vt_sym_new();
    char path[4096];
    if (realpath(argv[1], path) == NULL) snprintf(path, sizeof path, "%s", argv[1]);
    vt_sym_add_module(s, path, bias, end, idlen > 0 ? id : NULL, idlen > 0 ? (size_t)idlen : 0);
    uint64_t step = (thi - tlo) / (uint64_t)n ? (thi - tlo) / (uint64_t)n : 1;
    long named = 0, lined = 0, inl = 0;
    vt_frame f[16];
    double t0 = now();
    for (long i = 0; i < n; i++) {
        int k = vt_sym_resolve_inline(s, bias + tlo + 1 + (uint64_t)i * step, f, 16);
        named += f[0].function != NULL;
        lined += f[0].line != 0;
        inl += k > 1;
    }
    double t1 = now();
    for (long i = 0; i < n; i++) vt_sym_resolve(s, bias + tlo + 1 + (uint64_t)i * step, f);
    double t2 = now();
    const char *const *w;
    size_t nw = vt_sym_warnings(s, &w);
    for (size_t i = 0; i < nw; i++) fprintf(stderr, "warning: %s\n", w[i]);
    printf("%s: %ld distinct ips (text %#llx bytes, step %llu): %.1f ms cold, %.2f ms cached;"
           " %ld named, %ld with file:line, %ld inside inlined code\n",
           argv[1], n, (unsigned long long)(thi - tlo), (unsigned long long)step,
           (t1 - t0) * 1e3, (t2 - t1) * 1e3, named, lined, inl);
    vt_sym_free(s);
    elf_end(e);
    close(fd);
    return 0;
}
