// SPDX-License-Identifier: MIT
/* vt_json.c - a tiny streaming JSON writer. */
#include "vt_json.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

void vt_json_init(vt_json *j, FILE *f)
{
    memset(j, 0, sizeof *j);
    j->f = f;
}

static void indent(vt_json *j)
{
    fputc('\n', j->f);
    for (int i = 0; i < j->depth; i++) fputs("  ", j->f);
}

/* Length of the well-formed UTF-8 sequence at s (at most n bytes), 0 if it is not one.
 * Recorded strings (paths, Python names, NVTX ranges) are not trusted to be UTF-8. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t len;
    unsigned min;
    if (c >= 0xc2 && c <= 0xdf) { len = 2; min = 0x80; }
    else if (c >= 0xe0 && c <= 0xef) { len = 3; min = 0x800; }
    else if (c >= 0xf0 && c <= 0xf4) { len = 4; min = 0x10000; }
    else return 0;
    if (len > n) return 0;
    unsigned cp = c & (0x7f >> len);
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80) return 0;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
    return len;
}

static void put_escaped(FILE *f, const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    fputc('"', f);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = u[i];
        switch (c) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        default:
            if (c < 0x20 || c == 0x7f) {
                fprintf(f, "\\u%04x", c);
            } else if (c < 0x80) {
                fputc(c, f);
            } else {
                /* Well-formed UTF-8 passes through; any other byte becomes U+FFFD so
                 * the output stays valid JSON. */
                size_t len = utf8_len(u + i, n - i);
                if (len) { fwrite(u + i, 1, len, f); i += len - 1; }
                else fputs("\\ufffd", f);
            }
        }
    }
    fputc('"', f);
}

/* Writes the separator, indentation and key before a member. */
static void member(vt_json *j, const char *key)
{
    if (j->depth > 0) {
        if (j->count[j->depth]++) fputc(',', j->f);
        indent(j);
    }
    if (key) {
        put_escaped(j->f, key, strlen(key));
        fputs(": ", j->f);
    }
}

static void open(vt_json *j, const char *key, char c)
{
    member(j, key);
    fputc(c, j->f);
    if (j->depth + 1 < VT_JSON_MAX_DEPTH) j->depth++;
    j->count[j->depth] = 0;
    j->close[j->depth] = c == '{' ? '}' : ']';
}

void vt_json_obj(vt_json *j, const char *key) { open(j, key, '{'); }
void vt_json_arr(vt_json *j, const char *key) { open(j, key, '['); }

void vt_json_end(vt_json *j)
{
    if (j->depth == 0) return;
    int had = j->count[j->depth];
    char c = j->close[j->depth];
    j->depth--;
    if (had) indent(j);
    fputc(c, j->f);
}

void vt_json_str(vt_json *j, const char *key, const char *v)
{
    if (!v) { vt_json_null(j, key); return; }
    vt_json_strn(j, key, v, strlen(v));
}

void vt_json_strn(vt_json *j, const char *key, const char *v, size_t n)
{
    member(j, key);
    put_escaped(j->f, v, n);
}

void vt_json_u64(vt_json *j, const char *key, uint64_t v)
{
    member(j, key);
    fprintf(j->f, "%" PRIu64, v);
}

void vt_json_i64(vt_json *j, const char *key, int64_t v)
{
    member(j, key);
    fprintf(j->f, "%" PRId64, v);
}

void vt_json_f64(vt_json *j, const char *key, double v)
{
    member(j, key);
    if (!isfinite(v)) fputs("null", j->f);
    else fprintf(j->f, "%.6g", v);
}

void vt_json_bool(vt_json *j, const char *key, int v)
{
    member(j, key);
    fputs(v ? "true" : "false", j->f);
}

void vt_json_null(vt_json *j, const char *key)
{
    member(j, key);
    fputs("null", j->f);
}

void vt_json_finish(vt_json *j)
{
    fputc('\n', j->f);
}
