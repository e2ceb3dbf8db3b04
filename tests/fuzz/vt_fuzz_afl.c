/* SPDX-License-Identifier: MIT */
/* vt_fuzz_afl.c - the fuzz target without libFuzzer: AFL-style (afl-fuzz runs
 * `vt_fuzz_afl @@`, or feeds stdin when no file is named) and the replay of a corpus:
 * each FILE argument is one input, each folder's files are inputs too.
 *
 *   vt_fuzz_afl [FILE|DIR]...      exit 0 when no input made a command misbehave */
#include "vt_fuzz_one.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int vt_fm_stdin(void)
{
    size_t cap = 1 << 16, n = 0;
    uint8_t *b = malloc(cap);
    if (!b) return 1;
    size_t r;
    while ((r = fread(b + n, 1, cap - n, stdin)) > 0) {
        n += r;
        if (n == cap) {
            uint8_t *nb = realloc(b, cap *= 2);
            if (!nb) { free(b); return 1; }
            b = nb;
        }
    }
    int rc = vt_fuzz_trace_mem(b, n);
    free(b);
    return rc == 1;
}

static int vt_fm_path(const char *path, size_t *count)
{
    struct stat st;
    if (stat(path, &st)) { perror(path); return 1; }
    if (!S_ISDIR(st.st_mode)) {
        (*count)++;
        if (vt_fuzz_trace_file(path, VT_FUZZ_EVERY) != 1) return 0;
        fprintf(stderr, "vt_fuzz_afl: %s: a command misbehaved\n", path);
        return 1;
    }
    struct dirent **list;
    int n = scandir(path, &list, NULL, alphasort);
    if (n < 0) { perror(path); return 1; }
    int bad = 0;
    for (int i = 0; i < n; i++) {
        if (list[i]->d_name[0] != '.') {
            char sub[4096];
            snprintf(sub, sizeof sub, "%s/%s", path, list[i]->d_name);
            bad |= vt_fm_path(sub, count);
        }
        free(list[i]);
    }
    free(list);
    return bad;
}

int main(int argc, char **argv)
{
    if (argc < 2) return vt_fm_stdin();
    size_t count = 0;
    int bad = 0;
    for (int i = 1; i < argc; i++) bad |= vt_fm_path(argv[i], &count);
    fprintf(stderr, "vt_fuzz_afl: %zu inputs, %s\n", count, bad ? "SOME FAILED" : "no failure");
    return bad;
}
