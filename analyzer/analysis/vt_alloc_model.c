/* SPDX-License-Identifier: MIT */
/* vt_alloc_model.c - the allocator models' common part: names, PYTORCH_CUDA_ALLOC_CONF,
 * the caching allocator's size rounding, and dispatch to the model of each kind. */
#include "vt_alloc_model.h"
#include "vt_alloc_model_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const am_names[VT_AM_N] = { "exact", "caching", "expandable", "async" };

const char *vt_am_name(vt_am_kind k)
{
    return (unsigned)k < VT_AM_N ? am_names[k] : "?";
}

int vt_am_parse(const char *name)
{
    for (int k = 0; k < VT_AM_N; k++)
        if (!strcmp(name, am_names[k])) return k;
    return -1;
}

void vt_am_conf_init(vt_am_conf *c)
{
    memset(c, 0, sizeof *c);
    c->max_split_size = UINT64_MAX;
}

#define MIB 1048576ull

static int ilog2(uint64_t v)
{
    return v ? 63 - __builtin_clzll(v) : -1;
}

/* "[256:1,512:2,>:4]": sizes in MiB, powers of two. A key sets its own interval; the
 * intervals up to the next key keep the previous key's divisions; ">" sets all those
 * after the last key. Intervals before the first key have none. */
static int parse_rp2_list(vt_am_conf *c, const char *v, size_t n, char *err, size_t errlen)
{
    char buf[256];
    if (n < 2 || v[n - 1] != ']' || n - 2 >= sizeof buf) goto bad;
    memcpy(buf, v + 1, n - 2);
    buf[n - 2] = 0;
    size_t last = 0;
    int first = 1;
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *colon = strchr(tok, ':');
        char *end;
        if (!colon) goto bad;
        unsigned long div = strtoul(colon + 1, &end, 10);
        if (*end || end == colon + 1 || (div > 1 && (div & (div - 1)))) goto bad;
        if (tok[0] == '>') {
            for (size_t i = first ? 0 : last + 1; i < VT_AM_RP2_INTERVALS; i++) c->rp2_div[i] = (uint32_t)div;
            continue;
        }
        unsigned long mb = strtoul(tok, &end, 10);
        if (end != colon || !mb || (mb & (mb - 1))) goto bad;
        size_t ix = (size_t)ilog2(mb);
        if (ix >= VT_AM_RP2_INTERVALS) ix = VT_AM_RP2_INTERVALS - 1;
        if (!first)
            for (size_t i = last; i < ix; i++) c->rp2_div[i] = c->rp2_div[last];
        c->rp2_div[ix] = (uint32_t)div;
        last = ix;
        first = 0;
    }
    return 0;
bad:
    snprintf(err, errlen, "bad roundup_power2_divisions list '%.*s' (want [MB:DIV,...,>:DIV], powers of 2)", (int)n, v);
    return -1;
}

int vt_am_conf_parse(vt_am_conf *c, const char *s, char *err, size_t errlen)
{
    const char *p = s;
    while (*p) {
        while (*p == ',' || isspace((unsigned char)*p)) p++;
        if (!*p) break;
        const char *k = p;
        const char *colon = strchr(p, ':');
        if (!colon) {
            snprintf(err, errlen, "bad --alloc-conf entry '%s' (want KEY:VALUE)", k);
            return -1;
        }
        const char *v = colon + 1;
        const char *e = v;
        if (*v == '[') {
            e = strchr(v, ']');
            if (!e) { snprintf(err, errlen, "unclosed '[' in --alloc-conf"); return -1; }
            e++;
        } else {
            while (*e && *e != ',') e++;
        }
        size_t kn = (size_t)(colon - k), vn = (size_t)(e - v);
        char vb[64];
        snprintf(vb, sizeof vb, "%.*s", (int)(vn < sizeof vb ? vn : sizeof vb - 1), v);
        char *end;
#define KEY(name) (kn == sizeof name - 1 && !strncmp(k, name, kn))
        if (KEY("max_split_size_mb")) {
            double mb = strtod(vb, &end);
            if (*end || end == vb || mb <= 20) {
                snprintf(err, errlen, "bad max_split_size_mb '%s' (PyTorch wants more than 20)", vb);
                return -1;
            }
            c->max_split_size = (uint64_t)(mb * MIB);
        } else if (KEY("roundup_power2_divisions")) {
            if (*v == '[') {
                if (parse_rp2_list(c, v, vn, err, errlen)) return -1;
            } else {
                unsigned long d = strtoul(vb, &end, 10);
                if (*end || end == vb || (d > 1 && (d & (d - 1)))) {
                    snprintf(err, errlen, "bad roundup_power2_divisions '%s' (a power of 2)", vb);
                    return -1;
                }
                for (int i = 0; i < VT_AM_RP2_INTERVALS; i++) c->rp2_div[i] = (uint32_t)d;
            }
        } else if (KEY("garbage_collection_threshold")) {
            double t = strtod(vb, &end);
            if (*end || end == vb || t <= 0 || t >= 1) {
                snprintf(err, errlen, "bad garbage_collection_threshold '%s' (between 0 and 1)", vb);
                return -1;
            }
            c->gc_threshold = t;
        } else if (KEY("expandable_segments")) {
            if (!strcmp(vb, "True") || !strcmp(vb, "true") || !strcmp(vb, "1")) c->expandable = 1;
            else if (!strcmp(vb, "False") || !strcmp(vb, "false") || !strcmp(vb, "0")) c->expandable = 0;
            else { snprintf(err, errlen, "bad expandable_segments '%s' (True or False)", vb); return -1; }
        } else if (KEY("backend")) {
            if (!strcmp(vb, "cudaMallocAsync")) c->backend_async = 1;
            else if (!strcmp(vb, "native")) c->backend_async = 0;
            else { snprintf(err, errlen, "bad backend '%s' (native or cudaMallocAsync)", vb); return -1; }
        } else if (!(KEY("pinned_use_cuda_host_register") || KEY("pinned_num_register_threads") ||
                     KEY("release_lock_on_cudamalloc") || KEY("pinned_use_background_threads") ||
                     KEY("per_process_memory_fraction") || KEY("graph_capture_record_stream_reuse"))) {
            snprintf(err, errlen, "unknown --alloc-conf key '%.*s'", (int)kn, k);
            return -1;
        }
#undef KEY
        p = e;
    }
    return 0;
}

/* The power-of-two division at or above size (PyTorch's roundup_power2_next_division). */
static uint64_t rp2_round(uint64_t size, uint64_t div)
{
    if (!(size & (size - 1))) return size;
    uint64_t floor2 = 1ull << ilog2(size);
    uint64_t step = floor2 >> ilog2(div);
    if (!step) return floor2 << 1;
    uint64_t down = size & ~(step - 1);
    return down == size ? size : down + step;
}

uint64_t vt_am_round_size(const vt_am_conf *c, uint64_t size)
{
    if (size < 512) return 512;
    uint32_t div = 0;
    if (c) {
        int ix = ilog2(size) - 20;    /* intervals start at 1 MiB: smaller sizes use the first */
        if (ix < 0) ix = 0;
        if (ix >= VT_AM_RP2_INTERVALS) ix = VT_AM_RP2_INTERVALS - 1;
        div = c->rp2_div[ix];
    }
    if (div > 1 && size > 512ull * div) return rp2_round(size, div);
    return (size + 511) / 512 * 512;
}

uint64_t vt_am_segment_size(uint64_t rounded)
{
    if (rounded <= MIB) return 2 * MIB;
    if (rounded < 10 * MIB) return 20 * MIB;
    return (rounded + 2 * MIB - 1) / (2 * MIB) * (2 * MIB);
}

vt_am *vt_am_new(vt_am_kind k, const vt_am_conf *conf, uint64_t limit)
{
    vt_am_conf def;
    if (!conf) {
        vt_am_conf_init(&def);
        conf = &def;
    }
    switch (k) {
    case VT_AM_EXACT: return vt_am_exact_new(conf, limit);
    case VT_AM_CACHING: {
        vt_am_heap_opts o = { 0 };
        return vt_am_heap_new(k, &o, conf, limit);
    }
    case VT_AM_EXPANDABLE: {
        vt_am_heap_opts o = { .expandable = 1, .small_page = 2 * MIB, .large_page = 20 * MIB };
        return vt_am_heap_new(k, &o, conf, limit);
    }
    case VT_AM_ASYNC: return vt_am_async_new(conf, limit);
    default: return NULL;
    }
}

void vt_am_free(vt_am *m)
{
    if (m) m->ops->destroy(m);
}

void vt_am_set_limit(vt_am *m, uint64_t limit)
{
    m->limit = limit;
}

int vt_am_alloc(vt_am *m, uint64_t size, uint32_t stream, uint32_t *handle)
{
    m->st.requests++;
    return m->ops->alloc(m, size, stream, handle);
}

void vt_am_release(vt_am *m, uint32_t handle)
{
    m->ops->release(m, handle);
}

const vt_am_stats *vt_am_stats_of(const vt_am *m)
{
    return &m->st;
}
