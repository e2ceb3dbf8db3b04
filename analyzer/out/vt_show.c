// SPDX-License-Identifier: MIT
/* vt_show.c - how the commands print frames, sites, commands and dates. */
#include "vt_show.h"
#include "vt_names.h"

#include <inttypes.h>
#include <stdlib.h>
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

int vt_show_frames_parse(const char *v, vt_frames *fr)
{
    static const char *const names[] = {
#define VT_VIEW_NAME(id, name) name,
        VT_VIEW_LIST(VT_VIEW_NAME)
#undef VT_VIEW_NAME
    };
    for (unsigned i = 0; i < sizeof names / sizeof *names; i++)
        if (!strcmp(v, names[i])) {
            fr->view = (uint8_t)i;
            return 0;
        }
    char *end;
    unsigned long n = strtoul(v, &end, 10);
    if (!*v || *end || v[0] == '-' || n < 1 || n > VT_SITE_MAX_FRAMES) return -1;
    fr->lines = (uint32_t)n;
    return 0;
}

/* The names this file uses for vt_show_line(s) (vt_show.h). */
typedef vt_show_line sline;
typedef vt_show_lines slines;

static int user_frame(const vt_site_frame *f)
{
    return f->fclass == VT_FC_USER && f->kind != VT_FRAME_SCOPE;
}

/* Python frames of the program and of libraries, and scopes (NVTX ranges, layers). */
static int chain_frame(const vt_site_frame *f)
{
    if (f->kind == VT_FRAME_SCOPE) return 1;
    return f->kind == VT_FRAME_PYTHON && (f->fclass == VT_FC_USER || f->fclass == VT_FC_LIBRARY);
}

static void add(slines *o, const char *op, const vt_site_frame *fr, const char *lead, size_t max)
{
    if (o->n < max) o->l[o->n++] = (sline){ op, fr, lead };
}

/* The op, the innermost user frame, then the rest of the Python chain: frames inner of
 * the user frame first (innermost first, "via"), then outer ones ("<-"). A site with no
 * user frame shows its innermost framework and library frames. */
static void user_lines(const vt_site *s, size_t max, slines *o)
{
    int has_py = 0;
    long u = -1;
    for (uint32_t i = 0; i < s->nframes; i++) {
        has_py |= s->frames[i].kind == VT_FRAME_PYTHON;
        if (u < 0 && user_frame(&s->frames[i])) u = i;
    }
    if (s->op) add(o, s->op, NULL, NULL, max);
    if (u >= 0) {
        add(o, NULL, &s->frames[u], o->n ? "<- " : "", max);
        for (long i = 0; has_py && i < u; i++)
            if (chain_frame(&s->frames[i])) add(o, NULL, &s->frames[i], "   via ", max);
        for (uint32_t i = (uint32_t)u + 1; i < s->nframes; i++)
            if (has_py ? chain_frame(&s->frames[i]) : user_frame(&s->frames[i]))
                add(o, NULL, &s->frames[i], "<- ", max);
        return;
    }
    /* With the op known, the framework frames under it are its implementation, no answer
     * for the reader (C++ templates): say where it ran instead. With Python frames but
     * none of the user's own (a model library's layers recomputed by a checkpoint in a
     * backward, on autograd's thread), those frames, innermost first. */
    if (s->op) {
        for (uint32_t i = 0; has_py && i < s->nframes; i++)
            if (chain_frame(&s->frames[i])) add(o, NULL, &s->frames[i], "<- ", max);
        for (uint32_t i = 0; !has_py && i < s->nframes; i++)
            if (s->frames[i].function && strstr(s->frames[i].function, "torch::autograd::Engine::")) {
                add(o, "[backward, on autograd's thread: no Python frames]", NULL, "<- ", max);
                break;
            }
        return;
    }
    size_t before = o->n;
    for (uint32_t i = 0; i < s->nframes; i++) {
        const vt_site_frame *f = &s->frames[i];
        if (f->fclass == VT_FC_FRAMEWORK || f->fclass == VT_FC_LIBRARY)
            add(o, NULL, f, o->n ? "<- " : "", max);
    }
    if (o->n == before && s->nframes) add(o, NULL, &s->frames[0], o->n ? "<- " : "", max);
}

static void site_lines(const vt_site *s, const vt_frames *fv, slines *o)
{
    o->n = 0;
    o->hidden = 0;
    o->hidden_user = 0;
    size_t max = fv->lines ? fv->lines : fv->view == VT_VIEW_USER ? VT_SHOW_FRAMES : VT_SITE_MAX_FRAMES + 1;
    if (fv->view == VT_VIEW_USER) {
        user_lines(s, max, o);
    } else {
        if (fv->view == VT_VIEW_PYTHON && s->op) add(o, s->op, NULL, NULL, max);
        for (uint32_t i = 0; i < s->nframes; i++) {
            const vt_site_frame *f = &s->frames[i];
            if (fv->view == VT_VIEW_PYTHON && f->kind != VT_FRAME_PYTHON) continue;
            if (fv->view == VT_VIEW_NATIVE && f->kind != VT_FRAME_NATIVE) continue;
            add(o, NULL, f, o->n ? "<- " : "", max);
        }
    }
    uint32_t shown = 0;
    for (size_t i = 0; i < o->n; i++) shown += o->l[i].fr != NULL;
    o->hidden = s->nframes - shown;
    for (uint32_t i = 0; o->hidden && i < s->nframes; i++) {
        int seen = 0;
        for (size_t k = 0; k < o->n && !seen; k++) seen = o->l[k].fr == &s->frames[i];
        if (!seen && (user_frame(&s->frames[i]) || s->frames[i].kind == VT_FRAME_SCOPE)) o->hidden_user = 1;
    }
}

static void show_line(FILE *f, const sline *l)
{
    if (l->op) {
        if (l->lead) fputs(l->lead, f);
        fputs(l->op, f);
        return;
    }
    fputs(l->lead, f);
    vt_show_frame(f, l->fr);
}

static void show_hidden(FILE *f, const slines *o, const vt_frames *fv)
{
    if (fv->view == VT_VIEW_USER && !o->hidden_user)
        fprintf(f, "%s… %u framework frame%s", o->n ? "<- " : "", o->hidden, o->hidden == 1 ? "" : "s");
    else
        fprintf(f, "%s… %u more frame%s", o->n ? "<- " : "", o->hidden, o->hidden == 1 ? "" : "s");
}

static const vt_site *site_of(const vt_analysis *a, uint32_t site)
{
    const vt_site *s = site < a->sites.n ? &a->sites.sites[site] : NULL;
    return s && s->nframes ? s : NULL;
}

const vt_site *vt_show_site_of(const vt_analysis *a, uint32_t site)
{
    return site_of(a, site);
}

void vt_show_site_lines(const vt_site *s, const vt_frames *fv, vt_show_lines *o)
{
    site_lines(s, fv, o);
}

void vt_show_site(FILE *f, const vt_analysis *a, uint32_t site, const vt_frames *fv, int indent)
{
    const vt_site *s = site_of(a, site);
    if (!s) {
        fputs("[no stack]\n", f);
        return;
    }
    slines *o = malloc(sizeof *o);
    if (!o) return;
    site_lines(s, fv, o);
    if (!o->n) {  /* --frames python or native on a site of the other kind */
        fprintf(f, "[no %s frame] (%u other frame%s)\n", fv->view == VT_VIEW_PYTHON ? "Python" : "native",
                o->hidden, o->hidden == 1 ? "" : "s");
        free(o);
        return;
    }
    for (size_t i = 0; i < o->n; i++) {
        if (i) fprintf(f, "%*s", indent, "");
        show_line(f, &o->l[i]);
        fputc('\n', f);
    }
    /* "all", "python" and "native" say what they leave out only when a count cut them;
     * --frames 1 is one line a site */
    if (o->hidden && (fv->view == VT_VIEW_USER || fv->lines) && fv->lines != 1) {
        if (o->n) fprintf(f, "%*s", indent, "");
        show_hidden(f, o, fv);
        fputc('\n', f);
    }
    free(o);
}

void vt_show_site_inline(FILE *f, const vt_analysis *a, uint32_t site, const vt_frames *fv, int lines)
{
    const vt_site *s = site_of(a, site);
    if (!s) {
        fputs("[no stack]\n", f);
        return;
    }
    slines *o = malloc(sizeof *o);
    if (!o) return;
    vt_frames v = *fv;
    if (!v.lines || v.lines > (uint32_t)lines) v.lines = (uint32_t)lines;
    site_lines(s, &v, o);
    for (size_t i = 0; i < o->n; i++) {
        if (i) fputs(o->l[i].op || !strcmp(o->l[i].lead, "<- ") ? " <- " : " via ", f);
        if (o->l[i].op) {
            fputs(o->l[i].op, f);
            continue;
        }
        /* one line is short of room: the module only names unresolved frames */
        const vt_site_frame *fr = o->l[i].fr;
        if (fr->kind == VT_FRAME_SCOPE) fputs("[scope] ", f);
        fputs(fr->function, f);
        if (fr->file_base && fr->line) fprintf(f, " (%s:%u)", fr->file_base, fr->line);
        else if (fr->file_base) fprintf(f, " (%s)", fr->file_base);
    }
    fputc('\n', f);
    free(o);
}

void vt_show_site_text(char *buf, size_t n, const vt_analysis *a, uint32_t site, int lines)
{
    if (!n) return;
    buf[0] = 0;
    FILE *m = fmemopen(buf, n, "w");
    if (!m) return;
    vt_show_site_inline(m, a, site, &(vt_frames){ VT_VIEW_USER, 0 }, lines);
    fclose(m);
    buf[n - 1] = 0;
    size_t k = strlen(buf);
    while (k && buf[k - 1] == '\n') buf[--k] = 0;
}

void vt_show_site_json(vt_json *j, const vt_analysis *a, uint32_t site)
{
    const vt_site *s = site < a->sites.n ? &a->sites.sites[site] : NULL;
    if (s && s->op) vt_json_str(j, "op", s->op);
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
        vt_json_str(j, "class", vt_fclass_name(fr->fclass));
        vt_json_end(j);
    }
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
