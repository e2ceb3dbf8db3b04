/* SPDX-License-Identifier: MIT */
/* vt_fuzz.c - feeds damaged traces to every command, in process (vt_fuzz_one.c): every
 * truncation of each input, and single-byte flips at every offset (or every STEP-th).
 * The point is that nothing crashes, hangs or reads out of bounds (build with
 * sanitizers); results are not checked here, the golden tests do that.
 *
 *   vt_fuzz [--step N] TRACE...          exit 0 when every run returned 0 or 2 */
#include "vt_fuzz_one.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static unsigned char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); exit(2); }
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc((size_t)len + 1);
    if (!b || fread(b, 1, (size_t)len, f) != (size_t)len) { perror(path); exit(2); }
    fclose(f);
    *n = (size_t)len;
    return b;
}

static void put(const char *path, const unsigned char *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(b, 1, n, f) != n || fclose(f)) { perror(path); exit(2); }
}

static int run(const char *path, int *bad)
{
    int rc = vt_fuzz_trace_file(path, VT_FUZZ_READERS);
    if (rc == 1) *bad = 1;
    return rc;
}

int main(int argc, char **argv)
{
    size_t step = 1;
    int first = 1;
    if (argc > 2 && !strcmp(argv[1], "--step")) {
        step = strtoul(argv[2], NULL, 10);
        if (!step) step = 1;
        first = 3;
    }
    char tmp[] = "/tmp/vt-fuzz-XXXXXX";
    int fd = mkstemp(tmp);
    if (fd < 0) { perror("mkstemp"); return 2; }
    close(fd);
    /* The reports go nowhere; the tally goes to the real stdout. */
    int out = dup(1);
    FILE *tally = fdopen(out, "w");
    int devnull = open("/dev/null", O_WRONLY);
    dup2(devnull, 1);
    if (!getenv("VT_FUZZ_STDERR")) dup2(devnull, 2);
    int bad = 0;
    size_t runs = 0, read_ok = 0;
    for (int i = first; i < argc; i++) {
        size_t n;
        unsigned char *b = slurp(argv[i], &n);
        for (size_t cut = 0; cut <= n; cut++) {
            put(tmp, b, cut);
            if (run(tmp, &bad) == 0) read_ok++;
            runs++;
        }
        for (size_t off = 0; off < n; off += step) {
            unsigned char *c = malloc(n);
            memcpy(c, b, n);
            c[off] ^= (unsigned char)(0x01u << (off % 8));
            put(tmp, c, n);
            if (run(tmp, &bad) == 0) read_ok++;
            runs++;
            free(c);
        }
        free(b);
    }
    unlink(tmp);
    fprintf(tally, "%zu damaged traces analysed, %zu read (the rest refused with exit 2), %s\n", runs,
            read_ok, bad ? "SOME RUN FAILED" : "no failure");
    fclose(tally);
    return bad ? 1 : 0;
}
