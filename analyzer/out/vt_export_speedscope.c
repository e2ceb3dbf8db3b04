// SPDX-License-Identifier: MIT
/* vt_export_speedscope.c - speedscope's file format (www.speedscope.app): the shared
 * frames (name, file, line, and the frame's class as "class"), then three "sampled"
 * profiles in bytes, one sample per group (stack outermost frame first): bytes at the
 * peak, bytes allocated, bytes leaked at the end. The one --what names opens first
 * (activeProfileIndex). */
#include "vt_export.h"
#include "vt_export_common.h"
#include "vt_frame_label.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

int vt_export_speedscope(FILE *f, const vt_analysis *a, const vt_export_opts *o)
{
    vt_eset e;
    if (vt_eset_init(&e, a, o->device)) return 2;
    vt_strtab keys = { 0 };
    uint32_t **stacks = calloc(e.n ? e.n : 1, sizeof *stacks);
    uint32_t *nfr = calloc(e.n ? e.n : 1, sizeof *nfr);
    int nomem = !stacks || !nfr;

    /* frames: one per distinct (label, file, line) */
    fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n\"shared\":{\"frames\":[", f);
    for (size_t i = 0; i < e.n && !nomem; i++) {
        const vt_site *s = e.g[i].g->site < a->sites.n ? &a->sites.sites[e.g[i].g->site] : NULL;
        uint32_t n = s && s->nframes ? s->nframes : 1;
        stacks[i] = malloc(n * sizeof **stacks);
        if (!stacks[i]) { nomem = 1; break; }
        nfr[i] = n;
        for (uint32_t k = 0; k < n; k++) {
            /* outermost first */
            const vt_site_frame *fr = s && s->nframes ? &s->frames[s->nframes - 1 - k] : NULL;
            char label[1024], key[2100];
            const char *name = fr ? vt_export_frame_label(fr, label, sizeof label) : "[no stack]";
            int kl = snprintf(key, sizeof key, "%s\x1f%s\x1f%u\x1f%u", name, fr && fr->file ? fr->file : "",
                              fr ? fr->line : 0, fr ? (unsigned)fr->fclass : VT_FC_COUNT);
            size_t before = keys.n;
            uint32_t id = vt_strtab_intern(&keys, key, (size_t)kl < sizeof key ? (size_t)kl : sizeof key - 1);
            if (id == UINT32_MAX) { nomem = 1; break; }
            stacks[i][k] = id;
            if (keys.n == before) continue;
            fputs(id ? ",\n{\"name\":" : "\n{\"name\":", f);
            vt_export_jstr(f, name);
            if (fr && fr->file) {
                fputs(",\"file\":", f);
                vt_export_jstr(f, fr->file);
                if (fr->line) fprintf(f, ",\"line\":%u", fr->line);
            }
            /* speedscope's Frame has no category: an extra member, which it ignores */
            if (fr) fprintf(f, ",\"class\":\"%s\"", vt_fclass_name(fr->fclass));
            fputc('}', f);
        }
    }
    fputs("]},\n\"profiles\":[", f);
    static const vt_what order[3] = { VT_WHAT_PEAK, VT_WHAT_ALLOCATED, VT_WHAT_LEAKED };
    static const char *const pname[3] = { "bytes live at the peak", "bytes allocated", "bytes leaked (live at the end)" };
    char dev[160];
    vt_eset_label(&e, dev, sizeof dev);
    for (int p = 0; p < 3 && !nomem; p++) {
        vt_what w = order[p];
        fprintf(f, "%s\n{\"type\":\"sampled\",\"name\":", p ? "," : "");
        char name[300];
        snprintf(name, sizeof name, "%s, %s", pname[p], dev);
        vt_export_jstr(f, name);
        fprintf(f, ",\"unit\":\"bytes\",\"startValue\":0,\"endValue\":%" PRIu64 ",\n\"samples\":[", e.sum[w]);
        int first = 1;
        for (size_t i = 0; i < e.n; i++) {
            if (!vt_egroup_bytes(&e, &e.g[i], w)) continue;
            fputs(first ? "\n[" : ",\n[", f);
            first = 0;
            for (uint32_t k = 0; k < nfr[i]; k++) fprintf(f, "%s%u", k ? "," : "", stacks[i][k]);
            fputc(']', f);
        }
        fputs("],\n\"weights\":[", f);
        first = 1;
        for (size_t i = 0; i < e.n; i++) {
            uint64_t v = vt_egroup_bytes(&e, &e.g[i], w);
            if (!v) continue;
            fprintf(f, "%s%" PRIu64, first ? "" : ",", v);
            first = 0;
        }
        fputs("]}", f);
    }
    int active = o->what == VT_WHAT_ALLOCATED ? 1 : o->what == VT_WHAT_LEAKED ? 2 : 0;
    fprintf(f, "],\n\"name\":");
    char title[400];
    snprintf(title, sizeof title, "%s: GPU memory (vramtrace)", vt_export_program(a));
    vt_export_jstr(f, title);
    fprintf(f, ",\"activeProfileIndex\":%d,\"exporter\":\"vramtrace\"}\n", active);

    for (size_t i = 0; stacks && i < e.n; i++) free(stacks[i]);
    free(stacks);
    free(nfr);
    vt_strtab_free(&keys);
    vt_eset_free(&e);
    if (nomem) {
        fprintf(stderr, "vramtrace: out of memory\n");
        return 2;
    }
    return 0;
}
