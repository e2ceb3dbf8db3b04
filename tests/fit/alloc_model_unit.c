/* SPDX-License-Identifier: MIT */
/* alloc_model_unit.c - the allocator models against segment layouts worked out by hand
 * from the caching allocator's rules (docs/fit.md): rounding, pools, splitting, streams,
 * the cache release and retry before an OOM, max_split_size, expandable segments, and
 * the async pool. */
#include "vt_alloc_model.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define MIB 1048576ull
static int fails;

#define EQ(a, b) do { uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b); if (a_ != b_) { \
    fprintf(stderr, "%s:%d: %s = %" PRIu64 ", want %" PRIu64 "\n", __FILE__, __LINE__, #a, a_, b_); fails++; } } while (0)

static uint32_t A(vt_am *m, uint64_t size, uint32_t stream)
{
    uint32_t h = 0;
    int rc = vt_am_alloc(m, size, stream, &h);
    if (rc != VT_AM_OK) { fprintf(stderr, "alloc of %" PRIu64 " failed (%d)\n", size, rc); fails++; }
    return h;
}

#define ST(m) vt_am_stats_of(m)

static void test_rounding(void)
{
    vt_am_conf c;
    vt_am_conf_init(&c);
    EQ(vt_am_round_size(&c, 1), 512);
    EQ(vt_am_round_size(&c, 513), 1024);
    EQ(vt_am_round_size(&c, MIB), MIB);
    EQ(vt_am_segment_size(512), 2 * MIB);
    EQ(vt_am_segment_size(MIB), 2 * MIB);
    EQ(vt_am_segment_size(MIB + 512), 20 * MIB);
    EQ(vt_am_segment_size(10 * MIB - 512), 20 * MIB);
    EQ(vt_am_segment_size(10 * MIB), 10 * MIB);
    EQ(vt_am_segment_size(10 * MIB + 512), 12 * MIB);
    char err[200];
    EQ(vt_am_conf_parse(&c, "roundup_power2_divisions:4", err, sizeof err), 0);
    EQ(vt_am_round_size(&c, 1200), 1536);              /* under 512 x 4: 512-byte steps */
    EQ(vt_am_round_size(&c, 5 * MIB + 1), 6 * MIB);    /* 4 MiB + quarters of 4 MiB */
    EQ(vt_am_round_size(&c, 4 * MIB), 4 * MIB);        /* a power of two stays */
    vt_am_conf_init(&c);
    EQ(vt_am_conf_parse(&c, "roundup_power2_divisions:[1:2,4:8,>:1]", err, sizeof err), 0);
    EQ(c.rp2_div[0], 2);   /* 1 MiB */
    EQ(c.rp2_div[1], 2);   /* 2 MiB: the previous key's */
    EQ(c.rp2_div[2], 8);   /* 4 MiB */
    EQ(c.rp2_div[3], 1);   /* past the last key: ">" */
    EQ(vt_am_conf_parse(&c, "max_split_size_mb:64,garbage_collection_threshold:0.6,expandable_segments:True",
                        err, sizeof err), 0);
    EQ(c.max_split_size, 64 * MIB);
    EQ(c.expandable, 1);
    EQ(vt_am_conf_parse(&c, "max_split_size_mb:10", err, sizeof err), -1);
    EQ(vt_am_conf_parse(&c, "colour:blue", err, sizeof err), -1);
    EQ(vt_am_conf_parse(&c, "roundup_power2_divisions:3", err, sizeof err), -1);
}

static void test_small_pool(void)
{
    vt_am *m = vt_am_new(VT_AM_CACHING, NULL, VT_AM_NO_LIMIT);
    uint32_t a = A(m, 1000, 0);               /* 1024 from a new 2 MiB segment */
    EQ(ST(m)->reserved, 2 * MIB);
    EQ(ST(m)->allocated, 1024);
    uint32_t b = A(m, 1000, 0);               /* split off the same segment */
    EQ(ST(m)->reserved, 2 * MIB);
    EQ(ST(m)->allocated, 2048);
    EQ(ST(m)->segments, 1);
    vt_am_release(m, a);
    vt_am_release(m, b);                      /* merges back into one 2 MiB block */
    uint32_t c = A(m, 2 * MIB - 4096, 0);     /* > 1 MiB: large pool, a new 20 MiB segment */
    EQ(ST(m)->reserved, 22 * MIB);
    uint32_t d = A(m, MIB, 0);                /* small pool: the whole merged 2 MiB block fits */
    EQ(ST(m)->reserved, 22 * MIB);
    uint32_t e = A(m, MIB, 0);                /* its remainder (1 MiB) */
    EQ(ST(m)->reserved, 22 * MIB);
    A(m, 512, 0);                             /* the small segment is full: another one */
    EQ(ST(m)->reserved, 24 * MIB);
    A(m, 512, 1);                             /* another stream never shares a segment */
    EQ(ST(m)->reserved, 26 * MIB);
    (void)c; (void)d; (void)e;
    vt_am_free(m);
}

static void test_large_pool(void)
{
    vt_am *m = vt_am_new(VT_AM_CACHING, NULL, VT_AM_NO_LIMIT);
    uint32_t a = A(m, 3 * MIB, 0);            /* 20 MiB segment, split: 17 MiB left */
    EQ(ST(m)->reserved, 20 * MIB);
    EQ(ST(m)->allocated, 3 * MIB);
    uint32_t b = A(m, 18 * MIB, 0);           /* 17 MiB free does not fit: an 18 MiB segment */
    EQ(ST(m)->reserved, 38 * MIB);
    uint32_t c = A(m, 16 * MIB, 0);           /* best fit: the 17 MiB block, 1 MiB left: no split */
    EQ(ST(m)->reserved, 38 * MIB);
    EQ(ST(m)->allocated, 3 * MIB + 18 * MIB + 17 * MIB);
    vt_am_release(m, b);
    uint32_t d = A(m, 12 * MIB, 0);           /* the 18 MiB block, split (6 MiB > 1 MiB left) */
    EQ(ST(m)->allocated, 3 * MIB + 12 * MIB + 17 * MIB);
    uint32_t e = A(m, 6 * MIB, 0);            /* exactly the 6 MiB remainder */
    EQ(ST(m)->reserved, 38 * MIB);
    EQ(ST(m)->peak_reserved, 38 * MIB);
    (void)a; (void)c; (void)d; (void)e;
    vt_am_free(m);
}

static void test_retry_before_oom(void)
{
    vt_am *m = vt_am_new(VT_AM_CACHING, NULL, 40 * MIB);
    uint32_t a = A(m, 20 * MIB, 0);
    vt_am_release(m, a);                      /* cached: 20 MiB reserved, none allocated */
    EQ(ST(m)->reserved, 20 * MIB);
    uint32_t b = A(m, 30 * MIB, 0);           /* 20 + 30 > 40: free the cache, retry */
    EQ(ST(m)->reserved, 30 * MIB);
    EQ(ST(m)->retries, 1);
    uint32_t h;
    EQ(vt_am_alloc(m, 12 * MIB, 0, &h), VT_AM_OOM);  /* 30 + 12 > 40, nothing to free */
    EQ(vt_am_alloc(m, 10 * MIB, 0, &h), VT_AM_OK);   /* 30 + 10 = 40 fits */
    (void)b;
    vt_am_free(m);

    /* a split segment cannot be given back */
    m = vt_am_new(VT_AM_CACHING, NULL, 30 * MIB);
    a = A(m, 3 * MIB, 0);                     /* 20 MiB segment, 17 MiB free in it */
    EQ(vt_am_alloc(m, 18 * MIB, 0, &h), VT_AM_OOM);
    EQ(ST(m)->reserved, 20 * MIB);
    (void)a;
    vt_am_free(m);
}

static void test_max_split(void)
{
    vt_am_conf c;
    char err[100];
    vt_am_conf_init(&c);
    EQ(vt_am_conf_parse(&c, "max_split_size_mb:40", err, sizeof err), 0);
    vt_am *m = vt_am_new(VT_AM_CACHING, &c, VT_AM_NO_LIMIT);
    uint32_t a = A(m, 50 * MIB, 0);
    vt_am_release(m, a);
    A(m, 30 * MIB, 0);                        /* an oversize block serves no smaller request */
    EQ(ST(m)->reserved, 80 * MIB);
    A(m, 45 * MIB, 0);                        /* within 20 MiB of its size: served, not split */
    EQ(ST(m)->reserved, 80 * MIB);
    EQ(ST(m)->allocated, 80 * MIB);
    vt_am_free(m);
    /* under a limit, oversize cached blocks are freed first, alone */
    m = vt_am_new(VT_AM_CACHING, &c, 90 * MIB);
    a = A(m, 50 * MIB, 0);
    uint32_t b = A(m, 8 * MIB, 0);            /* 20 MiB segment */
    vt_am_release(m, a);
    A(m, 30 * MIB, 0);                        /* 70 + 30 > 90: the 50 MiB block goes alone */
    EQ(ST(m)->reserved, 50 * MIB);
    EQ(ST(m)->retries, 0);
    vt_am_release(m, b);
    uint32_t d = A(m, 45 * MIB, 0);           /* 50 + 46 > 90, no oversize block: all cache */
    EQ(ST(m)->retries, 1);                    /* goes (the 20 MiB segment), and a retry */
    EQ(ST(m)->reserved, 76 * MIB);
    (void)d;
    vt_am_free(m);
}

static void test_expandable(void)
{
    vt_am *m = vt_am_new(VT_AM_EXPANDABLE, NULL, VT_AM_NO_LIMIT);
    uint32_t a = A(m, 3 * MIB, 0);            /* one 20 MiB page mapped, 17 MiB free after it */
    EQ(ST(m)->reserved, 20 * MIB);
    uint32_t b = A(m, 18 * MIB, 0);           /* grows the segment by a page: 3 + 18 in 40 */
    EQ(ST(m)->reserved, 40 * MIB);
    EQ(ST(m)->allocated, 21 * MIB);
    A(m, 1000, 0);                            /* the small pool has its own 2 MiB pages */
    EQ(ST(m)->reserved, 42 * MIB);
    vt_am_release(m, b);
    uint32_t c = A(m, 37 * MIB, 0);           /* all that is free behind a: no growth */
    EQ(ST(m)->reserved, 42 * MIB);
    vt_am_release(m, c);
    vt_am_free(m);
    (void)a;

    /* before an OOM the free pages are unmapped and the request retried */
    m = vt_am_new(VT_AM_EXPANDABLE, NULL, 40 * MIB);
    a = A(m, 3 * MIB, 0);
    b = A(m, 18 * MIB, 0);
    vt_am_release(m, b);                      /* 37 MiB free from 3 MiB; the page 20-40 whole */
    uint32_t h;
    EQ(vt_am_alloc(m, 39 * MIB, 0, &h), VT_AM_OOM);   /* would need 60 MiB mapped */
    EQ(ST(m)->reserved, 20 * MIB);                    /* the whole free page went back */
    EQ(ST(m)->retries, 1);
    EQ(vt_am_alloc(m, 30 * MIB, 0, &h), VT_AM_OK);    /* 17 free + 13 more: one page again */
    EQ(ST(m)->reserved, 40 * MIB);
    vt_am_free(m);
}

static void test_async_and_exact(void)
{
    vt_am *m = vt_am_new(VT_AM_ASYNC, NULL, VT_AM_NO_LIMIT);
    A(m, 1000, 0);                            /* one 2 MiB page, 1024 used */
    EQ(ST(m)->reserved, 2 * MIB);
    A(m, 3 * MIB, 1);                         /* any stream, one pool: 2 MiB - 1024 free + 1 page */
    EQ(ST(m)->reserved, 4 * MIB);
    EQ(ST(m)->allocated, 3 * MIB + 1024);
    vt_am_free(m);

    m = vt_am_new(VT_AM_EXACT, NULL, 100);
    uint32_t a = A(m, 60, 0), h;
    EQ(vt_am_alloc(m, 41, 0, &h), VT_AM_OOM);
    vt_am_release(m, a);
    A(m, 100, 0);
    EQ(ST(m)->peak_reserved, 100);
    EQ(ST(m)->peak_allocated, 100);
    vt_am_free(m);
}

int main(void)
{
    test_rounding();
    test_small_pool();
    test_large_pool();
    test_retry_before_oom();
    test_max_split();
    test_expandable();
    test_async_and_exact();
    if (fails) { fprintf(stderr, "%d failures\n", fails); return 1; }
    puts("alloc_model_unit: ok");
    return 0;
}
