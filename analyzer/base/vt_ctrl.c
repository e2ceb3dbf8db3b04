/* SPDX-License-Identifier: MIT */
/* vt_ctrl.c - escaping control bytes in names from a trace (vt_ctrl.h). */
#include "vt_ctrl.h"

#include <stdint.h>
#include <stdlib.h>

/* Length of the well-formed UTF-8 sequence at s (at most n bytes) that is not a C1
 * control (U+0080..U+009F), or 0 when the bytes there must be escaped. ASCII controls
 * and DEL are 0 too. */
static size_t vt_ctrl_ok(const unsigned char *s, size_t n)
{
    if (!n) return 0;
    unsigned c = s[0];
    if (c < 0x80) return c >= 0x20 && c != 0x7f;
    size_t len;
    uint32_t cp;
    if (c >= 0xc2 && c <= 0xdf) len = 2, cp = c & 0x1f;
    else if (c >= 0xe0 && c <= 0xef) len = 3, cp = c & 0x0f;
    else if (c >= 0xf0 && c <= 0xf4) len = 4, cp = c & 0x07;
    else return 0;
    if (len > n) return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80) return 0;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    /* overlong forms, surrogates, past U+10FFFF, and the C1 controls */
    if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || (cp >= 0xd800 && cp <= 0xdfff) ||
        cp > 0x10ffff || cp < 0xa0)
        return 0;
    return len;
}

size_t vt_ctrl_ok_len(const char *s, size_t n)
{
    return vt_ctrl_ok((const unsigned char *)s, n);
}

int vt_ctrl_safe(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        if (p[i] >= 0x20 && p[i] < 0x7f) { i++; continue; } /* the common case */
        size_t k = vt_ctrl_ok(p + i, n - i);
        if (!k) return 0;
        i += k;
    }
    return 1;
}

size_t vt_ctrl_escape(char *out, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        size_t k = vt_ctrl_ok(p + i, n - i);
        if (k) {
            while (k--) out[o++] = (char)p[i++];
        } else {
            out[o++] = '\\';
            out[o++] = 'x';
            out[o++] = "0123456789abcdef"[p[i] >> 4];
            out[o++] = "0123456789abcdef"[p[i] & 15];
            i++;
        }
    }
    out[o] = 0;
    return o;
}

char *vt_ctrl_dup(const char *s, size_t n)
{
    char *e = n < SIZE_MAX / 4 ? malloc(4 * n + 1) : NULL;
    if (e) vt_ctrl_escape(e, s, n);
    return e;
}
