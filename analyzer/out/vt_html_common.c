// SPDX-License-Identifier: MIT
/* vt_html_common.c - escaped text and subtitles of the pictures (vt_html_common.h). */
#include "vt_html_common.h"
#include "vt_show.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ *
 *  Text
 * ------------------------------------------------------------------------ */
static size_t utf8_seq(const unsigned char *s)
{
    unsigned c = s[0];
    size_t n;
    if (c >= 0xc2 && c <= 0xdf) n = 2;
    else if (c >= 0xe0 && c <= 0xef) n = 3;
    else if (c >= 0xf0 && c <= 0xf4) n = 4;
    else return 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80) return 0;
    if (c == 0xe0 && s[1] < 0xa0) return 0;               /* overlong */
    if (c == 0xed && s[1] >= 0xa0) return 0;              /* surrogates */
    if (c == 0xf0 && s[1] < 0x90) return 0;
    if (c == 0xf4 && s[1] >= 0x90) return 0;
    return n;
}

void vt_html_esc(FILE *f, const char *s)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    while (*p) {
        unsigned c = *p;
        switch (c) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        case '\n': case '\t': fputc((int)c, f); break;
        default:
            if (c < 0x20 || c == 0x7f) break; /* XML 1.0 has no place for them */
            if (c >= 0x80) {
                size_t n = utf8_seq(p);
                if (!n) {
                    fputs("\xef\xbf\xbd", f);
                    p++;
                    continue;
                }
                fwrite(p, 1, n, f);
                p += n;
                continue;
            }
            fputc((int)c, f);
        }
        p++;
    }
}

/* ------------------------------------------------------------------------ *
 *  Subtitle
 * ------------------------------------------------------------------------ */
void vt_html_subtitle(char *buf, size_t n, const vt_analysis *a, const char *memory)
{
    const vt_trace *t = &a->t[0];
    char *cmd = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&cmd, &len);
    if (m) {
        vt_show_command(m, &t->rd);
        fclose(m);
    }
    char date[40];
    const char *base = strrchr(t->path, '/');
    snprintf(buf, n, "%s%s%s on %s, %s; pid %u; trace %s", memory ? memory : "", memory ? "; " : "",
             cmd && *cmd ? cmd : "?", t->rd.host ? t->rd.host : "?",
             vt_show_date(date, t->rd.hdr.start_realtime_ns), t->rd.hdr.pid, base ? base + 1 : t->path);
    free(cmd);
}
