// SPDX-License-Identifier: MIT
/* vt_elf.c - "is name defined in this very object, and where": a lookup in one loaded
 * object's dynamic symbol table (DT_GNU_HASH, else DT_HASH), by hand.
 *
 * Why not dlsym(link_map, name): glibc accepts a link map as a handle only for objects
 * that were themselves dlopen'ed (they have a search list); for a plain dependency it
 * crashes (measured: glibc 2.36, dlsym on libc's link map, SIGSEGV). And a handle lookup
 * searches the object's dependencies too, where we want the object alone. So the symbol
 * tables are read directly, with the loader's lock held by dl_iterate_phdr whenever the
 * object is not pinned by us. Functions resolved at run time (IFUNC) and thread-local
 * variables are not computed here: the caller asks glibc for those with a real handle. */
#include "vt_elf.h"
#include "vt_config.h"
#include "vt_dlsym.h"
#include "vt_global.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <string.h>

/* d_ptr values are relocated in place by glibc on x86-64, but not for the vDSO: take
 * whichever reading lands inside the object. */
static uintptr_t dyn_ptr(uintptr_t base, uintptr_t p)
{
    return p < base ? p + base : p;
}

static uint32_t gnu_hash(const char *s)
{
    uint32_t h = 5381;
    for (; *s; s++) h = h * 33 + (uint8_t)*s;
    return h;
}

static uint32_t sysv_hash(const char *s)
{
    uint32_t h = 0, g;
    for (; *s; s++) {
        h = (h << 4) + (uint8_t)*s;
        g = h & 0xf0000000u;
        if (g) h ^= g >> 24;
        h &= ~g;
    }
    return h;
}

/* Is sym a definition dlsym would return (defined, global or weak, the default
 * version)? */
static int usable(const ElfW(Sym) *sym, const ElfW(Half) *versym, uint32_t idx)
{
    if (sym->st_shndx == SHN_UNDEF) return 0;
    unsigned bind = ELF64_ST_BIND(sym->st_info), type = ELF64_ST_TYPE(sym->st_info);
    if (bind != STB_GLOBAL && bind != STB_WEAK && bind != STB_GNU_UNIQUE) return 0;
    if (sym->st_value == 0 && type != STT_TLS) return 0;
    if (versym && (versym[idx] & 0x8000)) return 0;  /* a hidden (non-default) version */
    return 1;
}

int vt_elf_lookup(uintptr_t base, const void *dynamic, const char *name, vt_elf_sym *out)
{
    const ElfW(Dyn) *d = dynamic;
    if (!d) return -1;
    const ElfW(Sym) *symtab = NULL;
    const char *strtab = NULL;
    const uint32_t *gnuhash = NULL, *hash = NULL;
    const ElfW(Half) *versym = NULL;
    for (; d->d_tag != DT_NULL; d++) {
        switch (d->d_tag) {
        case DT_SYMTAB: symtab = (const ElfW(Sym) *)dyn_ptr(base, d->d_un.d_ptr); break;
        case DT_STRTAB: strtab = (const char *)dyn_ptr(base, d->d_un.d_ptr); break;
        case DT_GNU_HASH: gnuhash = (const uint32_t *)dyn_ptr(base, d->d_un.d_ptr); break;
        case DT_HASH: hash = (const uint32_t *)dyn_ptr(base, d->d_un.d_ptr); break;
        case DT_VERSYM: versym = (const ElfW(Half) *)dyn_ptr(base, d->d_un.d_ptr); break;
        default: break;
        }
    }
    if (!symtab || !strtab) return -1;
    const ElfW(Sym) *hit = NULL;
    if (gnuhash) {
        uint32_t nbuckets = gnuhash[0], symoffset = gnuhash[1], bloom_size = gnuhash[2];
        if (!nbuckets) return -1;
        const ElfW(Addr) *bloom = (const ElfW(Addr) *)(gnuhash + 4);
        const uint32_t *buckets = (const uint32_t *)(bloom + bloom_size);
        const uint32_t *chain = buckets + nbuckets;
        uint32_t h = gnu_hash(name);
        uint32_t i = buckets[h % nbuckets];
        if (i < symoffset) return -1;
        for (;; i++) {
            uint32_t h2 = chain[i - symoffset];
            if ((h | 1) == (h2 | 1) && !strcmp(name, strtab + symtab[i].st_name) && usable(&symtab[i], versym, i)) {
                hit = &symtab[i];
                break;
            }
            if (h2 & 1) break;
        }
    } else if (hash) {
        uint32_t nbucket = hash[0];
        if (!nbucket) return -1;
        const uint32_t *bucket = hash + 2, *chain = bucket + nbucket;
        for (uint32_t i = bucket[sysv_hash(name) % nbucket]; i; i = chain[i]) {
            if (!strcmp(name, strtab + symtab[i].st_name) && usable(&symtab[i], versym, i)) {
                hit = &symtab[i];
                break;
            }
        }
    }
    if (!hit) return -1;
    out->addr = base + hit->st_value;
    unsigned type = ELF64_ST_TYPE(hit->st_info);
    out->needs_glibc = type == STT_GNU_IFUNC || type == STT_TLS;
    return 0;
}

/* ------------------------------------------------------------------------ *
 *  RTLD_NEXT
 *
 * glibc searches the scope of the caller's load root (its l_loader chain): for objects
 * of the initial load that is the main program's search list (main, preloads, their
 * dependencies: the order of the link-map chain); for an object dlopen'ed later it is
 * the dlopen'ed root's own search list (root, its dependencies), skipping up to the
 * caller. Neither list is public, so:
 *   initial-load caller: the first object after it in the chain that defines name;
 *   later caller: what a real handle of the caller finds (itself and its
 *   dependencies), unless that is the caller's own definition; then the chain rule.
 * ------------------------------------------------------------------------ */
/* Objects of the initial load (counted by the constructor: it runs after they are all
 * mapped). Written once before any thread exists. */
static int vt_n_initial;

static int count_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)info; (void)size;
    (*(int *)arg)++;
    return 0;
}

void vt_elf_init(void)
{
    int n = 0;
    dl_iterate_phdr(count_cb, &n);
    vt_n_initial = n;
}

typedef struct {
    uintptr_t ra;
    const char *name;
    int index;
    int caller;         /* index of the caller's object, -1 not seen yet */
    uintptr_t caller_base;
    int found;
    vt_elf_sym sym;
    int hit_first;      /* the hit is the main program */
    char hit_path[VT_PATH_MAX];
} vt_next_ctx;

static void copy_name(char *dst, const char *src)
{
    size_t l = src ? strlen(src) : 0;
    if (l >= VT_PATH_MAX) l = VT_PATH_MAX - 1;
    if (l) memcpy(dst, src, l);
    dst[l] = 0;
}

static int next_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
    vt_next_ctx *c = arg;
    (void)size;
    int idx = c->index++;
    if (c->caller < 0) {
        for (int i = 0; i < info->dlpi_phnum; i++) {
            const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
            uintptr_t a = info->dlpi_addr + ph->p_vaddr;
            if (ph->p_type == PT_LOAD && c->ra >= a && c->ra < a + ph->p_memsz) {
                c->caller = idx;
                c->caller_base = info->dlpi_addr;
                break;
            }
        }
        return 0;
    }
    const void *dyn = NULL;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
            dyn = (const void *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    if (!dyn || vt_elf_lookup(info->dlpi_addr, dyn, c->name, &c->sym)) return 0;
    c->found = 1;
    c->hit_first = idx == 0;
    copy_name(c->hit_path, info->dlpi_name);
    return 1;
}

int vt_elf_next(const void *ra, const char *name, void **out)
{
    vt_next_ctx c;
    memset(&c, 0, sizeof c);
    c.ra = (uintptr_t)ra;
    c.name = name;
    c.caller = -1;
    dl_iterate_phdr(next_cb, &c);
    if (c.caller < 0) return -2;
    if (c.caller >= vt_n_initial) {
        void *p = vt_dl_scope_lookup(ra, name);
        Dl_info di;
        if (p && dladdr(p, &di) && (uintptr_t)di.dli_fbase != c.caller_base) {
            *out = p;
            return 0;
        }
        /* the caller's own definition came first: fall back to the chain */
    }
    if (!c.found) return -1;
    if (!c.sym.needs_glibc) { *out = (void *)c.sym.addr; return 0; }
    /* IFUNC or TLS: let glibc resolve it through a real handle of that object. */
    void *h = dlopen(c.hit_first || !c.hit_path[0] ? NULL : c.hit_path, RTLD_NOLOAD | RTLD_LAZY);
    void *p = h ? vt_real_dlsym(h, name) : NULL;
    if (h) dlclose(h);
    *out = p;
    return p ? 0 : -1;
}

/* ------------------------------------------------------------------------ *
 *  The caller's own scope
 * ------------------------------------------------------------------------ */
void *vt_dl_scope_lookup(const void *ra, const char *name)
{
    Dl_info di;
    struct link_map *lm = NULL;
    if (!ra || !dladdr1(ra, &di, (void **)&lm, RTLD_DL_LINKMAP) || !lm) return NULL;
    int main_prog = !lm->l_prev || !lm->l_name || !lm->l_name[0];
    void *h = dlopen(main_prog ? NULL : lm->l_name, RTLD_NOLOAD | RTLD_LAZY);
    if (!h) { dlerror(); return NULL; }
    void *p = vt_real_dlsym(h, name);
    dlclose(h);
    return p;
}

/* What the caller would have bound to without us: first among the caller's own
 * dependencies (a libcudart loaded RTLD_LOCAL with a Python extension is invisible to
 * RTLD_NEXT from here, yet our global export won the caller's binding), then the next
 * definition after us in the global scope. Looked up per call: these calls are rare
 * (a few hundred per process at most). */
void *vt_runtime_next(const char *name, void *ra)
{
    void *p = vt_dl_scope_lookup(ra, name);
    if (p && vt_is_self((uintptr_t)p)) p = NULL;
    if (!p) p = vt_real_dlsym(RTLD_NEXT, name);
    if (p && vt_is_self((uintptr_t)p)) p = NULL;
    dlerror();
    return p;
}
