// SPDX-License-Identifier: MIT
/* vt_export_common.c - output: JSON strings, files, options, names. */
#include "vt_export_common.h"
#include "vt_eset.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ------------------------------------------------------------------------ *
 *  Output
 * ------------------------------------------------------------------------ */
/* Length of the valid UTF-8 sequence at s, or 0. */
static size_t utf8_len(const unsigned char *s)
{
    unsigned c = s[0];
    size_t n;
    unsigned min;
    if (c < 0x80) return 1;
    if (c >= 0xc2 && c <= 0xdf) { n = 2; min = 0x80; }
    else if (c >= 0xe0 && c <= 0xef) { n = 3; min = 0x800; }
    else if (c >= 0xf0 && c <= 0xf4) { n = 4; min = 0x10000; }
    else return 0;
    unsigned cp = c & (0x3f >> (n - 1));
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80) return 0;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
    return n;
}

void vt_export_jstr(FILE *f, const char *s)
{
    fputc('"', f);
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    while (*p) {
        unsigned c = *p;
        if (c == '"') fputs("\\\"", f);
        else if (c == '\\') fputs("\\\\", f);
        else if (c == '\n') fputs("\\n", f);
        else if (c == '\t') fputs("\\t", f);
        else if (c == '<') fputs("\\u003c", f);
        else if (c < 0x20 || c == 0x7f) fprintf(f, "\\u%04x", c);
        else if (c >= 0x80) {
            size_t n = utf8_len(p);
            if (!n) {
                fputs("\\ufffd", f);
                p++;
                continue;
            }
            fwrite(p, 1, n, f);
            p += n;
            continue;
        } else fputc((int)c, f);
        p++;
    }
    fputc('"', f);
}

FILE *vt_export_open(const char *path, int binary)
{
    (void)binary;
    if (!path || !strcmp(path, "-")) return stdout;
    FILE *f = fopen(path, "wb");
    if (!f) fprintf(stderr, "vramtrace: cannot write %s: %s\n", path, strerror(errno));
    return f;
}

int vt_export_close(FILE *f, const char *path)
{
    int bad = ferror(f);
    if (f == stdout) {
        if (fflush(f) || bad) {
            fprintf(stderr, "vramtrace: error writing the output\n");
            return 2;
        }
        return 0;
    }
    if (fclose(f) || bad) {
        fprintf(stderr, "vramtrace: error writing %s\n", path);
        return 2;
    }
    return 0;
}

int vt_export_parse_device(const char *cmd, const char *v, int *out)
{
    if (!strcmp(v, "all")) {
        *out = VT_ALL_DEVICES;
        return 0;
    }
    char *end;
    long d = strtol(v, &end, 10);
    if (!*v || *end || d < -1 || d >= VT_NDEV - 1) {
        fprintf(stderr, "vramtrace: %s: bad value '%s' for --device (a CUDA ordinal, or all) "
                "(try 'vramtrace %s --help')\n", cmd, v, cmd);
        return -1;
    }
    *out = (int)d;
    return 0;
}

int vt_export_is_svg(const char *path)
{
    size_t n = path ? strlen(path) : 0;
    return n >= 4 && !strcasecmp(path + n - 4, ".svg");
}

void vt_export_default_out(char *out, size_t n, const char *trace, const char *what, int svg)
{
    const char *base = strrchr(trace, '/');
    base = base ? base + 1 : trace;
    size_t k = strlen(base);
    if (k > 7 && !strcmp(base + k - 7, ".vtrace")) k -= 7;
    if (!k || !strcmp(trace, "-")) base = "vramtrace", k = strlen(base);
    snprintf(out, n, "%.*s.%s.%s", (int)k, base, what, svg ? "svg" : "html");
}

const char *vt_export_program(const vt_analysis *a)
{
    const char *exe = a->t[0].rd.exe;
    if (!exe || !*exe) return "?";
    const char *s = strrchr(exe, '/');
    return s ? s + 1 : exe;
}
