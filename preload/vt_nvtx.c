// SPDX-License-Identifier: MIT
/* vt_nvtx.c - NVTX ranges as scopes: the NVTX v3 injection interface.
 *
 * How NVTX finds us: every copy of the NVTX v3 headers (each library that includes
 * them: PyTorch's torch.cuda.nvtx, NCCL, a CUDA C program...) initializes itself at its
 * first NVTX call by reading NVTX_INJECTION64_PATH, dlopen'ing that library and calling
 * its InitializeInjectionNvtx2(getExportTable). `vramtrace run` points the variable at
 * libvramtrace.so, which is already loaded (preloaded), so dlopen just returns it. The
 * injection asks the export table for the callback tables of the CORE and CORE2
 * modules and writes its functions into the slots it implements; NVTX turns every other
 * slot into a no-op. So a program pays for the calls we record (range push/pop and
 * start/end, in the default domain and in named ones) and for nothing else (marks,
 * categories, thread names, resources: not set).
 *
 * The contract's types are declared here rather than taken from <nvtx3/...>: the ABI is
 * fixed (NVTX's callback ids and structure layouts only ever grow), and the recorder
 * then builds without the headers. tests/python/nvtx_prog.c exercises it through the
 * real headers.
 *
 * Range names: an ASCII message as is, a wide one converted to UTF-8, a registered
 * string (nvtxDomainRegisterString) by the id it was given. Ranges with no message are
 * kept (their pop must find them) but add no frame. Domain names are not recorded. */
#include "vt_global.h"
#include "vt_scope.h"
#include "vt_stats.h"
#include "vt_str.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

/* ------------------------------------------------------------------------ *
 *  The NVTX v3 injection ABI (nvtx3/nvtxDetail/nvtxTypes.h, nvToolsExt.h)
 * ------------------------------------------------------------------------ */
typedef void (*nvtx_fn)(void);
typedef nvtx_fn **nvtx_table;  /* array of pointers to the function pointer slots */
typedef const void *(*nvtx_get_export_table)(uint32_t id);

typedef struct {
    size_t struct_size;
    int (*get_module_function_table)(int module, nvtx_table *out_table, unsigned *out_size);
} nvtx_callbacks;

enum { NVTX_ETID_CALLBACKS = 1 };
enum { NVTX_CB_MODULE_CORE = 1, NVTX_CB_MODULE_CORE2 = 5 };
enum {
    CORE_RangeStartEx = 4, CORE_RangeStartA = 5, CORE_RangeStartW = 6, CORE_RangeEnd = 7,
    CORE_RangePushEx = 8, CORE_RangePushA = 9, CORE_RangePushW = 10, CORE_RangePop = 11
};
enum {
    CORE2_DomainRangeStartEx = 2, CORE2_DomainRangeEnd = 3, CORE2_DomainRangePushEx = 4,
    CORE2_DomainRangePop = 5, CORE2_DomainRegisterStringA = 10, CORE2_DomainRegisterStringW = 11,
    CORE2_DomainCreateA = 12, CORE2_DomainCreateW = 13, CORE2_DomainDestroy = 14
};
enum { NVTX_MESSAGE_TYPE_ASCII = 1, NVTX_MESSAGE_TYPE_UNICODE = 2, NVTX_MESSAGE_TYPE_REGISTERED = 3 };

/* nvtxEventAttributes_v2 */
typedef struct {
    uint16_t version;
    uint16_t size;
    uint32_t category;
    int32_t  color_type;
    uint32_t color;
    int32_t  payload_type;
    int32_t  reserved0;
    uint64_t payload;
    int32_t  message_type;
    union { const char *ascii; const wchar_t *unicode; const void *registered; } message;
} nvtx_attr;

_Static_assert(sizeof(nvtx_attr) == 48, "nvtxEventAttributes_v2 is 48 bytes");

/* ------------------------------------------------------------------------ *
 *  Names
 * ------------------------------------------------------------------------ */
/* UTF-32 (Linux wchar_t) to a UTF-8 STRING id; cut at VT_STR_MAX bytes. */
static uint32_t wide_sid(const wchar_t *w)
{
    if (!w) return 0;
    char buf[512];
    size_t o = 0;
    for (; *w && o + 4 < sizeof buf; w++) {
        uint32_t c = (uint32_t)*w;
        if (c < 0x80) buf[o++] = (char)c;
        else if (c < 0x800) { buf[o++] = (char)(0xc0 | c >> 6); buf[o++] = (char)(0x80 | (c & 0x3f)); }
        else if (c < 0x10000) {
            buf[o++] = (char)(0xe0 | c >> 12); buf[o++] = (char)(0x80 | ((c >> 6) & 0x3f));
            buf[o++] = (char)(0x80 | (c & 0x3f));
        } else if (c < 0x110000) {
            buf[o++] = (char)(0xf0 | c >> 18); buf[o++] = (char)(0x80 | ((c >> 12) & 0x3f));
            buf[o++] = (char)(0x80 | ((c >> 6) & 0x3f)); buf[o++] = (char)(0x80 | (c & 0x3f));
        } else {
            buf[o++] = '?';
        }
    }
    return vt_str_intern(buf, o);
}

static inline uint32_t ascii_sid(const char *s)
{
    return s ? vt_str_intern(s, strlen(s)) : 0;
}

static uint32_t attr_sid(const nvtx_attr *a)
{
    if (!a || a->size < sizeof *a) return 0;
    switch (a->message_type) {
    case NVTX_MESSAGE_TYPE_ASCII: return ascii_sid(a->message.ascii);
    case NVTX_MESSAGE_TYPE_UNICODE: return wide_sid(a->message.unicode);
    case NVTX_MESSAGE_TYPE_REGISTERED: return (uint32_t)(uintptr_t)a->message.registered;
    default: return 0;
    }
}

static inline int on(void)
{
    /* Libraries such as cuBLAS annotate every call once an injection is loaded: count
     * the ranges opened, to see that traffic (VRAMTRACE_STATS). */
    if (VT_UNLIKELY(vt_g.cfg.stats)) vt_stats_add(VT_STAT_NVTX, 1);
    return atomic_load_explicit(&vt_g.state, memory_order_acquire) >= VT_ST_IDLE;
}

/* ------------------------------------------------------------------------ *
 *  Domains: handles are the addresses of entries here, one per name
 * ------------------------------------------------------------------------ */
#define VT_DOMAINS 256

typedef struct { uint32_t sid; } vt_domain;

/* Process-wide: a domain handle is valid on every thread. Entries are never freed
 * (nvtxDomainDestroy is a no-op: a range of the domain may still be open). */
static vt_domain vt_domains[VT_DOMAINS];
static uint32_t vt_ndomains;
static pthread_mutex_t vt_domains_mu = PTHREAD_MUTEX_INITIALIZER;
/* Handed out when the table is full: its ranges share one domain. */
static vt_domain vt_domain_spill;

static void *domain_of(uint32_t sid)
{
    vt_domain *d = &vt_domain_spill;
    pthread_mutex_lock(&vt_domains_mu);
    for (uint32_t i = 0; i < vt_ndomains; i++)
        if (vt_domains[i].sid == sid && sid) { d = &vt_domains[i]; goto out; }
    if (vt_ndomains < VT_DOMAINS) {
        d = &vt_domains[vt_ndomains++];
        d->sid = sid;
    }
out:
    pthread_mutex_unlock(&vt_domains_mu);
    return d;
}

/* ------------------------------------------------------------------------ *
 *  Callbacks
 * ------------------------------------------------------------------------ */
static int range_push_ex(const nvtx_attr *a) { return on() ? vt_scope_push(attr_sid(a), NULL) : 0; }
static int range_push_a(const char *m) { return on() ? vt_scope_push(ascii_sid(m), NULL) : 0; }
static int range_push_w(const wchar_t *m) { return on() ? vt_scope_push(wide_sid(m), NULL) : 0; }
static int range_pop(void) { return vt_scope_pop(NULL); }

static uint64_t range_start_ex(const nvtx_attr *a) { return on() ? vt_scope_start(attr_sid(a)) : 0; }
static uint64_t range_start_a(const char *m) { return on() ? vt_scope_start(ascii_sid(m)) : 0; }
static uint64_t range_start_w(const wchar_t *m) { return on() ? vt_scope_start(wide_sid(m)) : 0; }
static void range_end(uint64_t id) { vt_scope_end(id); }

static int domain_push_ex(void *d, const nvtx_attr *a) { return on() ? vt_scope_push(attr_sid(a), d) : 0; }
static int domain_pop(void *d) { return vt_scope_pop(d); }
static uint64_t domain_start_ex(void *d, const nvtx_attr *a) { (void)d; return range_start_ex(a); }
static void domain_end(void *d, uint64_t id) { (void)d; vt_scope_end(id); }
static void *register_a(void *d, const char *s) { (void)d; return (void *)(uintptr_t)ascii_sid(s); }
static void *register_w(void *d, const wchar_t *s) { (void)d; return (void *)(uintptr_t)wide_sid(s); }
static void *domain_create_a(const char *name) { return domain_of(ascii_sid(name)); }
static void *domain_create_w(const wchar_t *name) { return domain_of(wide_sid(name)); }
static void domain_destroy(void *d) { (void)d; }

static void set_slot(nvtx_table t, unsigned size, unsigned id, nvtx_fn f)
{
    if (id <= size && t[id]) *t[id] = f;
}

/* Called by each NVTX instance at its first NVTX call. Returns 1 when we attached, 0
 * to let NVTX turn every call into a no-op (tracing off). */
VT_EXPORT int InitializeInjectionNvtx2(nvtx_get_export_table get)
{
    if (!on() || !get) return 0;
    const nvtx_callbacks *cb = get(NVTX_ETID_CALLBACKS);
    if (!cb || cb->struct_size < sizeof *cb || !cb->get_module_function_table) return 0;
    nvtx_table t = NULL;
    unsigned n = 0;
    if (cb->get_module_function_table(NVTX_CB_MODULE_CORE, &t, &n) && t) {
        set_slot(t, n, CORE_RangeStartEx, (nvtx_fn)range_start_ex);
        set_slot(t, n, CORE_RangeStartA, (nvtx_fn)range_start_a);
        set_slot(t, n, CORE_RangeStartW, (nvtx_fn)range_start_w);
        set_slot(t, n, CORE_RangeEnd, (nvtx_fn)range_end);
        set_slot(t, n, CORE_RangePushEx, (nvtx_fn)range_push_ex);
        set_slot(t, n, CORE_RangePushA, (nvtx_fn)range_push_a);
        set_slot(t, n, CORE_RangePushW, (nvtx_fn)range_push_w);
        set_slot(t, n, CORE_RangePop, (nvtx_fn)range_pop);
    }
    t = NULL;
    n = 0;
    if (cb->get_module_function_table(NVTX_CB_MODULE_CORE2, &t, &n) && t) {
        set_slot(t, n, CORE2_DomainRangeStartEx, (nvtx_fn)domain_start_ex);
        set_slot(t, n, CORE2_DomainRangeEnd, (nvtx_fn)domain_end);
        set_slot(t, n, CORE2_DomainRangePushEx, (nvtx_fn)domain_push_ex);
        set_slot(t, n, CORE2_DomainRangePop, (nvtx_fn)domain_pop);
        set_slot(t, n, CORE2_DomainRegisterStringA, (nvtx_fn)register_a);
        set_slot(t, n, CORE2_DomainRegisterStringW, (nvtx_fn)register_w);
        set_slot(t, n, CORE2_DomainCreateA, (nvtx_fn)domain_create_a);
        set_slot(t, n, CORE2_DomainCreateW, (nvtx_fn)domain_create_w);
        set_slot(t, n, CORE2_DomainDestroy, (nvtx_fn)domain_destroy);
    }
    return 1;
}
