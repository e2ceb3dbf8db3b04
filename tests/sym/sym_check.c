// SPDX-License-Identifier: MIT
/* sym_check.c - resolves what sym_prog recorded and checks every answer against the
 * source: function names, file:line, inline callers, module paths and offsets, and the
 * fallbacks (build-id mismatch, missing file, search dirs, build-id tree, vdso).
 *
 * Usage: sym_check PROG PIE HAVE_CXX LIB STRIPLIB MINILIB OTHERLIB DEBUGROOT WORKDIR
 *   PROG      sym_prog_pie or sym_prog_nopie; PIE 1 when its bias must be non-zero
 *   LIB       plain build of symlib.c; OTHERLIB: same file name, other build-id
 *   STRIPLIB  stripped build whose debug info lies in DEBUGROOT/.build-id
 *   MINILIB   stripped build with .gnu_debugdata
 *   WORKDIR   scratch space (a build-id tree is made and removed there) */
#define _GNU_SOURCE
#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "vt_sym.h"

static int failures;
static int show; /* print resolved frames (scenario 1), for the log */

#define CHECK(cond, ...)                                                        \
    do {                                                                        \
        if (!(cond)) {                                                          \
            failures++;                                                         \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);     \
            fprintf(stderr, __VA_ARGS__);                                       \
            fputc('\n', stderr);                                                \
        }                                                                       \
    } while (0)

typedef struct {
    uint64_t bias, size;
    uint8_t id[64];
    size_t idlen;
    char *path;
} mod_t;

typedef struct {
    char *tag, *func, *file, *caller;
    int line, caller_line;
    uint64_t ip;
} site_t;

static mod_t mods[512];
static int nmods;
static site_t sites[64];
static int nsites;

static const char *base(const char *p)
{
    const char *s = p ? strrchr(p, '/') : NULL;
    return s ? s + 1 : p;
}

static int streq(const char *a, const char *b)
{
    return a != NULL && b != NULL && strcmp(a, b) == 0;
}

static const char *str(const char *p) { return p ? p : "(null)"; }

static void hex(char *out, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) sprintf(out + 2 * i, "%02x", p[i]);
    out[2 * n] = '\0';
}

static size_t unhex(uint8_t *out, const char *s)
{
    size_t n = 0;
    while (s[0] && s[1] && n < 64) {
        unsigned v;
        if (sscanf(s, "%2x", &v) != 1) break;
        out[n++] = (uint8_t)v;
        s += 2;
    }
    return n;
}

/* ------------------------------------------------------------------------ *
 *  Running the program
 * ------------------------------------------------------------------------ */
static void run_prog(const char *prog, const char *lib, const char *strip, const char *mini)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "'%s' '%s' '%s' '%s'", prog, lib, strip, mini);
    FILE *f = popen(cmd, "r");
    if (f == NULL) { perror("popen"); exit(2); }
    char line[8192];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *fld[9];
        int n = 0;
        for (char *p = strtok(line, "\t"); p && n < 9; p = strtok(NULL, "\t")) fld[n++] = p;
        if (n == 5 && strcmp(fld[0], "MOD") == 0 && nmods < 512) {
            mod_t *m = &mods[nmods++];
            m->bias = strtoull(fld[1], NULL, 16);
            m->size = strtoull(fld[2], NULL, 16);
            m->idlen = strcmp(fld[3], "-") ? unhex(m->id, fld[3]) : 0;
            m->path = strdup(fld[4]);
        } else if (n == 8 && strcmp(fld[0], "SITE") == 0 && nsites < 64) {
            site_t *s = &sites[nsites++];
            s->tag = strdup(fld[1]);
            s->ip = strtoull(fld[2], NULL, 16);
            s->func = strdup(fld[3]);
            s->file = strdup(fld[4]);
            s->line = atoi(fld[5]);
            s->caller = strcmp(fld[6], "-") ? strdup(fld[6]) : NULL;
            s->caller_line = atoi(fld[7]);
        } else {
            fprintf(stderr, "sym_check: bad line from %s: %s\n", prog, line);
            exit(2);
        }
    }
    if (pclose(f) != 0) { fprintf(stderr, "sym_check: %s failed\n", prog); exit(2); }
}

static const mod_t *mod_of(uint64_t ip)
{
    const mod_t *best = NULL;
    for (int i = 0; i < nmods; i++)
        if (ip - mods[i].bias < mods[i].size && (!best || mods[i].bias > best->bias)) best = &mods[i];
    return best;
}

static const mod_t *mod_named(const char *path)
{
    for (int i = 0; i < nmods; i++)
        if (strcmp(mods[i].path, path) == 0) return &mods[i];
    return NULL;
}

static const site_t *site_named(const char *tag)
{
    for (int i = 0; i < nsites; i++)
        if (strcmp(sites[i].tag, tag) == 0) return &sites[i];
    return NULL;
}

/* Adds every recorded module; the one recorded as `swap` gets path/id replaced. */
static void add_all(vt_sym *s, const char *swap, const char *path, const uint8_t *id, size_t idlen)
{
    for (int i = 0; i < nmods; i++) {
        const mod_t *m = &mods[i];
        int sw = swap && strcmp(m->path, swap) == 0;
        int rc = vt_sym_add_module(s, sw && path ? path : m->path, m->bias, m->size,
                                   sw && id ? id : m->id, sw && id ? idlen : m->idlen);
        CHECK(rc == 0, "add %s", m->path);
    }
}

/* ------------------------------------------------------------------------ *
 *  Expectations
 * ------------------------------------------------------------------------ */
enum { LINES = 1, NAMES = 2 };

/* A site resolved with symbols: NAMES checks function names, LINES file:line too. */
static void expect_site(vt_sym *s, const site_t *st, const char *modpath, int what)
{
    const mod_t *m = mod_of(st->ip);
    vt_frame fr[8], one;
    memset(fr, 0, sizeof fr);
    int n = vt_sym_resolve_inline(s, st->ip, fr, 8);
    int want = st->caller ? 2 : 1;
    CHECK(m != NULL, "site %s in no recorded module", st->tag);
    if (m == NULL) return;
    if (!(what & LINES)) want = 1; /* no DWARF: no inline information either */
    CHECK(n == want, "%s: %d frames, want %d", st->tag, n, want);
    CHECK(streq(fr[0].module, modpath), "%s: module %s, want %s", st->tag, str(fr[0].module), modpath);
    CHECK(fr[0].offset == st->ip - m->bias, "%s: offset %llx", st->tag, (unsigned long long)fr[0].offset);
    CHECK(streq(fr[0].function, st->func), "%s: function %s, want %s", st->tag, str(fr[0].function), st->func);
    if (what & LINES) {
        CHECK(streq(base(fr[0].file), base(st->file)) && fr[0].line == (unsigned)st->line,
              "%s: at %s:%u, want %s:%d", st->tag, str(fr[0].file), fr[0].line, base(st->file), st->line);
    } else {
        CHECK(fr[0].file == NULL && fr[0].line == 0, "%s: at %s:%u, want no line", st->tag,
              str(fr[0].file), fr[0].line);
    }
    if (want == 2 && n >= 2) {
        CHECK(streq(fr[1].function, st->caller), "%s: caller %s, want %s", st->tag, str(fr[1].function), st->caller);
        CHECK(streq(base(fr[1].file), base(st->file)) && fr[1].line == (unsigned)st->caller_line,
              "%s: caller at %s:%u, want %s:%d", st->tag, str(fr[1].file), fr[1].line, base(st->file), st->caller_line);
        CHECK(streq(fr[1].module, modpath), "%s: caller module %s", st->tag, str(fr[1].module));
    }
    for (int i = 0; show && i < n && i < 8; i++)
        printf("  %-13s %s%s (%s:%u) [%s+0x%llx]\n", i ? "" : st->tag, i ? "inlined into " : "",
               str(fr[i].function), str(base(fr[i].file)), fr[i].line, base(fr[i].module),
               (unsigned long long)fr[i].offset);
    /* vt_sym_resolve gives the innermost frame, from the cache: the same strings. */
    CHECK(vt_sym_resolve(s, st->ip, &one) == 0, "%s: resolve", st->tag);
    CHECK(one.function == fr[0].function && one.file == fr[0].file && one.line == fr[0].line &&
          one.module == fr[0].module && one.offset == fr[0].offset, "%s: resolve differs from resolve_inline", st->tag);
}

/* A site in a module whose symbols must not be used: module + offset only. */
static void expect_bare(vt_sym *s, const site_t *st, const char *modpath)
{
    const mod_t *m = mod_of(st->ip);
    vt_frame f;
    int rc = vt_sym_resolve(s, st->ip, &f);
    CHECK(rc == 0, "%s: rc %d", st->tag, rc);
    CHECK(streq(f.module, modpath), "%s: module %s, want %s", st->tag, str(f.module), modpath);
    CHECK(m && f.offset == st->ip - m->bias, "%s: offset %llx", st->tag, (unsigned long long)f.offset);
    CHECK(f.function == NULL && f.file == NULL && f.line == 0, "%s: got %s at %s:%u, want bare",
          st->tag, str(f.function), str(f.file), f.line);
}

static void expect_warnings(vt_sym *s, const char *what, int n, ...)
{
    const char *const *w;
    size_t got = vt_sym_warnings(s, &w);
    CHECK(got == (size_t)n, "%s: %zu warnings, want %d", what, got, n);
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n && (size_t)i < got; i++) {
        const char *want = va_arg(ap, const char *);
        CHECK(strcmp(w[i], want) == 0, "%s: warning '%s', want '%s'", what, w[i], want);
    }
    va_end(ap);
    for (size_t i = 0; i < got; i++) printf("  [%s] warning: %s\n", what, w[i]);
}

static int file_build_id(const char *path, char *out)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) return -1;
    Elf *e = elf_begin(fd, ELF_C_READ, NULL);
    const void *id;
    ssize_t n = e ? dwelf_elf_gnu_build_id(e, &id) : -1;
    if (n > 0) hex(out, id, (size_t)n);
    if (e) elf_end(e);
    close(fd);
    return n > 0 ? 0 : -1;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static int has_prefix(const char *s, const char *p) { return strncmp(s, p, strlen(p)) == 0; }

/* ------------------------------------------------------------------------ *
 *  Scenarios
 * ------------------------------------------------------------------------ */
int main(int argc, char **argv)
{
    if (argc != 10) {
        fprintf(stderr, "usage: sym_check PROG PIE HAVE_CXX LIB STRIPLIB MINILIB OTHERLIB DEBUGROOT WORKDIR\n");
        return 2;
    }
    const char *prog = argv[1], *lib = argv[4], *strip = argv[5], *mini = argv[6];
    const char *other = argv[7], *debugroot = argv[8], *workdir = argv[9];
    int pie = atoi(argv[2]), have_cxx = atoi(argv[3]);
    elf_version(EV_CURRENT);
    run_prog(prog, lib, strip, mini);

    static const char *required[] = {"static", "global", "inline", "lib_static", "lib_global",
                                     "strip_static", "strip_global", "mini_static",
                                     "mini_global", "cxx_method", "cxx_inline"};
    for (size_t i = 0; i < sizeof required / sizeof *required; i++)
        if (have_cxx || !has_prefix(required[i], "cxx"))
            CHECK(site_named(required[i]) != NULL, "sym_prog recorded no site %s", required[i]);
    const mod_t *exe = mod_of(site_named("static")->ip);
    CHECK(exe == &mods[0], "static site is not in the main program");
    CHECK(pie ? exe->bias != 0 : exe->bias == 0, "main program bias %llx, PIE=%d",
          (unsigned long long)exe->bias, pie);
    printf("main program %s at bias %llx\n", exe->path, (unsigned long long)exe->bias);

    /* 1. Everything found: names, demangling, lines, inline callers, split debug info
     *    (DEBUGROOT/.build-id), minidebuginfo (names, no lines). */
    vt_sym *s = vt_sym_new();
    CHECK(vt_sym_add_search_dir(s, debugroot) == 0, "search dir");
    add_all(s, NULL, NULL, NULL, 0);
    show = 1;
    for (int i = 0; i < nsites; i++) {
        const site_t *st = &sites[i];
        const mod_t *m = mod_of(st->ip);
        expect_site(s, st, m ? m->path : "?", has_prefix(st->tag, "mini_") ? NAMES : NAMES | LINES);
    }
    show = 0;
    vt_frame f;
    for (int i = 0; i < nmods; i++) {
        if (strstr(mods[i].path, "vdso") == NULL) continue;
        CHECK(vt_sym_resolve(s, mods[i].bias + 1, &f) == 0 && streq(f.module, mods[i].path) &&
              f.function == NULL && f.offset == 1, "vdso: %s+%llx %s", str(f.module),
              (unsigned long long)f.offset, str(f.function));
    }
    uint64_t far = UINT64_MAX - 15;
    CHECK(vt_sym_resolve(s, far, &f) == -1 && f.module == NULL && f.function == NULL &&
          f.offset == far, "address in no module: module %s offset %llx", str(f.module),
          (unsigned long long)f.offset);
    expect_warnings(s, "all found", 0);

    /* Speed: 10000 distinct addresses around the program's code, then again (cached). */
    {
        uint64_t lo = site_named("static")->ip - 2000;
        double t0 = now();
        int named = 0;
        for (uint64_t ip = lo; ip < lo + 10000; ip++) {
            vt_sym_resolve(s, ip, &f);
            named += f.function != NULL;
        }
        double t1 = now();
        for (uint64_t ip = lo; ip < lo + 10000; ip++) vt_sym_resolve(s, ip, &f);
        double t2 = now();
        printf("10000 distinct ips: %.1f ms (%d named), again from cache: %.2f ms\n",
               (t1 - t0) * 1e3, named, (t2 - t1) * 1e3);
        CHECK(named > 1000, "only %d of 10000 addresses named", named);
        CHECK(t1 - t0 < 2.0, "10000 ips took %.3f s", t1 - t0);
    }
    vt_sym_free(s);

    /* 2. Without the debug root the stripped library has neither names of its static
     *    functions nor lines; minidebuginfo still names them. */
    s = vt_sym_new();
    add_all(s, NULL, NULL, NULL, 0);
    {
        const site_t *st = site_named("strip_static");
        vt_sym_resolve(s, st->ip, &f);
        CHECK(!streq(f.function, "lib_static") && f.line == 0 && streq(f.module, strip),
              "stripped, no debug root: %s at %s:%u in %s", str(f.function), str(f.file), f.line, str(f.module));
        expect_site(s, site_named("mini_static"), mini, NAMES);
        expect_site(s, site_named("static"), exe->path, NAMES | LINES);
    }
    vt_sym_free(s);

    const mod_t *lm = mod_named(lib);
    CHECK(lm != NULL && lm->idlen > 0, "%s not recorded with a build-id", lib);
    if (lm == NULL) return 1;
    char rec[129], oth[129], buf[1024];
    hex(rec, lm->id, lm->idlen);
    CHECK(file_build_id(other, oth) == 0 && strcmp(rec, oth) != 0, "%s has no other build-id", other);

    /* 3. A file at the recorded path with another build-id: no symbols, one warning. */
    s = vt_sym_new();
    add_all(s, lib, other, NULL, 0);
    expect_bare(s, site_named("lib_static"), other);
    expect_bare(s, site_named("lib_global"), other);
    expect_site(s, site_named("global"), exe->path, NAMES | LINES);
    snprintf(buf, sizeof buf, "build-id mismatch: %s (recorded %s, file has %s)", other, rec, oth);
    expect_warnings(s, "other build", 1, buf);
    vt_sym_free(s);

    /* 3b. The right file, but the trace recorded another id. */
    {
        uint8_t flipped[64];
        memcpy(flipped, lm->id, lm->idlen);
        flipped[0] ^= 0xff;
        char fl[129];
        hex(fl, flipped, lm->idlen);
        s = vt_sym_new();
        add_all(s, lib, NULL, flipped, lm->idlen);
        expect_bare(s, site_named("lib_global"), lib);
        snprintf(buf, sizeof buf, "build-id mismatch: %s (recorded %s, file has %s)", lib, fl, rec);
        expect_warnings(s, "recorded id differs", 1, buf);
        vt_sym_free(s);
    }

    /* 4. Missing file: module + offset, one warning, however often it is hit. */
    const char *gone = "/nonexistent-vt-sym-test/libsymlib.so";
    s = vt_sym_new();
    add_all(s, lib, gone, NULL, 0);
    expect_bare(s, site_named("lib_static"), gone);
    expect_bare(s, site_named("lib_global"), gone);
    snprintf(buf, sizeof buf, "not found: %s", gone);
    expect_warnings(s, "missing", 1, buf);
    vt_sym_free(s);

    /* 5. Missing file found by base name in a search dir; a same-named file with another
     *    id in an earlier search dir is passed over without a warning. */
    char dir[4096], odir[4096];
    snprintf(dir, sizeof dir, "%s", lib);
    *strrchr(dir, '/') = '\0';
    snprintf(odir, sizeof odir, "%s", other);
    *strrchr(odir, '/') = '\0';
    s = vt_sym_new();
    CHECK(vt_sym_add_search_dir(s, odir) == 0 && vt_sym_add_search_dir(s, dir) == 0, "dirs");
    add_all(s, lib, gone, NULL, 0);
    expect_site(s, site_named("lib_static"), gone, NAMES | LINES);
    expect_site(s, site_named("lib_global"), gone, NAMES | LINES);
    expect_warnings(s, "search dir", 0);
    vt_sym_free(s);

    /* 6. Missing file found through a build-id tree (libdwfl's lookup) in a search dir. */
    char tmpl[4096];
    snprintf(tmpl, sizeof tmpl, "%s/symtmp-XXXXXX", workdir);
    char *tmp = mkdtemp(tmpl);
    CHECK(tmp != NULL, "mkdtemp in %s", workdir);
    if (tmp != NULL) {
        char d1[4400], d2[4500], link[4700];
        snprintf(d1, sizeof d1, "%s/.build-id", tmp);
        snprintf(d2, sizeof d2, "%s/%.2s", d1, rec);
        snprintf(link, sizeof link, "%s/%s", d2, rec + 2);
        CHECK(mkdir(d1, 0755) == 0 && mkdir(d2, 0755) == 0 && symlink(lib, link) == 0, "build-id tree");
        s = vt_sym_new();
        CHECK(vt_sym_add_search_dir(s, tmp) == 0, "dir");
        add_all(s, lib, gone, NULL, 0);
        expect_site(s, site_named("lib_static"), gone, NAMES | LINES);
        expect_warnings(s, "build-id tree", 0);
        vt_sym_free(s);
        unlink(link);
        rmdir(d2);
        rmdir(d1);
        rmdir(tmp);
    }

    /* 7. Re-adding a module unchanged keeps the cache; replacing it at the same bias
     *    changes the answers at once. */
    s = vt_sym_new();
    add_all(s, NULL, NULL, NULL, 0);
    {
        const site_t *st = site_named("lib_global");
        vt_frame a, b;
        vt_sym_resolve(s, st->ip, &a);
        CHECK(vt_sym_add_module(s, lm->path, lm->bias, lm->size, lm->id, lm->idlen) == 0, "re-add");
        vt_sym_resolve(s, st->ip, &b);
        CHECK(streq(b.function, "symlib_entry") && a.function == b.function, "re-add changed %s", str(b.function));
        CHECK(vt_sym_add_module(s, gone, lm->bias, lm->size, lm->id, lm->idlen) == 0, "replace");
        expect_bare(s, st, gone);
        snprintf(buf, sizeof buf, "not found: %s", gone);
        expect_warnings(s, "replaced", 1, buf);
        CHECK(streq(a.function, "symlib_entry"), "strings live as long as the vt_sym");
    }
    vt_sym_free(s);

    if (failures) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    printf("all checks passed (%d sites, %d modules)\n", nsites, nmods);
    return 0;
}
