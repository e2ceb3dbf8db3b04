// SPDX-License-Identifier: MIT
/* symprog.c - the program whose return addresses test_sym resolves.
 *
 * Usage: sym_prog LIB...   (each LIB is a build of symlib.c; it is dlopened and run)
 * Prints the loaded modules as the recorder would record them (dl_iterate_phdr: bias,
 * PT_LOAD extent, GNU build-id, path) and the sites:
 *   MOD\t<bias hex>\t<size hex>\t<build-id hex or ->\t<path>
 *   SITE\t<tag>\t<ip hex>\t<func>\t<file>\t<line>\t<caller or ->\t<caller line>
 * Built with -O0 -g so that each call stays on the line __LINE__ names. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "symprog.h"

typedef struct {
    const char *tag, *func, *file, *caller;
    int line, caller_line;
    uintptr_t ip;
} symprog_site;

static symprog_site sites[64]; /* filled by the sites, printed by main */
static int nsites;

__attribute__((noinline)) void symprog_record(const char *tag, const char *func,
                                              const char *file, int line,
                                              const char *caller, int caller_line)
{
    if (nsites == 64) return;
    symprog_site *p = &sites[nsites++];
    p->ip = (uintptr_t)__builtin_extract_return_addr(__builtin_return_address(0));
    p->tag = tag, p->func = func, p->file = file, p->line = line;
    p->caller = caller, p->caller_line = caller_line;
}

__attribute__((noinline)) static void prog_static(void)
{
    symprog_record("static", "prog_static", __FILE__, __LINE__, NULL, 0);
}

__attribute__((noinline)) void prog_global(void)
{
    symprog_record("global", "prog_global", __FILE__, __LINE__, NULL, 0);
}

/* always_inline is honoured at -O0 too, and leaves a DW_TAG_inlined_subroutine. */
static inline __attribute__((always_inline)) void prog_inlined(int outer_line)
{
    symprog_record("inline", "prog_inlined", __FILE__, __LINE__, "prog_outer", outer_line);
}

__attribute__((noinline)) static void prog_outer(void)
{
    prog_inlined(__LINE__);
}

static void print_hex(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) printf("%02x", p[i]);
}

static int print_module(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    int *first = arg;
    char exe[4096];
    const char *name = info->dlpi_name;
    if (*first) { /* the main program comes first, without a name */
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        exe[n > 0 ? n : 0] = '\0';
        name = exe;
        *first = 0;
    }
    uint64_t end = 0;
    const uint8_t *id = NULL;
    size_t idlen = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && ph->p_vaddr + ph->p_memsz > end) end = ph->p_vaddr + ph->p_memsz;
        if (ph->p_type != PT_NOTE || id != NULL) continue;
        const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
        const uint8_t *e = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= e) {
            const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
            const uint8_t *desc = p + sizeof *nh + ((nh->n_namesz + 3) & ~3u);
            if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
                memcmp(p + sizeof *nh, "GNU", 4) == 0) {
                id = desc, idlen = nh->n_descsz;
                break;
            }
            p = desc + ((nh->n_descsz + 3) & ~3u);
        }
    }
    printf("MOD\t%llx\t%llx\t", (unsigned long long)info->dlpi_addr, (unsigned long long)end);
    if (id) print_hex(id, idlen); else printf("-");
    printf("\t%s\n", name);
    return 0;
}

int main(int argc, char **argv)
{
    prog_static();
    prog_global();
    prog_outer();
#ifdef SYMPROG_HAVE_CXX
    symprog_cxx_entry();
#endif
    for (int i = 1; i < argc; i++) {
        void *h = dlopen(argv[i], RTLD_NOW);
        void (*entry)(symprog_rec_fn) = h ? (void (*)(symprog_rec_fn))dlsym(h, "symlib_entry") : NULL;
        if (entry == NULL) {
            fprintf(stderr, "sym_prog: %s: %s\n", argv[i], dlerror());
            return 1;
        }
        entry(symprog_record);
    }
    int first = 1;
    dl_iterate_phdr(print_module, &first);
    for (int i = 0; i < nsites; i++) {
        const symprog_site *p = &sites[i];
        printf("SITE\t%s\t%llx\t%s\t%s\t%d\t%s\t%d\n", p->tag, (unsigned long long)p->ip,
               p->func, p->file, p->line, p->caller ? p->caller : "-", p->caller_line);
    }
    return 0;
}
