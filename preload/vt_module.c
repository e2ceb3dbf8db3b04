// SPDX-License-Identifier: MIT
/* vt_module.c - MODULE records: every loaded ELF object (path, load bias, extent,
 * GNU build-id), so that the analyzer can symbolize return addresses offline.
 *
 * Writer thread only. dl_iterate_phdr's dlpi_adds/dlpi_subs counters say whether the
 * set of objects changed; checking them costs one callback, so the writer checks at
 * every cycle before it encodes the stack nodes it has taken: a module dlopen'ed just
 * before an allocation is always described before the stack that runs through it.
 * Each (path, bias) is emitted once.
 *
 * No allocation and no lock of ours inside the dl_iterate_phdr callback (it runs under
 * the loader's lock): entries go to preallocated arrays, and a scan that does not fit
 * is retried with bigger ones. */
#include "vt_module.h"
#include "vt_config.h"
#include "vt_format.h"
#include "vt_py.h"

#include <elf.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define VT_BUILD_ID_MAX 64

typedef struct {
    uintptr_t bias;
    uint64_t  size;
    uint32_t  name_off, name_len;
    uint32_t  bid_len;
    int       is_main;
    uint8_t   bid[VT_BUILD_ID_MAX];
} vt_mod;

/* Writer-thread state: the scan scratch and the set of (path, bias) already emitted. */
static struct {
    unsigned long long adds, subs;
    int       scanned;
    vt_mod   *ents;
    size_t    n, cap;
    char     *names;
    size_t    names_len, names_cap;
    int       overflow;
    uint64_t *seen;
    size_t    seen_n, seen_cap;  /* open addressing, power of two */
} vt_m;

/* ------------------------------------------------------------------------ *
 *  Scan
 * ------------------------------------------------------------------------ */
static int counters_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
    unsigned long long *c = arg;
    if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs) {
        c[0] = info->dlpi_adds;
        c[1] = info->dlpi_subs;
    }
    return 1; /* the counters are in every entry: one is enough */
}

static void build_id(const struct dl_phdr_info *info, vt_mod *m)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE) continue;
        size_t align = ph->p_align == 8 ? 8 : 4;
        const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
        const uint8_t *end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
            const uint8_t *name = p + sizeof *nh;
            const uint8_t *desc = name + ((nh->n_namesz + align - 1) & ~(align - 1));
            const uint8_t *next = desc + ((nh->n_descsz + align - 1) & ~(align - 1));
            if (next > end || next <= p) break;
            if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && !memcmp(name, "GNU", 4)) {
                m->bid_len = nh->n_descsz < VT_BUILD_ID_MAX ? nh->n_descsz : VT_BUILD_ID_MAX;
                memcpy(m->bid, desc, m->bid_len);
                return;
            }
            p = next;
        }
    }
}

static int scan_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
    int *first = arg;
    int is_main = *first;
    *first = 0;
    const char *name = info->dlpi_name ? info->dlpi_name : "";
    if (!is_main && name[0] != '/') return 0;  /* the vDSO, and nameless objects */
    size_t nl = is_main ? 0 : strlen(name);
    if (vt_m.n == vt_m.cap || vt_m.names_len + nl > vt_m.names_cap) {
        vt_m.overflow = 1;
        return 1;
    }
    vt_mod *m = &vt_m.ents[vt_m.n++];
    memset(m, 0, sizeof *m);
    m->bias = info->dlpi_addr;
    m->is_main = is_main;
    m->name_off = (uint32_t)vt_m.names_len;
    m->name_len = (uint32_t)nl;
    memcpy(vt_m.names + vt_m.names_len, name, nl);
    vt_m.names_len += nl;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && ph->p_vaddr + ph->p_memsz > m->size) m->size = ph->p_vaddr + ph->p_memsz;
    }
    build_id(info, m);
    (void)size;
    return 0;
}

/* ------------------------------------------------------------------------ *
 *  Emitted set
 * ------------------------------------------------------------------------ */
static uint64_t key_of(uintptr_t bias, const char *name, size_t nl)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < nl; i++) h = (h ^ (uint8_t)name[i]) * 0x100000001b3ull;
    h ^= (uint64_t)bias * 0x9e3779b97f4a7c15ull;
    return h ? h : 1;
}

/* Returns 1 when key is new (and adds it). */
static int seen_add(uint64_t key)
{
    if ((vt_m.seen_n + 1) * 2 > vt_m.seen_cap) {
        size_t cap = vt_m.seen_cap ? vt_m.seen_cap * 2 : 1024;
        uint64_t *t = calloc(cap, sizeof *t);
        if (!t) return 1;  /* out of memory: emit (a duplicate MODULE is harmless) */
        for (size_t i = 0; i < vt_m.seen_cap; i++) {
            uint64_t k = vt_m.seen[i];
            if (!k) continue;
            size_t j = k & (cap - 1);
            while (t[j]) j = (j + 1) & (cap - 1);
            t[j] = k;
        }
        free(vt_m.seen);
        vt_m.seen = t;
        vt_m.seen_cap = cap;
    }
    size_t j = key & (vt_m.seen_cap - 1);
    while (vt_m.seen[j]) {
        if (vt_m.seen[j] == key) return 0;
        j = (j + 1) & (vt_m.seen_cap - 1);
    }
    vt_m.seen[j] = key;
    vt_m.seen_n++;
    return 1;
}

/* ------------------------------------------------------------------------ *
 *  Check
 * ------------------------------------------------------------------------ */
void vt_module_check(void (*emit)(const vt_rec *r))
{
    unsigned long long c[2] = { 0, 0 };
    dl_iterate_phdr(counters_cb, c);
    if (vt_m.scanned && c[0] == vt_m.adds && c[1] == vt_m.subs) return;

    for (int attempt = 0; attempt < 8; attempt++) {
        if (!vt_m.ents) {
            vt_m.cap = 1024;
            vt_m.names_cap = 256 * 1024;
            vt_m.ents = malloc(vt_m.cap * sizeof *vt_m.ents);
            vt_m.names = malloc(vt_m.names_cap);
            if (!vt_m.ents || !vt_m.names) {
                free(vt_m.ents); free(vt_m.names);
                vt_m.ents = NULL; vt_m.names = NULL;
                return;
            }
        }
        vt_m.n = 0;
        vt_m.names_len = 0;
        vt_m.overflow = 0;
        int first = 1;
        dl_iterate_phdr(scan_cb, &first);
        if (!vt_m.overflow) break;
        vt_mod *e = realloc(vt_m.ents, vt_m.cap * 2 * sizeof *e);
        if (e) { vt_m.ents = e; vt_m.cap *= 2; }
        char *nm = realloc(vt_m.names, vt_m.names_cap * 2);
        if (nm) { vt_m.names = nm; vt_m.names_cap *= 2; }
        if (!e || !nm) break;
    }
    vt_m.adds = c[0];
    vt_m.subs = c[1];
    vt_m.scanned = 1;
    /* An interpreter loaded by dlopen (an embedding program) is found here. */
    if (!atomic_load_explicit(&vt_py_found, memory_order_acquire)) vt_py_try_init();

    char exe[VT_PATH_MAX];
    for (size_t i = 0; i < vt_m.n; i++) {
        vt_mod *m = &vt_m.ents[i];
        const char *name = vt_m.names + m->name_off;
        size_t nl = m->name_len;
        if (m->is_main) {
            ssize_t l = readlink("/proc/self/exe", exe, sizeof exe - 1);
            if (l <= 0) continue;
            name = exe;
            nl = (size_t)l;
        }
        if (!seen_add(key_of(m->bias, name, nl))) continue;
        vt_rec r = { .type = VT_REC_MODULE, .device = -1, .addr = m->bias, .size = m->size,
                     .bytes = m->bid, .bytes_len = m->bid_len, .str = name, .str_len = (uint32_t)nl };
        emit(&r);
    }
}
