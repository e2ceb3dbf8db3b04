/* vt_show.c - how the commands print frames, sites, commands and dates. */
#include "vt_show.h"
#include "vt_names.h"

#include <inttypes.h>
#include <string.h>
#include <time.h>

void vt_show_frame(FILE *f, const vt_site_frame *fr)
{
    if (fr->kind == VT_FRAME_SCOPE) fputs("[scope] ", f);
    fputs(fr->function, f);
    if (fr->file_base) {
        if (fr->line) fprintf(f, " (%s:%u)", fr->file_base, fr->line);
        else fprintf(f, " (%s)", fr->file_base);
    }
    if (fr->module && fr->resolved && fr->kind == VT_FRAME_NATIVE) fprintf(f, " [%s]", fr->module);
}

void vt_show_site(FILE *f, const vt_analysis *a, uint32_t site, int nframes, int indent)
{
    const vt_site *s = site < a->sites.n ? &a->sites.sites[site] : NULL;
    if (!s || !s->nframes) {
        fputs(site == VT_ROW_IDLE ? VT_ROW_IDLE_NAME " in PyTorch's segments, no tensor\n" : "[no stack]\n", f);
        return;
    }
    if (nframes < 1) nframes = 1;
    for (uint32_t i = 0; i < s->nframes && i < (uint32_t)nframes; i++) {
        if (i) fprintf(f, "%*s<- ", indent, "");
        vt_show_frame(f, &s->frames[i]);
        fputc('\n', f);
    }
    if (nframes > 1 && s->nframes > (uint32_t)nframes)
        fprintf(f, "%*s<- ... %u more\n", indent, "", s->nframes - (uint32_t)nframes);
}

void vt_show_site_inline(FILE *f, const vt_analysis *a, uint32_t site, int nframes)
{
    const vt_site *s = site < a->sites.n ? &a->sites.sites[site] : NULL;
    if (!s || !s->nframes) {
        fputs("[no stack]\n", f);
        return;
    }
    for (uint32_t i = 0; i < s->nframes && i < (uint32_t)nframes; i++) {
        if (i) fputs(" <- ", f);
        vt_show_frame(f, &s->frames[i]);
    }
    fputc('\n', f);
}

void vt_show_site_json(vt_json *j, const vt_analysis *a, uint32_t site)
{
    const vt_site *s = site < a->sites.n ? &a->sites.sites[site] : NULL;
    vt_json_arr(j, "frames");
    for (uint32_t i = 0; s && i < s->nframes; i++) {
        const vt_site_frame *fr = &s->frames[i];
        vt_json_obj(j, NULL);
        vt_json_str(j, "function", fr->function);
        vt_json_str(j, "file", fr->file);
        vt_json_u64(j, "line", fr->line);
        vt_json_str(j, "module", fr->module);
        if (fr->kind == VT_FRAME_NATIVE) {
            char off[24];
            snprintf(off, sizeof off, "0x%" PRIx64, fr->offset);
            vt_json_str(j, "offset", off);
        }
        vt_json_str(j, "kind", fr->kind == VT_FRAME_PYTHON ? "python"
                               : fr->kind == VT_FRAME_SCOPE ? "scope" : "native");
        vt_json_end(j);
    }
    vt_json_end(j);
}

void vt_show_row_json(vt_json *j, const vt_analysis *a, vt_by by, const vt_row *r)
{
    vt_json_obj(j, NULL);
    if (by == VT_BY_KIND) vt_json_str(j, "kind", vt_kind_name(r->key));
    else if (by == VT_BY_LAYER) vt_json_str(j, "layer", r->key == UINT32_MAX ? NULL : vt_row_name(a, by, r->key));
    else if (by != VT_BY_SITE) vt_json_str(j, by == VT_BY_FUNCTION ? "function" : "module",
                                           vt_row_name(a, by, r->key));
    if (by == VT_BY_LAYER) {
        vt_json_u64(j, "max_bytes", r->max_bytes);
        vt_json_u64(j, "max_time_ns", r->max_time);
    }
    vt_json_u64(j, "bytes", r->bytes);
    vt_json_u64(j, "live_count", r->count);
    vt_json_u64(j, "count", r->nallocs);
    vt_json_u64(j, "total_bytes", r->total_bytes);
    if (by == VT_BY_SITE) vt_show_site_json(j, a, r->key);
    vt_json_end(j);
}

static int needs_quotes(const char *s, size_t n)
{
    if (!n) return 1;
    for (size_t i = 0; i < n; i++)
        if (strchr(" \t\n'\"\\$`*?;&|<>()", s[i])) return 1;
    return 0;
}

void vt_show_command(FILE *f, const vt_reader *rd)
{
    const char *p = rd->cmdline, *end = rd->cmdline + rd->cmdline_len;
    int first = 1;
    while (p && p < end) {
        size_t n = strnlen(p, (size_t)(end - p));
        if (!first) fputc(' ', f);
        first = 0;
        if (needs_quotes(p, n)) {
            fputc('\'', f);
            for (size_t i = 0; i < n; i++) {
                if (p[i] == '\'') fputs("'\\''", f);
                else if ((unsigned char)p[i] < 0x20) fputc('?', f);
                else fputc(p[i], f);
            }
            fputc('\'', f);
        } else {
            vt_show_escaped(f, p, n);
        }
        p += n + 1;
    }
}

void vt_show_command_json(vt_json *j, const char *key, const vt_reader *rd)
{
    vt_json_arr(j, key);
    const char *p = rd->cmdline, *end = rd->cmdline + rd->cmdline_len;
    while (p && p < end) {
        size_t n = strnlen(p, (size_t)(end - p));
        vt_json_strn(j, NULL, p, n);
        p += n + 1;
    }
    vt_json_end(j);
}

const char *vt_show_date(char buf[40], uint64_t realtime_ns)
{
    time_t t = (time_t)(realtime_ns / 1000000000u);
    struct tm tm;
    if (!gmtime_r(&t, &tm) || !strftime(buf, 40, "%Y-%m-%d %H:%M:%S UTC", &tm))
        snprintf(buf, 40, "?");
    return buf;
}

void vt_show_uuid(char buf[48], const uint8_t u[16])
{
    snprintf(buf, 48, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
             u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12],
             u[13], u[14], u[15]);
}

void vt_show_escaped(FILE *f, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\\') fputs("\\\\", f);
        else if (c == '"') fputs("\\\"", f);
        else if (c < 0x20 || c == 0x7f) fprintf(f, "\\x%02x", c);
        else fputc(c, f);
    }
}
