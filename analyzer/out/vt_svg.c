// SPDX-License-Identifier: MIT
/* vt_svg.c - static SVG pictures (see vt_svg.h). */
#include "vt_svg.h"
#include "vt_html_common.h"
#include "vt_units.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ *
 *  Scales and ticks
 * ------------------------------------------------------------------------ */
static double nice_step(double range, int n)
{
    double raw = range / n, p = pow(10, floor(log10(raw))), m = raw / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 2.5 ? 2.5 : m <= 5 ? 5 : 10) * p;
}

/* Byte ticks on round steps of the largest binary unit the range spans: 20 GiB, 1 GiB,
 * 0.5 GiB, 0.25 GiB (256 MiB)... below one unit, powers of two. */
static double byte_step(double range, int n)
{
    double u = 1;
    while (range / (u * 1024) >= 1 && u < 1125899906842624.0) u *= 1024;
    double raw = range / u / n;
    double s = raw >= 1 ? nice_step(range / u, n) : pow(2, ceil(log2(raw)));
    return fmax(1, s * u);
}

/* A tick label in the unit of the step, with the decimals the step needs. */
static void fmt_tick(char *buf, size_t n, double t, double step)
{
    double u = step >= 1e9 ? 1e9 : step >= 1e6 ? 1e6 : step >= 1e3 ? 1e3 : 1;
    const char *name = u == 1e9 ? "s" : u == 1e6 ? "ms" : u == 1e3 ? "us" : "ns";
    double s = step / u;
    int d = 0;
    while (d < 9 && fabs(s * pow(10, d) - round(s * pow(10, d))) > 1e-6) d++;
    snprintf(buf, n, "%.*f %s", d, t / u, name);
}

static void text(FILE *f, double x, double y, const char *anchor, const char *style, const char *s)
{
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\"%s%s%s%s%s>", x, y, anchor ? " text-anchor=\"" : "", anchor ? anchor : "",
            anchor ? "\"" : "", style ? " " : "", style ? style : "");
    vt_html_esc(f, s);
    fputs("</text>\n", f);
}

static void svg_head(FILE *f, int w, int h, const char *title, const char *sub1, const char *sub2)
{
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" height=\"%d\" "
               "viewBox=\"0 0 %d %d\" font-family=\"Helvetica, Arial, sans-serif\" font-size=\"12\">\n<title>",
            w, h, w, h);
    vt_html_esc(f, title);
    fputs("</title>\n", f);
    fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", w, h);
    text(f, 16, 24, NULL, "font-size=\"17\" font-weight=\"bold\"", title);
    if (sub1) text(f, 16, 44, NULL, "fill=\"#333333\"", sub1);
    if (sub2) text(f, 16, 62, NULL, "fill=\"#666666\" font-size=\"11\"", sub2);
}

/* ------------------------------------------------------------------------ *
 *  Timeline
 * ------------------------------------------------------------------------ */
typedef struct {
    int valid;
    size_t b;           /* the bucket with the highest total */
    uint64_t min, max, nvml; /* nvml + 1, 0 = none */
} column;

int vt_svg_timeline(FILE *f, const vt_analysis *a, const vt_series *s, const char *title)
{
    enum { W = 1000, ML = 80, MR = 20, TOP = 80, PH = 380 };
    const int PW = W - ML - MR;
    size_t legend_rows = (s->nseries + 2) / 3 + (s->has_nvml ? 1 : 0);
    int h = TOP + PH + 40 + (int)legend_rows * 18 + 16;
    column *col = calloc((size_t)PW, sizeof *col);
    if (!col) {
        fprintf(stderr, "vramtrace: out of memory\n");
        return 2;
    }
    /* one column per pixel, as the HTML chart does at full width */
    double t0 = (double)s->t0, span = (double)(s->t1 - s->t0) + 1;
    uint64_t ymax = 1;
    for (int x = 0; x < PW; x++) {
        double ta = t0 + span * x / PW, tb = t0 + span * (x + 1) / PW;
        size_t b0 = (size_t)((ta - t0) * (double)s->nbuckets / span);
        size_t b1 = (size_t)((fmax(ta, tb - 1e-6) - t0) * (double)s->nbuckets / span);
        if (b0 >= s->nbuckets) b0 = s->nbuckets - 1;
        if (b1 >= s->nbuckets) b1 = s->nbuckets - 1;
        if (b1 < b0) b1 = b0;
        column *c = &col[x];
        c->valid = 1;
        c->b = b0;
        c->min = s->b[b0].min;
        for (size_t b = b0; b <= b1; b++) {
            if (s->b[b].max > s->b[c->b].max) c->b = b;
            if (s->b[b].min < c->min) c->min = s->b[b].min;
            if (s->b[b].nvml > c->nvml) c->nvml = s->b[b].nvml;
        }
        c->max = s->b[c->b].max;
        if (c->max > ymax) ymax = c->max;
        if (c->nvml && c->nvml - 1 > ymax) ymax = c->nvml - 1;
    }
    if (s->peak > ymax && s->peak_time >= s->t0 && s->peak_time <= s->t1) ymax = s->peak;
    double ytop = (double)ymax * 1.08;
#define YP(v) (TOP + PH - (double)(v) * PH / ytop)
#define XP(t) (ML + ((double)(t) - t0) * PW / span)

    char memory[200], sub1[400], sub2[2048], b1[VT_UNITS_BUF], b2[VT_UNITS_BUF], buf[256];
    vt_eset e;
    if (vt_eset_init(&e, a, s->device)) { free(col); return 2; }
    char dev[160];
    vt_eset_label(&e, dev, sizeof dev);
    vt_eset_free(&e);
    snprintf(memory, sizeof memory, "device memory of %s", dev);
    snprintf(sub1, sizeof sub1, "peak %s at %s; %s; by %s", vt_units_size(b1, s->peak), vt_units_time(b2, s->peak_time),
             memory, s->by == VT_SERIES_BY_SITE ? "site" : s->by == VT_SERIES_BY_KIND ? "kind" : s->by == VT_SERIES_BY_LAYER ? "layer" : "category");
    vt_html_subtitle(sub2, sizeof sub2, a, NULL);
    svg_head(f, W, h, title, sub1, sub2);

    /* grid and axes */
    fputs("<g stroke=\"#e4e4e4\" stroke-width=\"1\">\n", f);
    double ys = byte_step(ytop, 6);
    for (double v = 0; v <= ytop; v += ys)
        fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>\n", ML, YP(v), ML + PW, YP(v));
    double xs = nice_step(span, PW / 110 > 2 ? PW / 110 : 2);
    for (double t = ceil(t0 / xs) * xs; t < t0 + span; t += xs)
        fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>\n", XP(t), TOP, XP(t), TOP + PH);
    fputs("</g>\n<g fill=\"#444444\" font-size=\"11\">\n", f);
    for (double v = 0; v <= ytop; v += ys)
        text(f, ML - 6, YP(v) + 4, "end", NULL, vt_units_size(b1, (uint64_t)v));
    for (double t = ceil(t0 / xs) * xs; t < t0 + span; t += xs) {
        fmt_tick(buf, sizeof buf, t, xs);
        text(f, XP(t), TOP + PH + 16, "middle", NULL, buf);
    }
    fputs("</g>\n", f);

    /* the stacked bands: step outlines, a vertex only where a column's value changes */
    uint64_t *cum = calloc((size_t)PW, sizeof *cum);
    if (!cum) { free(col); return 2; }
    for (size_t si = 0; si < s->nseries; si++) {
        fprintf(f, "<path fill=\"%s\" d=\"", vt_html_series_color(s, si));
        double prev = -1;
        for (int x = 0; x < PW; x++) {
            double y = round(YP(cum[x] + s->at_max[col[x].b * s->nseries + si]) * 10) / 10;
            if (!x) fprintf(f, "M%d %.1f", ML, y);
            else if (y != prev) fprintf(f, "H%dV%.1f", ML + x, y);
            prev = y;
        }
        fprintf(f, "H%d", ML + PW);
        for (int x = PW - 1; x >= 0; x--) {
            double y = round(YP(cum[x]) * 10) / 10;
            if (x == PW - 1) fprintf(f, "V%.1f", y);
            else if (y != prev) fprintf(f, "H%dV%.1f", ML + x + 1, y);
            prev = y;
            cum[x] += s->at_max[col[x].b * s->nseries + si];
        }
        fprintf(f, "H%dZ\"><title>", ML);
        vt_html_esc(f, s->series[si].name);
        fprintf(f, ": %s at the peak", vt_units_size(b1, s->series[si].at_peak));
        fputs("</title></path>\n", f);
    }
    free(cum);
    /* above the lowest total of a column, memory was that high for part of it only */
    fputs("<path fill=\"#ffffff\" fill-opacity=\"0.45\" d=\"", f);
    for (int x = 0; x < PW; x++)
        if (col[x].max > col[x].min)
            fprintf(f, "M%d %.1fh1V%.1fh-1Z", ML + x, YP(col[x].max), YP(col[x].min));
    fputs("\"/>\n<path fill=\"none\" stroke=\"#000000\" stroke-opacity=\"0.55\" d=\"", f);
    double prev = -1;
    for (int x = 0; x < PW; x++) {
        double y = round(YP(col[x].max) * 10) / 10;
        if (!x) fprintf(f, "M%d %.1f", ML, y);
        else if (y != prev) fprintf(f, "H%dV%.1f", ML + x, y);
        prev = y;
    }
    fprintf(f, "H%d\"/>\n", ML + PW);
    if (s->has_nvml) {
        fputs("<path fill=\"none\" stroke=\"#111111\" stroke-width=\"1.5\" stroke-dasharray=\"5,3\" d=\"", f);
        int started = 0;
        for (int x = 0; x < PW; x++) {
            if (!col[x].nvml) continue;
            fprintf(f, "%s%.1f %.1f", started ? "L" : "M", ML + x + 0.5, YP(col[x].nvml - 1));
            started = 1;
        }
        fputs("\"><title>NVML</title></path>\n", f);
    }
    /* OOMs */
    const vt_replay *rp = a->t[0].rp;
    const vt_replay_result *res = vt_replay_result_of(rp);
    for (size_t i = 0; i < res->nooms; i++) {
        const vt_oom *o = &res->ooms[i];
        if ((s->device != VT_ALL_DEVICES && o->device != s->device) || o->time < s->t0 || o->time > s->t1) continue;
        double x = XP(o->time);
        fprintf(f, "<g><title>OOM at %s: asked %s</title>", vt_units_time(b2, o->time), vt_units_size(b1, o->size));
        fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#c80000\" stroke-opacity=\"0.6\"/>", x, TOP, x,
                TOP + PH);
        fprintf(f, "<path fill=\"#cc0000\" d=\"M%.1f %dL%.1f %dL%.1f %dZ\"/></g>\n", x - 6, TOP - 10, x + 6, TOP - 10, x, TOP);
    }
    /* the program's marks (vramtrace.mark()) */
    for (size_t i = 0; i < res->nmarks; i++) {
        const vt_mark *m = &res->marks[i];
        if (m->time < s->t0 || m->time > s->t1) continue;
        double x = XP(m->time);
        fputs("<g><title>mark ", f);
        vt_html_esc(f, m->name);
        fprintf(f, " at %s</title>", vt_units_time(b2, m->time));
        fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#283c8c\" stroke-dasharray=\"2,3\"/>\n", x, TOP,
                x, TOP + PH);
        text(f, x + 3, TOP + PH - 4, NULL, "font-size=\"11\" fill=\"#283c8c\"", m->name);
        fputs("</g>\n", f);
    }
    /* the peak */
    if (s->peak && s->peak_time >= s->t0 && s->peak_time <= s->t1) {
        double x = XP(s->peak_time), y = YP(s->peak);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#dd0000\" stroke-dasharray=\"4,3\"/>\n", x, TOP, x,
                TOP + PH);
        fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"#dd0000\"/>\n", x, y);
        snprintf(buf, sizeof buf, "peak %s at %s", vt_units_size(b1, s->peak), vt_units_time(b2, s->peak_time));
        int right = x + 8 + 7.0 * (double)strlen(buf) < ML + PW;
        text(f, right ? x + 8 : x - 8, fmax(TOP + 14, y - 6), right ? "start" : "end",
             "fill=\"#dd0000\" font-weight=\"bold\" stroke=\"#ffffff\" stroke-width=\"3\" paint-order=\"stroke\"", buf);
    }
    fprintf(f, "<rect x=\"%d.5\" y=\"%d.5\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#888888\"/>\n", ML, TOP, PW, PH);

    /* legend: three columns */
    int ly = TOP + PH + 40;
    for (size_t si = 0; si < s->nseries; si++) {
        int x = 16 + (int)(si % 3) * 330, y = ly + (int)(si / 3) * 18;
        fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\" stroke=\"#000000\" stroke-opacity=\"0.3\"/>\n", x, y - 9,
                vt_html_series_color(s, si));
        char name[80];
        snprintf(name, sizeof name, "%s", s->series[si].name);
        if (strlen(s->series[si].name) >= sizeof name - 1) memcpy(name + sizeof name - 4, "...", 4);
        snprintf(buf, sizeof buf, "%s  %s", name, vt_units_size(b1, s->series[si].at_peak));
        text(f, x + 14, y, NULL, NULL, buf);
    }
    if (s->has_nvml) {
        int y = ly + (int)((s->nseries + 2) / 3) * 18;
        fprintf(f, "<line x1=\"16\" y1=\"%d\" x2=\"32\" y2=\"%d\" stroke=\"#111111\" stroke-width=\"1.5\" stroke-dasharray=\"5,3\"/>\n",
                y - 4, y - 4);
        text(f, 36, y, NULL, NULL, s->nvml_proc ? "NVML: this process's GPU memory" : "NVML: whole device used");
    }
    fputs("</svg>\n", f);
    free(col);
#undef YP
#undef XP
    return 0;
}

/* ------------------------------------------------------------------------ *
 *  Flame graph
 * ------------------------------------------------------------------------ */
typedef struct {
    FILE *f;
    double *next;       /* per depth: where the next node starts, in bytes */
    double scale;       /* pixels per byte */
    int flame, top, rows;
    const vt_analysis *a;
} flame_ctx;

enum { FW = 1200, FROW = 17 };

static void frame_color(char *buf, size_t n, const vt_ftree *t, uint32_t node)
{
    const char *name = vt_strtab_get(&t->names, t->n[node].name);
    uint32_t h = 2166136261u;
    for (const char *p = name; *p; p++) h = (h ^ (unsigned char)*p) * 16777619u;
    double r = (double)(h >> 8) / 16777216.0;
    switch (t->n[node].kind) {
    case 255: snprintf(buf, n, "hsl(0,0%%,78%%)"); break;
    case VT_FRAME_PYTHON: snprintf(buf, n, "hsl(%.0f,60%%,%.0f%%)", 195 + 30 * r, 62 + 10 * r); break;
    case VT_FRAME_SCOPE: snprintf(buf, n, "hsl(%.0f,45%%,%.0f%%)", 265 + 25 * r, 68 + 8 * r); break;
    default: snprintf(buf, n, "hsl(%.0f,%.0f%%,%.0f%%)", 10 + 42 * r, 75 + 15 * r, 58 + 10 * r); break;
    }
}

static int flame_node(const vt_ftree *t, uint32_t node, void *ctx)
{
    flame_ctx *c = ctx;
    const vt_fnode *n = &t->n[node];
    double x0 = n->depth ? c->next[n->depth] : 0;
    c->next[n->depth] = x0 + (double)n->value;
    c->next[n->depth + 1] = x0;
    double w = (double)n->value * c->scale;
    if (w < 0.3) return 0;
    double x = 10 + x0 * c->scale;
    int y = c->flame ? c->top + (c->rows - 1 - (int)n->depth) * FROW : c->top + (int)n->depth * FROW;
    char col[64], b1[VT_UNITS_BUF];
    frame_color(col, sizeof col, t, node);
    const char *name = vt_strtab_get(&t->names, n->name);
    fputs("<g><title>", c->f);
    vt_html_esc(c->f, name);
    uint32_t d = n->name < t->detail_cap ? t->detail[n->name] : UINT32_MAX;
    const char *det = d == UINT32_MAX ? "" : vt_strtab_get(&t->details, d);
    if (det && *det) {
        fputs("\n", c->f);
        vt_html_esc(c->f, det);
    }
    double root = (double)(t->n[0].value ? t->n[0].value : 1);
    fprintf(c->f, "\n%s (%" PRIu64 " bytes, %.2f%%)</title>", vt_units_size(b1, n->value), n->value,
            100.0 * (double)n->value / root);
    fprintf(c->f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>", x, y, w > 0.5 ? w - 0.5 : w,
            FROW - 1, col);
    if (w > 30) {
        size_t max = (size_t)((w - 6) / 6.2);
        char label[1024];
        size_t len = strlen(name);
        if (len > max) {
            /* cut on a UTF-8 boundary and mark it */
            size_t k = max > 2 ? max - 2 : 0;
            while (k > 0 && ((unsigned char)name[k] & 0xc0) == 0x80) k--;
            snprintf(label, sizeof label, "%.*s..", (int)k, name);
        } else {
            snprintf(label, sizeof label, "%s", name);
        }
        fprintf(c->f, "<text x=\"%.1f\" y=\"%d\">", x + 3, y + FROW - 5);
        vt_html_esc(c->f, label);
        fputs("</text>", c->f);
    }
    fputs("</g>\n", c->f);
    return 0;
}

int vt_svg_flame(FILE *f, const vt_analysis *a, const vt_ftree *t, const char *title,
                 const char *subtitle, int flame)
{
    int rows = (int)t->max_depth + 1, top = 76;
    int h = top + rows * FROW + 20;
    char sub2[2048];
    vt_html_subtitle(sub2, sizeof sub2, a, NULL);
    svg_head(f, FW, h, title, subtitle, sub2);
    flame_ctx c = { f, calloc((size_t)rows + 2, sizeof(double)), 0, flame, top, rows, a };
    if (!c.next) {
        fprintf(stderr, "vramtrace: out of memory\n");
        return 2;
    }
    c.scale = t->n[0].value ? (double)(FW - 20) / (double)t->n[0].value : 0;
    fputs("<g font-size=\"11\" fill=\"#000000\">\n", f);
    if (t->n[0].value) vt_ftree_walk(t, flame_node, &c);
    else text(f, 16, top + 14, NULL, NULL, "nothing to show: no bytes");
    fputs("</g>\n</svg>\n", f);
    free(c.next);
    return 0;
}
