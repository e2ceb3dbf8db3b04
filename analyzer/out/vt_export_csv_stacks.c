// SPDX-License-Identifier: MIT
/* vt_export_csv_stacks.c - `export --format csv-stacks`: the stacks the event table of
 * `--format csv` names, one row per frame, to join on stack_id:
 *
 *   stack_id,depth,kind,frame,file,line,module,class
 *
 * Every stack_id of an alloc or oom row (and of a vmm row that made an allocation) has
 * its frames as the analysis folded them (the recorder's and the CUDA driver's innermost
 * frames dropped, inline frames expanded), depth 0 the innermost, the allocation point;
 * kind native, python or scope; class user, library, framework, interpreter or
 * plumbing (docs/cli.md, "Frames"). A stack the recorder kept no frames of has one row,
 * depth 0, frame "[no stack]". */
#include "vt_export.h"

#include <inttypes.h>
#include <string.h>

/* A CSV cell: quoted when it holds a comma, a quote or a line break. */
static void cell(FILE *f, const char *s)
{
    if (!s) return;
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (const char *c = s; *c; c++) {
        if (*c == '"') fputc('"', f);
        fputc(*c == '\n' || *c == '\r' ? ' ' : *c, f);
    }
    fputc('"', f);
}

static void stack_rows(FILE *f, const vt_analysis *a, uint32_t stack_id, uint32_t site)
{
    const vt_site *s = site < a->sites.n ? &a->sites.sites[site] : NULL;
    if (!s || !s->nframes) {
        fprintf(f, "%" PRIu32 ",0,,[no stack],,,,\n", stack_id);
        return;
    }
    for (uint32_t d = 0; d < s->nframes; d++) {
        const vt_site_frame *fr = &s->frames[d];
        fprintf(f, "%" PRIu32 ",%" PRIu32 ",%s,", stack_id, d,
                fr->kind == VT_FRAME_PYTHON ? "python" : fr->kind == VT_FRAME_SCOPE ? "scope" : "native");
        cell(f, fr->function);
        fputc(',', f);
        cell(f, fr->file);
        if (fr->line) fprintf(f, ",%u,", fr->line);
        else fputs(",,", f);
        cell(f, fr->module);
        fprintf(f, ",%s\n", vt_fclass_name(fr->fclass));
    }
}

int vt_export_csv_stacks(FILE *f, const vt_analysis *a, const vt_export_opts *o)
{
    (void)o;
    const vt_replay_result *rp = vt_replay_result_of(a->t[0].rp);
    vt_idmap seen = { 0 };   /* stack ids written */
    int nomem = 0;
    fputs("stack_id,depth,kind,frame,file,line,module,class\n", f);
    /* groups first (their order is the trace's), then the stacks of failed requests */
    for (size_t i = 0; i < rp->ngroups + rp->nooms && !nomem; i++) {
        uint32_t id = i < rp->ngroups ? rp->groups[i].stack_id : rp->ooms[i - rp->ngroups].stack_id;
        uint32_t site = i < rp->ngroups ? rp->groups[i].site : rp->ooms[i - rp->ngroups].site;
        if (vt_idmap_get(&seen, id)) continue;
        if (vt_idmap_put(&seen, id, 1)) nomem = 1;
        else stack_rows(f, a, id, site);
    }
    vt_idmap_free(&seen);
    if (nomem) {
        fprintf(stderr, "vramtrace: out of memory\n");
        return 2;
    }
    return 0;
}
