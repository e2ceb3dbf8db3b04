// SPDX-License-Identifier: MIT
/* vt_sym.h - offline symbolization of recorded return addresses (elfutils libdw).
 *
 * The trace records each loaded module (path, load bias, extent, build-id) and raw
 * return addresses; nothing is symbolized while the program runs. This module turns
 * those addresses into function, file:line and module, after the fact. */
#ifndef VT_SYM_H
#define VT_SYM_H

#include <stddef.h>
#include <stdint.h>

typedef struct vt_sym vt_sym;

typedef struct {
    const char *function; /* demangled name; NULL when no symbol covers the address */
    const char *file;     /* source file; NULL without debug info */
    unsigned    line;     /* 0 without debug info */
    const char *module;   /* module path; NULL when the address is in no recorded module */
    uint64_t    offset;   /* address minus the module's load bias (a file address) */
} vt_frame;

/* Returns NULL only when out of memory. */
vt_sym *vt_sym_new(void);
void vt_sym_free(vt_sym *s);

/* Extra folders in which to look for a module by its base name when its recorded path
 * does not exist or its build-id differs (for traces made on another machine). libdwfl
 * also looks there for DIR/.build-id/xx/yyyy[.debug] and debuglink targets. Add them
 * before the first vt_sym_resolve: modules already opened are not looked for again. */
int vt_sym_add_search_dir(vt_sym *s, const char *dir);

/* Adds a module as recorded by a VT_REC_MODULE record. A module added again at the same
 * bias replaces the earlier one. Returns 0, or -1 on out of memory. */
int vt_sym_add_module(vt_sym *s, const char *path, uint64_t bias, uint64_t size,
                      const uint8_t *build_id, size_t build_id_len);

/* Resolves a return address as stored in a stack node (the call instruction is at
 * ip - 1). Fills *out; strings live as long as s. Returns 0 when a module covers ip,
 * -1 otherwise (out->module is then NULL and out->offset = ip). Results are cached. */
int vt_sym_resolve(vt_sym *s, uint64_t ip, vt_frame *out);

/* Like vt_sym_resolve, but expands inlined calls: out[0] is the innermost inlined function
 * with the line of the call in it (the same frame vt_sym_resolve gives), each next frame
 * is the function it was inlined into with the line of that inlined call, and the last
 * one is the function the machine code belongs to. Writes at most max frames. Returns
 * how many frames ip expands to (>= 1, may exceed max), or -1 as vt_sym_resolve does. */
int vt_sym_resolve_inline(vt_sym *s, uint64_t ip, vt_frame *out, size_t max);

/* Gives the frames of ip as another host resolved them (SYMBOL records): later
 * resolves of ip answer with them and open no file. frames[i].module and .offset are
 * ignored (the recorded module covering ip gives them). Call after the last
 * vt_sym_add_module. Returns 0, or -1 on out of memory. */
int vt_sym_add_known(vt_sym *s, uint64_t ip, const vt_frame *frames, size_t n);

/* One line each: a module whose file is missing, or whose build-id differs from the one
 * recorded (also: not an ELF file, unreadable), as each is first hit; its frames are
 * module+offset. Valid until the next call into s. See docs/symbols.md. */
size_t vt_sym_warnings(vt_sym *s, const char *const **lines);

#endif /* VT_SYM_H */
