// SPDX-License-Identifier: MIT
/* vt_unwind.c - a fast stack walker: DWARF CFI rules cached per return address (x86-64
 * and aarch64; the registers and the return-address form come from vt_arch.h).
 *
 * Why not only libunwind: its cached fast path (unw_backtrace) measured ~3,100
 * instructions per 40-frame stack here (callgrind, tests/bench/bench_alloc at depth
 * 32), which alone is several times the recorder's whole budget per allocation.
 * Nearly every frame of a real stack obeys one of three rules (FP, SP: RBP, RSP on
 * x86-64; x29, sp on aarch64, where the return address is x30's saved value):
 *     CFA = SP + k         (frame-pointer-less code)
 *     CFA = FP + k         (frame-pointer code, alloca)
 *     CFA = *(FP + k)      (GCC's stack realignment, x86-64 only)
 * with the return address at CFA + r and the caller's FP unchanged, at CFA + b, or at
 * FP + b. (The names below say RSP and RBP for SP and FP.) So the rule of each return
 * address is derived once from .eh_frame (found through .eh_frame_hdr's binary search
 * table) and kept in a lock-free table; a frame then costs a hash probe and two loads.
 *
 * Anything else (signal frames, other DWARF expressions, a CFA in another register,
 * a stack the thread's bounds do not contain) makes vt_unwind return -1, and the
 * caller falls back to libunwind for that stack. A return address with no FDE at all
 * (JIT code) is walked by the frame-pointer chain if RBP looks like one (a frame record
 * {caller's FP, return address} at FP on both architectures), else the walk
 * stops there. Every stack read is checked against the thread's stack bounds, every
 * .eh_frame read against the object's mapping, so a wrong rule ends a walk instead of
 * faulting. */
#include "vt_unwind.h"
#include "vt_arch.h"
#include "vt_dlsym.h"
#include "vt_global.h"
#include "vt_memo.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>

/* Rule kinds. */
enum { R_NONE = 0, R_RSP = 1, R_RBP = 2, R_DEREF_RBP = 3, R_END = 4, R_BAD = 5, R_NOFDE = 6 };
/* Where the caller's RBP is. */
enum { B_SAME = 0, B_CFA = 1, B_RBP = 2 };

typedef struct {
    uint8_t kind, rbp_rule;
    int16_t ra_off;
    int32_t cfa_off;
    int32_t rbp_off;        /* the caller's RBP (rbp_rule B_CFA, B_RBP), from ra_off */
} vt_rule;

#define VT_RULES_CAP (1u << 16)

/* One cached rule, 16 bytes. The fields are written before the key is published
 * (release), so a reader that sees its key reads a complete entry without a lock. */
typedef struct {
    _Atomic uint64_t key;   /* return address; 0 = empty */
    int32_t cfa_off;
    int16_t ra_off;
    int8_t  rbp_off8;       /* rbp_off / 8: the caller's RBP at ra_off + 8 * rbp_off8 */
    uint8_t kind_rbp;       /* kind | rbp_rule << 4 */
} vt_rule_ent;

/* The rule cache is process-wide: code addresses are shared by all threads. Inserts
 * (once per return address) take vt_rules_mu; lookups take nothing. */
static VT_HOT_DATA vt_rule_ent *vt_rules;
static pthread_mutex_t vt_rules_mu = PTHREAD_MUTEX_INITIALIZER;
typedef int (*vt_find_object_fn)(void *, struct dl_find_object *);
static vt_find_object_fn vt_find_object;

/* Per thread: its stack's upper bound (0 = not known yet, 1 = unknown). */
static VT_TLS uintptr_t vt_stack_hi;

int vt_unwind_init(void)
{
    void *p = mmap(NULL, VT_RULES_CAP * sizeof(vt_rule_ent), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return -1;
    vt_rules = p;
    /* glibc >= 2.35: lock-free object lookup. Looked up, not linked, so that the
     * recorder still loads on older glibc (dl_iterate_phdr is used there). */
    vt_find_object = (vt_find_object_fn)vt_real_dlsym(RTLD_DEFAULT, "_dl_find_object");
    dlerror();
    return 0;
}

/* ------------------------------------------------------------------------ *
 *  Reading .eh_frame, bounded by the object's mapping
 * ------------------------------------------------------------------------ */
typedef struct { const uint8_t *p, *lo, *hi; int bad; } rd;

static int ok(rd *r, size_t n)
{
    if (r->bad || r->p < r->lo || r->p + n > r->hi) { r->bad = 1; return 0; }
    return 1;
}
static uint8_t u8(rd *r) { return ok(r, 1) ? *r->p++ : 0; }
static uint16_t u16(rd *r) { uint16_t v = 0; if (ok(r, 2)) { memcpy(&v, r->p, 2); r->p += 2; } return v; }
static uint32_t u32(rd *r) { uint32_t v = 0; if (ok(r, 4)) { memcpy(&v, r->p, 4); r->p += 4; } return v; }
static uint64_t u64(rd *r) { uint64_t v = 0; if (ok(r, 8)) { memcpy(&v, r->p, 8); r->p += 8; } return v; }

static uint64_t uleb(rd *r)
{
    uint64_t v = 0;
    for (unsigned s = 0; s < 64; s += 7) {
        uint8_t b = u8(r);
        v |= (uint64_t)(b & 0x7f) << s;
        if (!(b & 0x80)) return v;
    }
    r->bad = 1;
    return 0;
}

static int64_t sleb(rd *r)
{
    int64_t v = 0;
    unsigned s = 0;
    uint8_t b;
    do {
        b = u8(r);
        v |= (int64_t)(b & 0x7f) << s;
        s += 7;
    } while ((b & 0x80) && s < 64 && !r->bad);
    if (s < 64 && (b & 0x40)) v |= -((int64_t)1 << s);
    return v;
}

/* A DW_EH_PE-encoded pointer. datarel counts from dbase. */
static uintptr_t enc_ptr(rd *r, uint8_t enc, uintptr_t dbase)
{
    if (enc == 0xff) return 0;
    uintptr_t at = (uintptr_t)r->p, v;
    switch (enc & 0x0f) {
    case 0x00: v = (uintptr_t)u64(r); break;
    case 0x01: v = (uintptr_t)uleb(r); break;
    case 0x02: v = u16(r); break;
    case 0x03: v = u32(r); break;
    case 0x04: v = (uintptr_t)u64(r); break;
    case 0x09: v = (uintptr_t)sleb(r); break;
    case 0x0a: v = (uintptr_t)(int64_t)(int16_t)u16(r); break;
    case 0x0b: v = (uintptr_t)(int64_t)(int32_t)u32(r); break;
    case 0x0c: v = (uintptr_t)u64(r); break;
    default: r->bad = 1; return 0;
    }
    switch (enc & 0x70) {
    case 0x00: break;
    case 0x10: v += at; break;
    case 0x30: v += dbase; break;
    default: r->bad = 1; return 0;
    }
    if (enc & 0x80) r->bad = 1; /* indirect: not in .eh_frame_hdr or FDE ranges */
    return v;
}

/* ------------------------------------------------------------------------ *
 *  Finding the FDE
 * ------------------------------------------------------------------------ */
typedef struct { uintptr_t pc; const uint8_t *hdr; uintptr_t lo, hi; } vt_find;

static int find_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
    vt_find *f = arg;
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    const uint8_t *hdr = NULL;
    int in = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t a = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD) {
            if (a < lo) lo = a;
            if (a + ph->p_memsz > hi) hi = a + ph->p_memsz;
            if (f->pc >= a && f->pc < a + ph->p_memsz) in = 1;
        } else if (ph->p_type == PT_GNU_EH_FRAME) {
            hdr = (const uint8_t *)a;
        }
    }
    (void)size;
    if (!in) return 0;
    f->hdr = hdr; f->lo = lo; f->hi = hi;
    return 1;
}

/* The .eh_frame_hdr of the object holding pc, and the object's extent. */
static int object_of(uintptr_t pc, vt_find *f)
{
    f->pc = pc; f->hdr = NULL;
    if (vt_find_object) {
        struct dl_find_object o;
        if (vt_find_object((void *)pc, &o) != 0) return -1;
        f->hdr = o.dlfo_eh_frame;
        f->lo = (uintptr_t)o.dlfo_map_start;
        f->hi = (uintptr_t)o.dlfo_map_end;
        return f->hdr ? 0 : -1;
    }
    if (!dl_iterate_phdr(find_cb, f)) return -1;
    return f->hdr ? 0 : -1;
}

typedef struct {
    const uint8_t *ins, *ins_end;      /* FDE instructions */
    const uint8_t *cie_ins, *cie_end;  /* CIE initial instructions */
    uintptr_t pc_begin;
    uint64_t code_align;
    int64_t data_align;
    uint64_t ra_reg;
    int signal;
    int has_z;                         /* FDEs carry an augmentation length */
} vt_fde;

static int parse_cie(rd *r, const uint8_t *cie, vt_fde *f, uint8_t *fde_enc)
{
    rd c = { cie, r->lo, r->hi, 0 };
    uint64_t len = u32(&c);
    if (len == 0xffffffffu) len = u64(&c);
    if (c.bad || !len) return -1;
    const uint8_t *end = c.p + len;
    if (end > c.hi) return -1;
    if (u32(&c) != 0) return -1;  /* CIE id in .eh_frame */
    uint8_t ver = u8(&c);
    const char *aug = (const char *)c.p;
    size_t al = strnlen(aug, (size_t)(end - c.p));
    c.p += al + 1;
    if (ver >= 4) { u8(&c); u8(&c); }  /* address and segment size */
    f->code_align = uleb(&c);
    f->data_align = sleb(&c);
    f->ra_reg = ver == 1 ? u8(&c) : uleb(&c);
    *fde_enc = 0;
    f->signal = 0;
    f->has_z = aug[0] == 'z';
    if (f->has_z) {
        uint64_t alen = uleb(&c);
        const uint8_t *adata_end = c.p + alen;
        for (size_t i = 1; i < al && !c.bad; i++) {
            switch (aug[i]) {
            case 'R': *fde_enc = u8(&c); break;
            case 'L': u8(&c); break;
            case 'P': { uint8_t e = u8(&c); (void)enc_ptr(&c, e & 0x7f, 0); c.bad = 0; break; }
            case 'S': f->signal = 1; break;
            default: break;  /* unknown: the length lets us skip the data */
            }
        }
        c.p = adata_end;
    } else if (al) {
        return -1;  /* an augmentation without 'z' cannot be skipped */
    }
    if (c.bad || c.p > end) return -1;
    f->cie_ins = c.p;
    f->cie_end = end;
    return 0;
}

/* The FDE covering pc (a return address minus one). */
static int find_fde(uintptr_t pc, vt_fde *out)
{
    vt_find o;
    if (object_of(pc, &o)) return -1;
    rd h = { o.hdr, (const uint8_t *)o.lo, (const uint8_t *)o.hi, 0 };
    uintptr_t hbase = (uintptr_t)o.hdr;
    if (u8(&h) != 1) return -1;
    uint8_t ptr_enc = u8(&h), cnt_enc = u8(&h), tab_enc = u8(&h);
    (void)enc_ptr(&h, ptr_enc, hbase);
    uint64_t count = enc_ptr(&h, cnt_enc, hbase);
    if (h.bad || tab_enc != 0x3b || !count) return -1;  /* datarel sdata4: what linkers write */
    const uint8_t *tab = h.p;
    if (tab + count * 8 > h.hi) return -1;
    /* Largest initial location <= pc. */
    uint64_t lo = 0, hi = count;
    while (hi - lo > 1) {
        uint64_t mid = (lo + hi) / 2;
        int32_t loc;
        memcpy(&loc, tab + mid * 8, 4);
        if (hbase + (intptr_t)loc <= pc) lo = mid; else hi = mid;
    }
    int32_t loc0, fde_off;
    memcpy(&loc0, tab + lo * 8, 4);
    memcpy(&fde_off, tab + lo * 8 + 4, 4);
    if (hbase + (intptr_t)loc0 > pc) return -1;

    const uint8_t *fde = (const uint8_t *)(hbase + (intptr_t)fde_off);
    rd r = { fde, h.lo, h.hi, 0 };
    uint64_t len = u32(&r);
    if (len == 0xffffffffu) len = u64(&r);
    if (r.bad || !len) return -1;
    const uint8_t *end = r.p + len;
    if (end > r.hi) return -1;
    const uint8_t *idp = r.p;
    uint32_t cie_off = u32(&r);
    if (r.bad || !cie_off) return -1;
    uint8_t fde_enc;
    if (parse_cie(&r, idp - cie_off, out, &fde_enc)) return -1;
    uintptr_t begin = enc_ptr(&r, fde_enc, 0);
    uintptr_t range = enc_ptr(&r, fde_enc & 0x0f, 0);
    if (r.bad || pc < begin || pc >= begin + range) return -1;
    if (out->has_z) {
        uint64_t alen = uleb(&r);
        r.p += alen;
    }
    if (r.bad || r.p > end) return -1;
    out->ins = r.p;
    out->ins_end = end;
    out->pc_begin = begin;
    return 0;
}

/* ------------------------------------------------------------------------ *
 *  Running the CFA program up to pc
 * ------------------------------------------------------------------------ */
enum { REG_RBP = VT_DW_FP, REG_RSP = VT_DW_SP };
/* DW_OP_breg<FP> */
#define OP_BREG_FP (0x70 + VT_DW_FP)

typedef struct {
    int cfa_kind;          /* R_RSP, R_RBP, R_DEREF_RBP, R_BAD */
    int64_t cfa_off;
    int rbp_rule;          /* B_SAME, B_CFA, B_RBP, or -1: unsupported */
    int64_t rbp_off;
    int ra_rule;           /* 1 offset, 0 undefined, -1 unsupported */
    int64_t ra_off;
} vt_state;

/* Runs instructions [p, end) from loc while loc <= pc. Returns 0 or -1. */
static int run_cfa(rd *r, const uint8_t *end, const vt_fde *f, uintptr_t *loc, uintptr_t pc,
                   vt_state *s, const vt_state *init, vt_state *stack, int *sp)
{
    while (r->p < end && !r->bad) {
        uint8_t op = u8(r);
        uint64_t reg, off;
        uintptr_t adv = 0;
        switch (op >> 6) {
        case 1: adv = (op & 0x3f) * f->code_align; goto advance;
        case 2:
            reg = op & 0x3f; off = uleb(r);
            goto set_offset;
        case 3:
            reg = op & 0x3f;
            goto restore;
        default: break;
        }
        switch (op) {
        case 0x00: break;
        case 0x01: *loc = enc_ptr(r, 0x00, 0); if (*loc > pc) return 0; break;
        case 0x02: adv = u8(r) * f->code_align; goto advance;
        case 0x03: adv = u16(r) * f->code_align; goto advance;
        case 0x04: adv = u32(r) * f->code_align; goto advance;
        case 0x05: reg = uleb(r); off = uleb(r); goto set_offset;
        case 0x06: reg = uleb(r); goto restore;
        case 0x07: case 0x08:  /* undefined, same_value */
            reg = uleb(r);
            if (reg == REG_RBP) s->rbp_rule = B_SAME;
            if (reg == f->ra_reg) s->ra_rule = op == 0x07 ? 0 : -1;
            break;
        case 0x09:
            reg = uleb(r); (void)uleb(r);
            if (reg == REG_RBP) s->rbp_rule = -1;
            if (reg == f->ra_reg) s->ra_rule = -1;
            break;
        case 0x0a:
            if (*sp >= 8) return -1;
            stack[(*sp)++] = *s;
            break;
        case 0x0b: {
            if (*sp <= 0) return -1;
            /* restore_state keeps the CFA rule of the state it restores too (gcc relies
             * on DW_CFA_def_cfa_offset after it when needed) */
            *s = stack[--(*sp)];
            break;
        }
        case 0x0c:
            reg = uleb(r); off = uleb(r);
            s->cfa_kind = reg == REG_RSP ? R_RSP : reg == REG_RBP ? R_RBP : R_BAD;
            s->cfa_off = (int64_t)off;
            break;
        case 0x0d:
            reg = uleb(r);
            s->cfa_kind = reg == REG_RSP ? R_RSP : reg == REG_RBP ? R_RBP : R_BAD;
            break;
        case 0x0e: s->cfa_off = (int64_t)uleb(r); break;
        case 0x0f: {  /* def_cfa_expression: only DW_OP_breg<FP> k; DW_OP_deref */
            uint64_t len = uleb(r);
            const uint8_t *e = r->p;
            rd x = { e, r->lo, r->hi, 0 };
            r->p += len;
            s->cfa_kind = R_BAD;
            if (VT_ARCH_CFA_DEREF && u8(&x) == OP_BREG_FP) {
                int64_t k = sleb(&x);
                if (u8(&x) == 0x06 && x.p == e + len && !x.bad) { s->cfa_kind = R_DEREF_RBP; s->cfa_off = k; }
            }
            break;
        }
        case 0x10: {  /* expression: only FP saved at DW_OP_breg<FP> k */
            reg = uleb(r);
            uint64_t len = uleb(r);
            const uint8_t *e = r->p;
            rd x = { e, r->lo, r->hi, 0 };
            r->p += len;
            if (reg == REG_RBP) {
                s->rbp_rule = -1;
                if (u8(&x) == OP_BREG_FP) {
                    int64_t k = sleb(&x);
                    if (x.p == e + len && !x.bad) { s->rbp_rule = B_RBP; s->rbp_off = k; }
                }
            }
            if (reg == f->ra_reg) s->ra_rule = -1;
            break;
        }
        case 0x11: reg = uleb(r); off = (uint64_t)sleb(r); goto set_offset;
        case 0x12:
            reg = uleb(r);
            s->cfa_kind = reg == REG_RSP ? R_RSP : reg == REG_RBP ? R_RBP : R_BAD;
            s->cfa_off = sleb(r) * f->data_align;
            break;
        case 0x13: s->cfa_off = sleb(r) * f->data_align; break;
        case 0x14: case 0x15:  /* val_offset(_sf) */
            reg = uleb(r);
            if (op == 0x14) (void)uleb(r); else (void)sleb(r);
            if (reg == REG_RBP) s->rbp_rule = -1;
            if (reg == f->ra_reg) s->ra_rule = -1;
            break;
        case 0x16: {  /* val_expression */
            reg = uleb(r);
            uint64_t len = uleb(r);
            r->p += len;
            if (reg == REG_RBP) s->rbp_rule = -1;
            if (reg == f->ra_reg) s->ra_rule = -1;
            break;
        }
        case 0x2e: (void)uleb(r); break;  /* GNU_args_size */
#ifdef VT_DW_CFA_NEGATE_RA_STATE
        case VT_DW_CFA_NEGATE_RA_STATE: break;  /* signed or not, vt_arch_code strips it */
#endif
        case 0x2f:                          /* GNU_negative_offset_extended */
            reg = uleb(r); off = (uint64_t)-(int64_t)uleb(r);
            goto set_offset;
        default:
            return -1;
        }
        continue;
    advance:
        if (*loc + adv > pc) return 0;
        *loc += adv;
        continue;
    set_offset: {
            int64_t o = (int64_t)off * f->data_align;
            if (reg == REG_RBP) { s->rbp_rule = B_CFA; s->rbp_off = o; }
            if (reg == f->ra_reg) { s->ra_rule = 1; s->ra_off = o; }
            continue;
        }
    restore:
        if (reg == REG_RBP) { s->rbp_rule = init->rbp_rule; s->rbp_off = init->rbp_off; }
        if (reg == f->ra_reg) { s->ra_rule = init->ra_rule; s->ra_off = init->ra_off; }
        continue;
    }
    return r->bad ? -1 : 0;
}

/* The rule for the frame whose return address is ip. */
static vt_rule derive(uintptr_t ip)
{
    vt_rule out = { R_BAD, B_SAME, 0, 0, 0 };
    vt_fde f;
    memset(&f, 0, sizeof f);
    if (find_fde(ip - 1, &f)) { out.kind = R_NOFDE; return out; }
    if (f.signal || f.ra_reg != VT_DW_RA) return out;
    vt_state s = { R_BAD, 0, B_SAME, 0, -1, 0 }, init, stack[8];
    int sp = 0;
    uintptr_t loc = f.pc_begin;
    rd r = { f.cie_ins, f.cie_ins, f.cie_end, 0 };
    if (run_cfa(&r, f.cie_end, &f, &loc, UINTPTR_MAX, &s, &s, stack, &sp)) return out;
    init = s;
    loc = f.pc_begin;
    rd q = { f.ins, f.ins, f.ins_end, 0 };
    if (run_cfa(&q, f.ins_end, &f, &loc, ip - 1, &s, &init, stack, &sp)) return out;
    if (s.ra_rule == 0) { out.kind = R_END; return out; }
    if (s.ra_rule != 1 || s.rbp_rule < 0 || s.cfa_kind == R_BAD) return out;
    /* The caller's FP is kept as words from the return address's offset: it sits next to
     * the return address on both architectures (x86-64 pushes RBP right after it; aarch64
     * saves x29 and x30 as a pair, at the bottom of a frame that may be kilobytes deep). */
    int64_t fp_delta = s.rbp_rule == B_SAME ? 0 : s.rbp_off - s.ra_off;
    if (s.cfa_off < INT32_MIN || s.cfa_off > INT32_MAX || s.ra_off < INT16_MIN || s.ra_off > INT16_MAX
        || fp_delta < -1024 || fp_delta > 1016 || (fp_delta & 7))
        return out;
    out.kind = (uint8_t)s.cfa_kind;
    out.cfa_off = (int32_t)s.cfa_off;
    out.ra_off = (int16_t)s.ra_off;
    out.rbp_rule = (uint8_t)s.rbp_rule;
    out.rbp_off = (int32_t)fp_delta;
    return out;
}

/* ------------------------------------------------------------------------ *
 *  The rule cache
 * ------------------------------------------------------------------------ */
static inline uint64_t slot_of(uint64_t ip)
{
    return (ip * 0x9e3779b97f4a7c15ull) >> (64 - 16);
}

/* Rare: derives the rule of ip and publishes it. Returns the published entry, or tmp
 * filled in when the neighbourhood is crowded (not cached, still correct). */
static __attribute__((noinline)) const vt_rule_ent *rule_insert(uintptr_t ip, vt_rule_ent *tmp)
{
    vt_rule r = derive(ip);
    tmp->cfa_off = r.cfa_off;
    tmp->ra_off = r.ra_off;
    tmp->rbp_off8 = (int8_t)(r.rbp_off / 8);
    tmp->kind_rbp = (uint8_t)(r.kind | r.rbp_rule << 4);
    const vt_rule_ent *out = tmp;
    pthread_mutex_lock(&vt_rules_mu);
    uint64_t i = slot_of(ip);
    for (int probe = 0; probe < 16; probe++, i = (i + 1) & (VT_RULES_CAP - 1)) {
        vt_rule_ent *e = &vt_rules[i];
        uint64_t k = atomic_load_explicit(&e->key, memory_order_relaxed);
        if (k == ip) { out = e; break; }
        if (k == 0) {
            e->cfa_off = tmp->cfa_off;
            e->ra_off = tmp->ra_off;
            e->rbp_off8 = tmp->rbp_off8;
            e->kind_rbp = tmp->kind_rbp;
            atomic_store_explicit(&e->key, ip, memory_order_release);
            out = e;
            break;
        }
    }
    pthread_mutex_unlock(&vt_rules_mu);
    return out;
}

static inline const vt_rule_ent *rule_of(uintptr_t ip, vt_rule_ent *tmp)
{
    uint64_t i = slot_of(ip);
    for (int probe = 0; probe < 16; probe++, i = (i + 1) & (VT_RULES_CAP - 1)) {
        const vt_rule_ent *e = &vt_rules[i];
        uint64_t k = atomic_load_explicit(&e->key, memory_order_acquire);
        if (VT_LIKELY(k == ip)) return e;
        if (k == 0) break;
    }
    return rule_insert(ip, tmp);
}

/* ------------------------------------------------------------------------ *
 *  The thread's stack bounds
 * ------------------------------------------------------------------------ */
uintptr_t vt_unwind_stack_hi(void)
{
    return vt_stack_hi > 1 ? vt_stack_hi : 0;
}

static uintptr_t stack_hi(uintptr_t rsp)
{
    uintptr_t hi = vt_stack_hi;
    if (VT_LIKELY(hi > 1)) return hi;
    if (hi == 1) return 0;
    pthread_attr_t a;
    void *addr;
    size_t size;
    hi = 1;
    if (pthread_getattr_np(pthread_self(), &a) == 0) {
        if (pthread_attr_getstack(&a, &addr, &size) == 0) {
            uintptr_t top = (uintptr_t)addr + size;
            if (rsp >= (uintptr_t)addr && rsp < top) hi = top;
        }
        pthread_attr_destroy(&a);
    }
    vt_stack_hi = hi;
    return hi > 1 ? hi : 0;
}

/* ------------------------------------------------------------------------ *
 *  The walk
 * ------------------------------------------------------------------------ */
/* Fills ips with return addresses, the first being the return address into the
 * caller of vt_unwind, and sps (when not NULL) with the stack pointer of the function
 * each return address is in (its frame spans [sps[i], sps[i + 1])). Returns how many,
 * or -1 when a frame needs libunwind. With a memo (vt_memo.c): returns 0 and sets *hit
 * when the memo knows the walk; else logs the words the walk reads for it. */
__attribute__((noinline)) int vt_unwind(void **ips, uintptr_t *sps, int max, vt_memo *m, const vt_walk **hit)
{
    /* This function keeps a frame pointer (built with -fno-omit-frame-pointer): its frame
     * record holds the caller's FP. Its CFA is the caller's SP at the call: on x86-64 just
     * above the record (saved RBP, return address); on aarch64 the record sits at the
     * bottom of the frame, so the compiler says where the CFA is. */
    uintptr_t fp = (uintptr_t)__builtin_frame_address(0);
    uintptr_t ip = vt_arch_code((uintptr_t)__builtin_return_address(0));
#if defined(__x86_64__)
    uintptr_t rsp = fp + 16;
#else
    uintptr_t rsp = (uintptr_t)__builtin_dwarf_cfa();
#endif
    uintptr_t rbp = *(uintptr_t *)fp;
    uintptr_t lo = rsp, hi = stack_hi(rsp);
    if (!hi || rsp >= hi || !vt_rules) return -1;  /* an alternate stack: let libunwind try */
    uintptr_t span = hi - lo - 8;
    uint64_t *log = NULL;
    uint32_t nlog = 0, cap = 0, *frame_at = NULL;
    uintptr_t rbp0_word = 0;
    if (m) {
        if ((*hit = vt_memo_find(m, rsp, rbp))) return 0;
        log = vt_memo_log(m, &cap, &rbp0_word, &frame_at);
    }
    /* Where the current RBP came from: the start (the memo's rbp0 word), a stack word
     * not yet logged (pend_a, pend_v), or a word already logged. */
    enum { RBP_START, RBP_PENDING, RBP_LOGGED } rbp_src = RBP_START;
    uintptr_t pend_a = 0, pend_v = 0;
    /* a is a readable, aligned stack word */
#define STACK_WORD(a) ((uintptr_t)((a) - lo) <= span && !((a) & 7))
#define LOG(a, v) do { if (log && nlog < cap) { log[2 * nlog] = (a); log[2 * nlog + 1] = (v); nlog++; } \
        else log = NULL; } while (0)
    /* reads a stack word, logging it for the memo */
#define READ(dst, a) do { (dst) = *(uintptr_t *)(a); LOG((a), (dst)); } while (0)
    /* the walk is about to depend on RBP's value */
#define USE_RBP() do { if (rbp_src == RBP_PENDING) LOG(pend_a, pend_v); \
        else if (rbp_src == RBP_START) LOG(rbp0_word, rbp); \
        rbp_src = RBP_LOGGED; } while (0)
    /* RBP restored from stack word a: logged only if a later frame uses it */
#define RESTORE_RBP(a) do { pend_a = (a); pend_v = rbp = *(uintptr_t *)(a); rbp_src = RBP_PENDING; } while (0)
    vt_rule_ent tmp;
    int n = 0;
    for (;;) {
        if (sps) sps[n] = rsp;
        if (frame_at) frame_at[n] = nlog;   /* the reads this frame's address came from */
        ips[n++] = (void *)ip;
        if (n >= max) break;
        const vt_rule_ent *e = rule_of(ip, &tmp);
        unsigned kind = e->kind_rbp & 15, brule = e->kind_rbp >> 4;
        uintptr_t cfa, ra_at;
        if (VT_LIKELY(kind == R_RSP)) {
            cfa = rsp + (intptr_t)e->cfa_off;
        } else if (kind == R_RBP) {
            USE_RBP();
            cfa = rbp + (intptr_t)e->cfa_off;
        } else if (kind == R_DEREF_RBP) {
            USE_RBP();
            uintptr_t a = rbp + (intptr_t)e->cfa_off;
            if (!STACK_WORD(a)) break;
            READ(cfa, a);
        } else if (kind == R_NOFDE) {
            /* no unwind info: follow the frame pointer if it is one */
            USE_RBP();
            if (rbp < rsp || !STACK_WORD(rbp) || !STACK_WORD(rbp + 8)) break;
            uintptr_t b = rbp;
            READ(ip, b + 8);
            ip = vt_arch_code(ip);
            RESTORE_RBP(b);
            rsp = b + 16;
            if (ip < 4096) break;
            continue;
        } else if (kind == R_END) {
            break;
        } else {
            return -1;
        }
        if (cfa <= rsp || !STACK_WORD(cfa - 8)) break;
        ra_at = cfa + (intptr_t)e->ra_off;
        uintptr_t rbp_at = 0;
        if (brule != B_SAME) {
            if (brule == B_RBP) USE_RBP();
            rbp_at = (brule == B_CFA ? cfa : rbp) + (intptr_t)e->ra_off + (intptr_t)e->rbp_off8 * 8;
            if (!STACK_WORD(rbp_at)) break;
        }
        if (!STACK_WORD(ra_at)) break;
        READ(ip, ra_at);
        ip = vt_arch_code(ip);
        rsp = cfa;
        if (rbp_at) RESTORE_RBP(rbp_at);
        if (ip < 4096) break;
    }
#undef USE_RBP
#undef RESTORE_RBP
#undef READ
#undef LOG
#undef STACK_WORD
    if (m && log) vt_memo_walked(m, nlog);
    return n;
}
