// SPDX-License-Identifier: MIT
/* vt_sym.c - offline symbolization of recorded return addresses (elfutils libdwfl).
 *
 * Every module that an address hits is reported into one Dwfl at the load bias the
 * trace recorded, so an address of the traced process is a Dwfl address as it is:
 * symbols, line tables and inline scopes are asked for with the raw address. libdwfl
 * does the hard parts (separate debug files by build-id or debuglink, .gnu_debugdata,
 * .symtab then .dynsym, DWARF 2-5); this file decides which file on disk may be trusted
 * for a module (build-id check), walks inline scopes, demangles, interns strings and
 * caches one answer per address. See docs/symbols.md. Not thread-safe: one vt_sym per
 * thread. */
#define _POSIX_C_SOURCE 200809L
#include "vt_sym.h"
#include "vt_sym_int.h"
#include "vt_table.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* libstdc++'s demangler (the Itanium C++ ABI one), declared here so this file stays C. */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

#define VT_SYM_ID_MAX      64   /* bytes of build-id kept; GNU ids are 20 */
#define VT_SYM_ARENA_BLOCK (64u << 10)

/* ------------------------------------------------------------------------ *
 *  State
 * ------------------------------------------------------------------------ */
enum { VT_SYM_MOD_NEW, VT_SYM_MOD_READY, VT_SYM_MOD_NOSYM };

typedef struct {
    const char  *path;       /* as recorded (interned); what frames show as module */
    uint64_t     bias, size; /* covers [bias, bias + size) */
    uint8_t      build_id[VT_SYM_ID_MAX];
    size_t       build_id_len;
    uint64_t     seq;        /* add order: of two overlapping modules the later wins */
    int          state;      /* VT_SYM_MOD_*: files are opened at the first hit */
    Dwfl_Module *dm;         /* READY only */
    vt_sym_tab   tab;        /* READY: sorted symbols, unless have_tab is false (no memory) */
    bool         have_tab;
    vt_sym_cus  *cus;        /* READY: per-unit function ranges, made on first use */
} vt_sym_mod;

typedef struct {
    uint64_t bias;
    size_t   mod;            /* index in s->mods */
} vt_sym_ord;

typedef struct {
    uint64_t ip;
    uint32_t first;          /* innermost frame in s->frames */
    uint16_t n;              /* frames; 0 marks an empty slot */
    int16_t  rc;             /* what vt_sym_resolve returns */
} vt_sym_slot;

typedef struct vt_sym_block {
    struct vt_sym_block *next;
    size_t used, cap;
    char   data[];
} vt_sym_block;

struct vt_sym {
    Dwfl          *dwfl;
    Dwfl_Callbacks cb;        /* must outlive dwfl, which keeps a pointer to it */
    char          *dipath;    /* debuginfo_path: the default plus the search dirs */
    unsigned       nreported; /* names modules uniquely inside the Dwfl */

    char  **dirs;
    size_t  ndirs;

    vt_sym_mod *mods;
    size_t      nmods, capmods;
    uint64_t    seq;
    vt_sym_ord *order;        /* modules sorted by bias */
    uint64_t   *maxend;       /* maxend[i]: highest end among order[0..i] */
    bool        order_stale;

    vt_sym_slot *slots;       /* open addressing, linear probing, power-of-two size */
    size_t       nslots, nused;
    vt_frame    *frames;
    size_t       nframes, capframes;

    const char **strs;        /* intern set over arena strings */
    size_t       nstrs, capstrs;
    vt_sym_block *arena;

    char  **warn;
    size_t  nwarn, capwarn;
};

/* ------------------------------------------------------------------------ *
 *  Interned strings: frames point into an arena that lives as long as s
 * ------------------------------------------------------------------------ */
static char *vt_sym_arena_dup(vt_sym *s, const char *p, size_t len)
{
    vt_sym_block *b = s->arena;
    if (b == NULL || b->cap - b->used < len + 1) {
        size_t cap = len + 1 > VT_SYM_ARENA_BLOCK ? len + 1 : VT_SYM_ARENA_BLOCK;
        b = malloc(sizeof *b + cap);
        if (b == NULL) return NULL;
        b->next = s->arena, b->used = 0, b->cap = cap;
        s->arena = b;
    }
    char *d = b->data + b->used;
    memcpy(d, p, len);
    d[len] = '\0';
    b->used += len + 1;
    return d;
}

static const char *vt_sym_intern(vt_sym *s, const char *p)
{
    if (p == NULL) return NULL;
    size_t len = strlen(p);
    if (2 * (s->nstrs + 1) > s->capstrs) {
        size_t cap = s->capstrs ? 2 * s->capstrs : 1024;
        const char **t = calloc(cap, sizeof *t);
        if (t == NULL) return NULL;
        for (size_t i = 0; i < s->capstrs; i++) {
            if (s->strs[i] == NULL) continue;
            size_t j = vt_str_hash(s->strs[i], strlen(s->strs[i])) & (cap - 1);
            while (t[j] != NULL) j = (j + 1) & (cap - 1);
            t[j] = s->strs[i];
        }
        free(s->strs);
        s->strs = t, s->capstrs = cap;
    }
    size_t j = vt_str_hash(p, len) & (s->capstrs - 1);
    for (; s->strs[j] != NULL; j = (j + 1) & (s->capstrs - 1))
        if (strcmp(s->strs[j], p) == 0) return s->strs[j];
    char *d = vt_sym_arena_dup(s, p, len);
    if (d == NULL) return NULL;
    s->strs[j] = d;
    s->nstrs++;
    return d;
}

/* C++ (Itanium ABI, "_Z...") names are demangled; anything else (C, Rust v0, ...) is
 * kept as it is. */
static const char *vt_sym_intern_fn(vt_sym *s, const char *name)
{
    if (name == NULL) return NULL;
    if (name[0] == '_' && name[1] == 'Z') {
        int st = 0;
        char *d = __cxa_demangle(name, NULL, NULL, &st);
        if (d != NULL && st == 0) {
            const char *r = vt_sym_intern(s, d);
            free(d);
            return r;
        }
        free(d);
    }
    return vt_sym_intern(s, name);
}

/* ------------------------------------------------------------------------ *
 *  Warnings
 * ------------------------------------------------------------------------ */
static void vt_sym_warnf(vt_sym *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if (s->nwarn == s->capwarn) {
        size_t cap = s->capwarn ? 2 * s->capwarn : 16;
        char **w = realloc(s->warn, cap * sizeof *w);
        if (w == NULL) return; /* a lost warning is better than a failed resolve */
        s->warn = w, s->capwarn = cap;
    }
    char *line = malloc((size_t)n + 1);
    if (line == NULL) return;
    va_start(ap, fmt);
    vsnprintf(line, (size_t)n + 1, fmt, ap);
    va_end(ap);
    s->warn[s->nwarn++] = line;
}

static void vt_sym_hex(char *out, const uint8_t *p, size_t len)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < len; i++) {
        out[2 * i] = digits[p[i] >> 4];
        out[2 * i + 1] = digits[p[i] & 15];
    }
    out[2 * len] = '\0';
}

/* ------------------------------------------------------------------------ *
 *  Life cycle
 * ------------------------------------------------------------------------ */
vt_sym *vt_sym_new(void)
{
    vt_sym *s = calloc(1, sizeof *s);
    if (s == NULL) return NULL;
    elf_version(EV_CURRENT);
    s->cb.find_elf = dwfl_build_id_find_elf;
    s->cb.find_debuginfo = dwfl_standard_find_debuginfo;
    s->cb.section_address = dwfl_offline_section_address;
    s->cb.debuginfo_path = &s->dipath; /* NULL string: libdwfl's default path */
    s->dwfl = dwfl_begin(&s->cb);
    if (s->dwfl == NULL) {
        free(s);
        return NULL;
    }
    return s;
}

void vt_sym_free(vt_sym *s)
{
    if (s == NULL) return;
    dwfl_end(s->dwfl);
    for (size_t i = 0; i < s->ndirs; i++) free(s->dirs[i]);
    free(s->dirs);
    free(s->dipath);
    for (size_t i = 0; i < s->nmods; i++) {
        vt_sym_tab_free(&s->mods[i].tab);
        vt_sym_cus_free(s->mods[i].cus);
    }
    free(s->mods);
    free(s->order);
    free(s->maxend);
    free(s->slots);
    free(s->frames);
    free(s->strs);
    while (s->arena != NULL) {
        vt_sym_block *b = s->arena;
        s->arena = b->next;
        free(b);
    }
    for (size_t i = 0; i < s->nwarn; i++) free(s->warn[i]);
    free(s->warn);
    free(s);
}

/* Search dirs serve twice: vt_sym_open looks there for a module by base name, and they
 * are appended to libdwfl's debuginfo path so that DIR/.build-id/xx/yyyy(.debug) and
 * debuglink targets under DIR are found too. */
int vt_sym_add_search_dir(vt_sym *s, const char *dir)
{
    if (dir == NULL || dir[0] == '\0') return 0;
    char **d = realloc(s->dirs, (s->ndirs + 1) * sizeof *d);
    if (d == NULL) return -1;
    s->dirs = d;
    if ((d[s->ndirs] = strdup(dir)) == NULL) return -1;
    s->ndirs++;

    static const char base[] = ":.debug:/usr/lib/debug"; /* libdwfl's default */
    size_t len = sizeof base;
    for (size_t i = 0; i < s->ndirs; i++) len += strlen(s->dirs[i]) + 1;
    char *p = malloc(len);
    if (p == NULL) return -1;
    strcpy(p, base);
    for (size_t i = 0; i < s->ndirs; i++) strcat(strcat(p, ":"), s->dirs[i]);
    free(s->dipath);
    s->dipath = p;
    return 0;
}

/* ------------------------------------------------------------------------ *
 *  Address cache: ip -> frames
 * ------------------------------------------------------------------------ */
static inline size_t vt_sym_iphash(uint64_t ip, size_t mask)
{
    return (size_t)((ip * 0x9E3779B97F4A7C15ull) >> 32) & mask;
}

static vt_sym_slot *vt_sym_cache_find(vt_sym *s, uint64_t ip)
{
    if (s->nslots == 0) return NULL;
    size_t mask = s->nslots - 1;
    for (size_t j = vt_sym_iphash(ip, mask);; j = (j + 1) & mask) {
        vt_sym_slot *e = &s->slots[j];
        if (e->n == 0) return NULL;
        if (e->ip == ip) return e;
    }
}

static vt_sym_slot *vt_sym_cache_put(vt_sym *s, uint64_t ip, uint32_t first, uint16_t n, int rc)
{
    if (2 * (s->nused + 1) > s->nslots) {
        size_t cap = s->nslots ? 2 * s->nslots : 4096;
        vt_sym_slot *t = calloc(cap, sizeof *t);
        if (t == NULL) return NULL;
        for (size_t i = 0; i < s->nslots; i++) {
            if (s->slots[i].n == 0) continue;
            size_t j = vt_sym_iphash(s->slots[i].ip, cap - 1);
            while (t[j].n != 0) j = (j + 1) & (cap - 1);
            t[j] = s->slots[i];
        }
        free(s->slots);
        s->slots = t, s->nslots = cap;
    }
    size_t mask = s->nslots - 1, j = vt_sym_iphash(ip, mask);
    while (s->slots[j].n != 0) j = (j + 1) & mask;
    vt_sym_slot *e = &s->slots[j];
    e->ip = ip, e->first = first, e->n = n, e->rc = (int16_t)rc;
    s->nused++;
    return e;
}

/* A new or replaced module can change the answer for any address seen so far. */
static void vt_sym_cache_clear(vt_sym *s)
{
    if (s->nused == 0) return;
    memset(s->slots, 0, s->nslots * sizeof *s->slots);
    s->nused = 0;
    s->nframes = 0;
}

/* ------------------------------------------------------------------------ *
 *  Modules
 * ------------------------------------------------------------------------ */
int vt_sym_add_module(vt_sym *s, const char *path, uint64_t bias, uint64_t size,
                      const uint8_t *build_id, size_t build_id_len)
{
    if (path == NULL) path = "";
    static const uint8_t none[1];
    if (build_id == NULL || build_id_len == 0) build_id = none, build_id_len = 0;
    if (build_id_len > VT_SYM_ID_MAX) build_id_len = VT_SYM_ID_MAX;

    vt_sym_mod *m = NULL;
    for (size_t i = 0; i < s->nmods; i++)
        if (s->mods[i].bias == bias) { m = &s->mods[i]; break; }
    if (m != NULL && m->size == size && strcmp(m->path, path) == 0 &&
        m->build_id_len == build_id_len && memcmp(m->build_id, build_id, build_id_len) == 0)
        return 0; /* the same object reported again (e.g. after each dlopen) */

    const char *ipath = vt_sym_intern(s, path);
    if (ipath == NULL) return -1;
    if (m == NULL) {
        if (s->nmods == s->capmods) {
            size_t cap = s->capmods ? 2 * s->capmods : 64;
            vt_sym_mod *t = realloc(s->mods, cap * sizeof *t);
            if (t == NULL) return -1;
            s->mods = t;
            vt_sym_ord *o = realloc(s->order, cap * sizeof *o);
            if (o == NULL) return -1;
            s->order = o;
            uint64_t *e = realloc(s->maxend, cap * sizeof *e);
            if (e == NULL) return -1;
            s->maxend = e;
            s->capmods = cap;
        }
        m = &s->mods[s->nmods++];
    } else {
        /* A replaced module's Dwfl_Module stays in the Dwfl, unused, until vt_sym_free:
         * libdwfl cannot drop one module from an incremental report. */
        vt_sym_tab_free(&m->tab);
        vt_sym_cus_free(m->cus);
    }
    memset(m, 0, sizeof *m);
    m->path = ipath, m->bias = bias, m->size = size;
    memcpy(m->build_id, build_id, build_id_len);
    m->build_id_len = build_id_len;
    m->seq = ++s->seq;
    m->state = VT_SYM_MOD_NEW;
    s->order_stale = true;
    vt_sym_cache_clear(s);
    return 0;
}

static int vt_sym_cmp_bias(const void *a, const void *b)
{
    uint64_t x = ((const vt_sym_ord *)a)->bias, y = ((const vt_sym_ord *)b)->bias;
    return x < y ? -1 : x > y;
}

static void vt_sym_sort(vt_sym *s)
{
    for (size_t i = 0; i < s->nmods; i++) s->order[i].bias = s->mods[i].bias, s->order[i].mod = i;
    qsort(s->order, s->nmods, sizeof *s->order, vt_sym_cmp_bias);
    uint64_t hi = 0;
    for (size_t i = 0; i < s->nmods; i++) {
        const vt_sym_mod *m = &s->mods[s->order[i].mod];
        uint64_t end = m->bias + m->size < m->bias ? UINT64_MAX : m->bias + m->size;
        if (end > hi) hi = end;
        s->maxend[i] = hi;
    }
    s->order_stale = false;
}

static vt_sym_mod *vt_sym_find_mod(vt_sym *s, uint64_t ip)
{
    if (s->order_stale) vt_sym_sort(s);
    size_t lo = 0, hi = s->nmods; /* first index whose bias > ip */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (s->order[mid].bias <= ip) lo = mid + 1; else hi = mid;
    }
    vt_sym_mod *best = NULL;
    for (size_t i = lo; i-- > 0 && s->maxend[i] > ip;) {
        vt_sym_mod *m = &s->mods[s->order[i].mod];
        if (ip - m->bias < m->size && (best == NULL || m->seq > best->seq)) best = m;
    }
    return best;
}

/* Why no file was taken for a module: the first candidate that was not ELF, and the
 * first whose build-id differed, for the warning. */
typedef struct {
    char *bad_path;
    char *mism_path;
    char  mism_id[2 * VT_SYM_ID_MAX + 1];
} vt_sym_miss;

/* A module file is at least an ELF header (52 bytes on 32-bit, 64 on 64-bit) and at most
 * 64 GiB: the largest CUDA libraries are under 2 GiB; a larger "module" is not one. */
#define VT_SYM_FILE_MIN 52
#define VT_SYM_FILE_MAX (64ull << 30)

/* Opens path if it is an ELF file whose build-id is the recorded one (any ELF file when
 * none was recorded). Returns the fd, or -1. */
static int vt_sym_try_file(const vt_sym_mod *m, const char *path, vt_sym_miss *why)
{
    /* The path comes from the trace, which may come from anyone: only a regular file of
     * a plausible size is read. O_NONBLOCK: opening a FIFO (or a device) must not wait
     * for a writer; fstat then turns it away before anything reads it. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) return -1;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < VT_SYM_FILE_MIN ||
        (uint64_t)st.st_size > VT_SYM_FILE_MAX) {
        close(fd);
        if (why->bad_path == NULL) why->bad_path = strdup(path);
        return -1;
    }
    Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    if (e == NULL || elf_kind(e) != ELF_K_ELF) {
        if (e != NULL) elf_end(e);
        close(fd);
        if (why->bad_path == NULL) why->bad_path = strdup(path);
        return -1;
    }
    const void *id = NULL;
    ssize_t len = dwelf_elf_gnu_build_id(e, &id);
    bool ok = m->build_id_len == 0 ||
              (len == (ssize_t)m->build_id_len && memcmp(id, m->build_id, (size_t)len) == 0);
    if (!ok && why->mism_path == NULL && (why->mism_path = strdup(path)) != NULL) {
        if (len > 0) vt_sym_hex(why->mism_id, id, (size_t)len > VT_SYM_ID_MAX ? VT_SYM_ID_MAX : (size_t)len);
        else strcpy(why->mism_id, "none");
    }
    elf_end(e);
    if (!ok) {
        close(fd);
        return -1;
    }
    return fd;
}

/* libdwfl's own build-id search (debuginfo path: /usr/lib/debug, the search dirs, then
 * debuginfod when DEBUGINFOD_URLS is set), run in a scratch Dwfl only to learn the file
 * name: the real report must be at the recorded bias, which a build-id-only report cannot
 * know for sure (it depends on the file's first PT_LOAD). */
static char *vt_sym_path_by_id(vt_sym *s, const vt_sym_mod *m)
{
    char *found = NULL;
    Dwfl *d = dwfl_begin(&s->cb);
    if (d == NULL) return NULL;
    dwfl_report_begin(d);
    Dwfl_Module *dm = dwfl_report_module(d, "vt-sym-lookup", m->bias, m->bias + (m->size ? m->size : 1));
    bool ok = dm != NULL && dwfl_module_report_build_id(dm, m->build_id, m->build_id_len, 0) == 0;
    dwfl_report_end(d, NULL, NULL);
    Dwarf_Addr b;
    if (ok && dwfl_module_getelf(dm, &b) != NULL) {
        const char *mainfile = NULL;
        dwfl_module_info(dm, NULL, NULL, NULL, NULL, NULL, &mainfile, NULL);
        if (mainfile != NULL) found = strdup(mainfile);
    }
    dwfl_end(d);
    return found;
}

static void vt_sym_open(vt_sym *s, vt_sym_mod *m)
{
    m->state = VT_SYM_MOD_NOSYM;
    /* The vdso ("linux-vdso.so.1") and anonymous objects: nothing on disk to read. A
     * relative path (dlopen("./x.so")) is tried as it is, then in the search dirs. */
    if (strchr(m->path, '/') == NULL) return;

    vt_sym_miss why = {0};
    const char *file = m->path;
    char *owned = NULL;
    int fd = vt_sym_try_file(m, file, &why);

    const char *slash = strrchr(m->path, '/');
    const char *base = slash ? slash + 1 : m->path;
    for (size_t i = 0; fd < 0 && i < s->ndirs && base[0] != '\0'; i++) {
        size_t n = strlen(s->dirs[i]) + strlen(base) + 2;
        char *p = malloc(n);
        if (p == NULL) break;
        snprintf(p, n, "%s/%s", s->dirs[i], base);
        fd = vt_sym_try_file(m, p, &why);
        if (fd >= 0) file = owned = p; else free(p);
    }
    if (fd < 0 && m->build_id_len > 0) {
        char *p = vt_sym_path_by_id(s, m);
        if (p != NULL && (fd = vt_sym_try_file(m, p, &why)) >= 0) file = owned = p;
        else free(p);
    }

    if (fd < 0) {
        if (why.mism_path != NULL) {
            char rec[2 * VT_SYM_ID_MAX + 1];
            vt_sym_hex(rec, m->build_id, m->build_id_len);
            vt_sym_warnf(s, "build-id mismatch: %s (recorded %s, file has %s)", why.mism_path,
                         rec, why.mism_id);
        } else if (why.bad_path != NULL) {
            vt_sym_warnf(s, "not an ELF file: %s", why.bad_path);
        } else {
            vt_sym_warnf(s, "not found: %s", m->path);
        }
    }
    free(why.mism_path);
    free(why.bad_path);
    if (fd < 0) return;

    /* add_p_vaddr: the recorded bias is dlpi_addr, i.e. file address + bias = address.
     * Names are unique so that libdwfl never mistakes a replaced module for this one. */
    char name[32];
    snprintf(name, sizeof name, "vt-sym-%u", ++s->nreported);
    dwfl_report_begin_add(s->dwfl);
    Dwfl_Module *dm = dwfl_report_elf(s->dwfl, name, file, fd, m->bias, true);
    dwfl_report_end(s->dwfl, NULL, NULL);
    if (dm == NULL) {
        close(fd); /* libdwfl owns fd only on success */
        vt_sym_warnf(s, "cannot read: %s (%s)", file, dwfl_errmsg(-1));
    } else {
        m->dm = dm;
        m->state = VT_SYM_MOD_READY;
        m->have_tab = vt_sym_tab_build(&m->tab, dm) == 0;
    }
    free(owned);
}

/* ------------------------------------------------------------------------ *
 *  Resolution
 * ------------------------------------------------------------------------ */

/* Fills f[0..] innermost first; returns how many. f[0] holds module and offset already. */
static int vt_sym_describe(vt_sym *s, vt_sym_mod *m, uint64_t ip, vt_frame *f)
{
    /* A return address follows the call; ip - 1 is inside the call instruction, which is
     * what line tables and inline ranges must be asked about. */
    Dwarf_Addr pc = ip > m->bias ? ip - 1 : ip;

    /* The out-of-line function is named by its ELF symbol when there is one: it is what
     * every other tool shows, and covers .cold/.part clones. Demangled once per symbol. */
    const char *outer = NULL;
    if (m->have_tab) {
        vt_sym_entry *se = vt_sym_tab_find(&m->tab, pc);
        if (se != NULL && se->pretty == NULL) se->pretty = vt_sym_intern_fn(s, se->name);
        if (se != NULL) outer = se->pretty;
    } else {
        GElf_Off off;
        GElf_Sym sym;
        outer = vt_sym_intern_fn(s, dwfl_module_addrinfo(m->dm, pc, &off, &sym, NULL, NULL, NULL));
    }

    const char *file = NULL;
    int line = 0;
    Dwfl_Line *ln = dwfl_module_getsrc(m->dm, pc);
    if (ln != NULL) file = dwfl_lineinfo(ln, NULL, &line, NULL, NULL, NULL);

    Dwarf_Die chain[VT_SYM_CHAIN_MAX];
    int n = 0;
    Dwarf_Addr cubias = 0;
    Dwarf_Die *cu = dwfl_module_addrdie(m->dm, pc, &cubias);
    if (cu != NULL) n = vt_sym_dwarf_chain(&m->cus, cu, pc - cubias, chain);
    if (n <= 0) {
        f[0].function = outer;
        f[0].file = vt_sym_intern(s, file);
        f[0].line = line > 0 ? (unsigned)line : 0;
        return 1;
    }

    Dwarf_Files *files = NULL;
    size_t nfiles = 0;
    if (n > 1 && dwarf_getsrcfiles(cu, &files, &nfiles) != 0) files = NULL;

    for (int i = 0; i < n; i++) {
        Dwarf_Die *die = &chain[n - 1 - i];
        f[i].module = f[0].module;
        f[i].offset = f[0].offset;
        char qual[1024];
        f[i].function = (i == n - 1 && outer != NULL)
                            ? outer
                            : vt_sym_intern_fn(s, vt_sym_dwarf_name(die, cu, qual, sizeof qual));
        if (i == 0) {
            f[i].file = vt_sym_intern(s, file);
            f[i].line = line > 0 ? (unsigned)line : 0;
        } else {
            /* The caller's position is where the inner frame was inlined. */
            Dwarf_Die *inner = &chain[n - i];
            Dwarf_Attribute a;
            Dwarf_Word v;
            f[i].file = NULL;
            f[i].line = 0;
            if (files != NULL && dwarf_formudata(dwarf_attr(inner, DW_AT_call_file, &a), &v) == 0 &&
                v < nfiles)
                f[i].file = vt_sym_intern(s, dwarf_filesrc(files, v, NULL, NULL));
            if (dwarf_formudata(dwarf_attr(inner, DW_AT_call_line, &a), &v) == 0)
                f[i].line = (unsigned)v;
        }
    }
    return n;
}

static vt_sym_slot *vt_sym_compute(vt_sym *s, uint64_t ip)
{
    vt_frame f[VT_SYM_CHAIN_MAX];
    memset(&f[0], 0, sizeof f[0]);
    int n = 1, rc = 0;
    vt_sym_mod *m = vt_sym_find_mod(s, ip);
    if (m == NULL) {
        f[0].offset = ip;
        rc = -1;
    } else {
        f[0].module = m->path;
        f[0].offset = ip - m->bias;
        if (m->state == VT_SYM_MOD_NEW) vt_sym_open(s, m);
        if (m->state == VT_SYM_MOD_READY) n = vt_sym_describe(s, m, ip, f);
    }
    if (s->nframes + (size_t)n > s->capframes) {
        size_t cap = s->capframes ? 2 * s->capframes : 4096;
        while (cap < s->nframes + (size_t)n) cap *= 2;
        vt_frame *t = realloc(s->frames, cap * sizeof *t);
        if (t == NULL) return NULL;
        s->frames = t, s->capframes = cap;
    }
    memcpy(&s->frames[s->nframes], f, (size_t)n * sizeof *f);
    vt_sym_slot *e = vt_sym_cache_put(s, ip, (uint32_t)s->nframes, (uint16_t)n, rc);
    if (e != NULL) s->nframes += (size_t)n;
    return e;
}

int vt_sym_resolve_inline(vt_sym *s, uint64_t ip, vt_frame *out, size_t max)
{
    vt_sym_slot *e = vt_sym_cache_find(s, ip);
    if (e == NULL) e = vt_sym_compute(s, ip);
    if (e == NULL) { /* out of memory: still never a bare address when a module covers ip */
        vt_sym_mod *m = vt_sym_find_mod(s, ip);
        if (max > 0) {
            memset(out, 0, sizeof *out);
            out->module = m ? m->path : NULL;
            out->offset = m ? ip - m->bias : ip;
        }
        return m ? 1 : -1;
    }
    size_t n = e->n < max ? e->n : max;
    memcpy(out, &s->frames[e->first], n * sizeof *out);
    return e->rc < 0 ? -1 : (int)e->n;
}

int vt_sym_add_known(vt_sym *s, uint64_t ip, const vt_frame *frames, size_t n)
{
    if (n == 0) return 0;
    if (n > VT_SYM_CHAIN_MAX) n = VT_SYM_CHAIN_MAX;
    vt_sym_mod *m = vt_sym_find_mod(s, ip);
    vt_sym_slot *old = vt_sym_cache_find(s, ip);
    if (old != NULL) return 0; /* the first set of an address wins */
    if (s->nframes + n > s->capframes) {
        size_t cap = s->capframes ? 2 * s->capframes : 4096;
        while (cap < s->nframes + n) cap *= 2;
        vt_frame *t = realloc(s->frames, cap * sizeof *t);
        if (t == NULL) return -1;
        s->frames = t, s->capframes = cap;
    }
    vt_frame *f = &s->frames[s->nframes];
    for (size_t i = 0; i < n; i++) {
        memset(&f[i], 0, sizeof f[i]);
        f[i].module = m ? m->path : NULL;
        f[i].offset = m ? ip - m->bias : ip;
        f[i].line = frames[i].line;
        if (frames[i].function && !(f[i].function = vt_sym_intern(s, frames[i].function))) return -1;
        if (frames[i].file && !(f[i].file = vt_sym_intern(s, frames[i].file))) return -1;
    }
    if (vt_sym_cache_put(s, ip, (uint32_t)s->nframes, (uint16_t)n, m ? 0 : -1) == NULL) return -1;
    s->nframes += n;
    return 0;
}

int vt_sym_resolve(vt_sym *s, uint64_t ip, vt_frame *out)
{
    return vt_sym_resolve_inline(s, ip, out, 1) < 0 ? -1 : 0;
}

size_t vt_sym_warnings(vt_sym *s, const char *const **lines)
{
    if (lines != NULL) *lines = (const char *const *)s->warn;
    return s->nwarn;
}
