// SPDX-License-Identifier: MIT
/* sym_unit.c - module lookup, cache and fallbacks of vt_sym, with modules that have no
 * file to read (vdso, anonymous, missing, not ELF): no program to run, no debug info. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vt_sym.h"

static int failures;

#define CHECK(cond, ...)                                                        \
    do {                                                                        \
        if (!(cond)) {                                                          \
            failures++;                                                         \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);     \
            fprintf(stderr, __VA_ARGS__);                                       \
            fputc('\n', stderr);                                                \
        }                                                                       \
    } while (0)

static const char *str(const char *p) { return p ? p : "(null)"; }

static int same(const char *a, const char *b) { return a && b && strcmp(a, b) == 0; }

/* Which recorded module should cover ip: the latest added among those that cover it. */
typedef struct { uint64_t bias, size; char path[32]; } ref_mod;

static const ref_mod *ref_find(const ref_mod *m, int n, uint64_t ip)
{
    const ref_mod *best = NULL;
    for (int i = 0; i < n; i++)
        if (ip - m[i].bias < m[i].size) best = &m[i];
    return best;
}

int main(int argc, char **argv)
{
    vt_frame f;
    const char *const *w;

    /* Nothing recorded. */
    vt_sym *s = vt_sym_new();
    CHECK(vt_sym_resolve(s, 0x1234, &f) == -1 && f.module == NULL && f.function == NULL &&
          f.offset == 0x1234, "empty: %s %llx", str(f.module), (unsigned long long)f.offset);

    /* An address first seen outside every module is answered again once one covers it. */
    CHECK(vt_sym_add_module(s, "linux-vdso.so.1", 0x1000, 0x1000, NULL, 0) == 0, "add");
    CHECK(vt_sym_resolve(s, 0x1234, &f) == 0 && same(f.module, "linux-vdso.so.1") &&
          f.offset == 0x234 && f.function == NULL && f.file == NULL && f.line == 0,
          "vdso: %s+%llx", str(f.module), (unsigned long long)f.offset);
    CHECK(vt_sym_resolve(s, 0x2000, &f) == -1 && f.module == NULL && f.offset == 0x2000,
          "end is exclusive: %s", str(f.module));
    CHECK(vt_sym_resolve(s, 0xfff, &f) == -1, "below the first module");

    /* Objects without a path keep the recorded name; no warning for any of these. */
    CHECK(vt_sym_add_module(s, "", 0x3000, 0x100, NULL, 0) == 0, "add");
    CHECK(vt_sym_resolve(s, 0x3010, &f) == 0 && same(f.module, "") && f.offset == 0x10, "anonymous");
    CHECK(vt_sym_warnings(s, &w) == 0, "warnings for objects without a file");

    /* Files are opened at the first address in them: one never hit is never looked for. */
    CHECK(vt_sym_add_module(s, "/nonexistent-vt-sym/never-hit.so", 0x900000, 0x1000, NULL, 0) == 0, "add");
    CHECK(vt_sym_resolve(s, 0x8fffff, &f) == -1 && vt_sym_resolve(s, 0x901000, &f) == -1, "around");

    /* A missing file warns once however many of its addresses are resolved. */
    CHECK(vt_sym_add_module(s, "/nonexistent-vt-sym/a.so", 0x10000, 0x1000,
                            (const uint8_t *)"\x01\x02\x03\x04", 4) == 0, "add");
    for (uint64_t ip = 0x10000; ip < 0x10100; ip += 7) {
        CHECK(vt_sym_resolve(s, ip, &f) == 0 && same(f.module, "/nonexistent-vt-sym/a.so") &&
              f.offset == ip - 0x10000 && f.function == NULL, "missing: %s", str(f.module));
    }
    CHECK(vt_sym_warnings(s, &w) == 1 && same(w[0], "not found: /nonexistent-vt-sym/a.so"),
          "missing: %zu warnings", vt_sym_warnings(s, &w));

    /* A relative path (dlopen("./x.so") records one) is a file to look for, unlike the
     * vdso's bare name. */
    CHECK(vt_sym_add_module(s, "./nonexistent-vt-sym/rel.so", 0x30000, 0x1000, NULL, 0) == 0, "add");
    CHECK(vt_sym_resolve(s, 0x30010, &f) == 0 && same(f.module, "./nonexistent-vt-sym/rel.so") &&
          f.function == NULL && f.offset == 0x10, "relative: %s", str(f.module));
    CHECK(vt_sym_warnings(s, &w) == 2 && same(w[1], "not found: ./nonexistent-vt-sym/rel.so"),
          "relative: %zu warnings", vt_sym_warnings(s, &w));

    /* A file that is not ELF. */
    char tmpf[] = "/tmp/vt-sym-unit-XXXXXX";
    int fd = mkstemp(tmpf);
    CHECK(fd >= 0 && write(fd, "not an ELF file\n", 16) == 16, "tmp file");
    close(fd);
    CHECK(vt_sym_add_module(s, tmpf, 0x20000, 0x1000, NULL, 0) == 0, "add");
    CHECK(vt_sym_resolve(s, 0x20010, &f) == 0 && same(f.module, tmpf) && f.function == NULL, "not ELF");
    char want[128];
    snprintf(want, sizeof want, "not an ELF file: %s", tmpf);
    CHECK(vt_sym_warnings(s, &w) == 3 && same(w[2], want), "not ELF: %s", vt_sym_warnings(s, &w) == 3 ? w[2] : "-");
    unlink(tmpf);
    vt_sym_free(s);

    /* Replacement at the same bias, overlapping ranges (the later module wins), and a
     * thousand modules added in random order checked against a plain scan. */
    s = vt_sym_new();
    CHECK(vt_sym_add_module(s, "A", 0x100000, 0x10000, NULL, 0) == 0, "add");
    CHECK(vt_sym_resolve(s, 0x105000, &f) == 0 && same(f.module, "A"), "A: %s", str(f.module));
    CHECK(vt_sym_add_module(s, "B", 0x104000, 0x2000, NULL, 0) == 0, "add");
    CHECK(vt_sym_resolve(s, 0x105000, &f) == 0 && same(f.module, "B") && f.offset == 0x1000,
          "B over A: %s", str(f.module));
    CHECK(vt_sym_resolve(s, 0x107000, &f) == 0 && same(f.module, "A") && f.offset == 0x7000,
          "A after B: %s", str(f.module));
    CHECK(vt_sym_add_module(s, "A2", 0x100000, 0x10000, NULL, 0) == 0, "replace A");
    CHECK(vt_sym_resolve(s, 0x107000, &f) == 0 && same(f.module, "A2"), "replaced: %s", str(f.module));
    CHECK(vt_sym_resolve(s, 0x105000, &f) == 0 && same(f.module, "A2"), "replacement is newest: %s", str(f.module));
    vt_sym_free(s);

    enum { N = 1000 };
    static ref_mod ref[N];
    s = vt_sym_new();
    srand(12345);
    for (int i = 0; i < N; i++) {
        ref[i].bias = 0x7f0000000000ull + (uint64_t)(rand() % 100000) * 0x1000;
        ref[i].size = (uint64_t)(1 + rand() % 64) * 0x1000;
        snprintf(ref[i].path, sizeof ref[i].path, "mod%d", i);
        /* same bias as an earlier one: that one is replaced, so drop it from the reference */
        for (int j = 0; j < i; j++)
            if (ref[j].bias == ref[i].bias) ref[j].size = 0;
        CHECK(vt_sym_add_module(s, ref[i].path, ref[i].bias, ref[i].size, NULL, 0) == 0, "add");
    }
    int bad = 0;
    for (int k = 0; k < 200000; k++) {
        uint64_t ip = 0x7f0000000000ull + (uint64_t)rand() % (100064ull * 0x1000);
        const ref_mod *r = ref_find(ref, N, ip);
        int rc = vt_sym_resolve(s, ip, &f);
        if (r ? rc != 0 || !same(f.module, r->path) || f.offset != ip - r->bias
              : rc != -1 || f.module != NULL || f.offset != ip)
            bad++;
    }
    CHECK(bad == 0, "%d of 200000 lookups disagree with a plain scan", bad);
    vt_sym_free(s);

    (void)argc, (void)argv;
    if (failures) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    printf("all checks passed\n");
    return 0;
}
