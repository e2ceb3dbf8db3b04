// SPDX-License-Identifier: MIT
/* vt_sites.h - folding recorded stacks into sites.
 *
 * A site is a stack as a person reads it: the innermost frames that belong to the
 * recorder and the CUDA driver/runtime plumbing are dropped, the rest is symbolized
 * (function, file:line, module) and the site is keyed by that folded frame list, not
 * by stack id or raw address, so the same site matches across runs, pids and hosts
 * (ASLR moves addresses; file base names and module base names stay). */
#ifndef VT_SITES_H
#define VT_SITES_H

#include <stdint.h>

#include "vt_replay.h"
#include "vt_sym.h"
#include "vt_table.h"

/* Frame classes (docs/cli.md, "Frames"): what a frame is to the person reading a site.
 * Decided once per distinct frame by the rules' `class:` lines (vt_fclass.h); the text
 * views show user code and the op first and fold the rest. X(id, name). */
#define VT_FCLASS_LIST(X) \
    X(VT_FC_USER, "user")               /* the program's own code, Python or native */ \
    X(VT_FC_LIBRARY, "library")         /* Python of site-packages and the standard library */ \
    X(VT_FC_FRAMEWORK, "framework")     /* native code of a framework: ATen, XLA, cuBLAS */ \
    X(VT_FC_INTERPRETER, "interpreter") /* CPython, ctypes/libffi, libc: call machinery */ \
    X(VT_FC_PLUMBING, "plumbing")       /* driver, runtime, recorder, a framework's allocator */
typedef enum {
#define VT_FC_ENUM(id, name) id,
    VT_FCLASS_LIST(VT_FC_ENUM)
#undef VT_FC_ENUM
    VT_FC_COUNT
} vt_fclass;

/* "user", "library", ...; NULL out of range. */
const char *vt_fclass_name(unsigned c);
/* The class named s, or -1. */
int vt_fclass_parse(const char *s);

/* 48 bytes (no padding holes): the sites keep one per frame of every distinct stack. */
typedef struct {
    const char *function;   /* never NULL: "module+0xoffset" when no symbol covers it */
    const char *file;       /* as in the debug info; NULL when unknown */
    const char *file_base;  /* its last component */
    const char *module;     /* base name; "python" for Python frames, NULL for scopes */
    uint64_t    offset;     /* native frames: address minus the module's load bias */
    unsigned    line;
    uint8_t     kind;       /* vt_frame_kind */
    uint8_t     resolved;   /* a symbol named the function */
    uint8_t     fclass;     /* vt_fclass, set by vt_fclass_assign after the folding */
} vt_site_frame;

typedef struct {
    uint32_t nframes;
    vt_site_frame *frames;  /* innermost first */
    uint64_t hash;          /* of the folded frames (vt_sites.c) */
    uint32_t function_id;   /* names[] id of the innermost frame's function ("top --by function") */
    uint32_t module_id;     /* names[] id of its module ("top --by module") */
    const char *op;         /* "aten::addmm": the operator the frames name (vt_fclass.h), or NULL */
} vt_site;

typedef struct {
    vt_site *sites;
    size_t n, cap;
    uint32_t *slots;        /* open addressing on sites[].hash: site index + 1; 0 = empty */
    size_t mask;
    vt_strtab names;        /* every string a frame holds */
    vt_arena arena;
} vt_sites;

#define VT_SITE_MAX_FRAMES 256

/* Folds the stacks of every group and OOM of rp into sites (sets their .site; stack id 0,
 * no stack, folds to the empty site). -1 when out of memory. */
int vt_sites_assign(vt_sites *ss, vt_replay *rp, vt_sym *sym);

/* A module is CUDA plumbing when its base name is libcuda.so*, libcudart*, or the
 * recorder itself (libvramtrace*). */
int vt_sites_is_plumbing(const char *module_base);

/* A function is CUDA plumbing when it is the statically linked runtime's
 * (libcudart_static_*, __cudart*), a runtime API entry point (cuda[A-Z]*) or a driver
 * one (cu[A-Z]*): innermost frames of those fold away whatever module holds them. */
int vt_sites_is_plumbing_function(const char *function);

/* Orders sites a and b as their keys' text compares (strcmp): each frame's function,
 * file base name, line and module, separated by \x1f, frames ended by \x1e. An index
 * out of range is the empty key. */
int vt_sites_cmp(const vt_sites *ss, uint32_t a, uint32_t b);

void vt_sites_free(vt_sites *ss);

#endif /* VT_SITES_H */
