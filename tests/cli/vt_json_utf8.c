// SPDX-License-Identifier: MIT
/* vt_json_utf8.c - the JSON writer keeps well-formed UTF-8 (non-ASCII Python paths, NVTX
 * names) and replaces every other non-ASCII byte with U+FFFD, so output stays valid. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>

#include "vt_json.h"

static int check(const char *in, size_t n, const char *want)
{
    char buf[256];
    FILE *f = fmemopen(buf, sizeof buf, "w");
    if (!f) return 1;
    vt_json j;
    vt_json_init(&j, f);
    vt_json_strn(&j, NULL, in, n);
    fclose(f);
    if (strcmp(buf, want) != 0) {
        fprintf(stderr, "vt_json_utf8: got %s, want %s\n", buf, want);
        return 1;
    }
    return 0;
}

int main(void)
{
    int bad = 0;
    bad |= check("ascii", 5, "\"ascii\"");
    bad |= check("caf\xc3\xa9", 5, "\"caf\xc3\xa9\"");                 /* 2-byte sequence */
    bad |= check("\xe6\xb3\xa8\xe6\x84\x8f", 6, "\"\xe6\xb3\xa8\xe6\x84\x8f\""); /* 3-byte */
    bad |= check("\xf0\x9f\x94\xa5", 4, "\"\xf0\x9f\x94\xa5\"");        /* 4-byte */
    bad |= check("a\xff" "b", 3, "\"a\\ufffdb\"");                     /* not UTF-8 */
    bad |= check("\xc3", 1, "\"\\ufffd\"");                            /* cut sequence */
    bad |= check("\xc0\xaf", 2, "\"\\ufffd\\ufffd\"");                 /* overlong */
    bad |= check("\xed\xa0\x80", 3, "\"\\ufffd\\ufffd\\ufffd\"");      /* surrogate */
    bad |= check("q\"\\\n\x01\x7f", 6, "\"q\\\"\\\\\\n\\u0001\\u007f\"");
    return bad;
}
