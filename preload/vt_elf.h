// SPDX-License-Identifier: MIT
/* vt_elf.h - ELF lookups in loaded objects (vt_elf.c): symbols, RTLD_NEXT, a caller's scope. */
#ifndef VT_ELF_H
#define VT_ELF_H

#include <stdint.h>

/* ELF lookups in loaded objects (vt_elf.c). */
typedef struct { uintptr_t addr; int needs_glibc; } vt_elf_sym;
/* name in one object's own dynamic symbol table (base = load bias, dynamic = its
 * PT_DYNAMIC in memory). 0 found, -1 not. needs_glibc: IFUNC or TLS, ask dlsym. */
int vt_elf_lookup(uintptr_t base, const void *dynamic, const char *name, vt_elf_sym *out);
/* RTLD_NEXT for a caller at ra: 0 found (*out), -1 no later object defines name,
 * -2 ra is in no object. */
int vt_elf_next(const void *ra, const char *name, void **out);
void vt_elf_init(void);  /* constructor: counts the objects of the initial load */
/* What the object holding ra would find among itself and its dependencies (a real
 * handle from dlopen(RTLD_NOLOAD); the global scope for the main program). */
void *vt_dl_scope_lookup(const void *ra, const char *name);

/* The libcudart function our cudaGetDriverEntryPoint* export stands in front of: what
 * the caller would have bound to without us (vt_hook_getproc.c, vt_hook_dl.c). */
void *vt_runtime_next(const char *name, void *ra);

#endif /* VT_ELF_H */
