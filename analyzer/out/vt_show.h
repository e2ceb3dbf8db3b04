// SPDX-License-Identifier: MIT
/* vt_show.h - how the commands print shared things: frames, sites, commands, dates,
 * in text and in JSON (docs/json-schema.md). */
#ifndef VT_SHOW_H
#define VT_SHOW_H

#include <stdint.h>
#include <stdio.h>

#include "vt_analysis.h"
#include "vt_json.h"

#define VT_SHOW_FRAMES 5   /* lines of a site printed in text output by default */

/* How a site reads in text (--frames, docs/cli.md "Frames"):
 *   user    the op, the innermost user frame, the rest of the Python chain (frames inner
 *           of the user's led by "via"), then "… N framework frames" (the default)
 *   all     every frame, innermost first
 *   python  the op and the Python frames
 *   native  the native frames */
#define VT_VIEW_LIST(X) X(VT_VIEW_USER, "user") X(VT_VIEW_ALL, "all") X(VT_VIEW_PYTHON, "python") \
    X(VT_VIEW_NATIVE, "native")
typedef enum {
#define VT_VIEW_ENUM(id, name) id,
    VT_VIEW_LIST(VT_VIEW_ENUM)
#undef VT_VIEW_ENUM
} vt_view;

typedef struct {
    uint8_t  view;          /* vt_view */
    uint32_t lines;         /* lines of frames at most; 0: VT_SHOW_FRAMES for user, all else */
} vt_frames;

/* Takes a --frames value: a view's name or a line count (1..VT_SITE_MAX_FRAMES); both
 * may be given, in two options. -1 on bad text (the command says so). */
int vt_show_frames_parse(const char *v, vt_frames *fr);
/* The message for a bad value (a printf format taking it). */
#define VT_SHOW_FRAMES_ERROR "bad --frames '%s' (user, all, python, native, or a count 1..256)"

/* "function (file:line) [module]" */
void vt_show_frame(FILE *f, const vt_site_frame *fr);
/* Site s as fr says, one line each, the first where the cursor is, the others indented
 * by `indent` spaces. Ends with a newline. */
void vt_show_site(FILE *f, const vt_analysis *a, uint32_t site, const vt_frames *fr, int indent);
/* At most `lines` lines of site s as fr says, on one line joined by " <- " (" via "),
 * then a newline; frames without their module. */
void vt_show_site_inline(FILE *f, const vt_analysis *a, uint32_t site, const vt_frames *fr, int lines);
/* The same in the user's view, into buf (cut to n bytes, no newline). */
void vt_show_site_text(char *buf, size_t n, const vt_analysis *a, uint32_t site, int lines);
/* The site as JSON members "op" (when one is named) and "frames": [...], every frame
 * with its class. */
void vt_show_site_json(vt_json *j, const vt_analysis *a, uint32_t site);
/* argv joined by spaces (arguments with blanks quoted). */
void vt_show_command(FILE *f, const vt_reader *rd);
void vt_show_command_json(vt_json *j, const char *key, const vt_reader *rd);
/* "2026-11-29 10:00:00 UTC" */
const char *vt_show_date(char buf[40], uint64_t realtime_ns);
/* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", the form NVML prints */
void vt_show_uuid(char buf[48], const uint8_t uuid[16]);
/* Writes s with control bytes escaped (dump output). */
void vt_show_escaped(FILE *f, const char *s, size_t n);

/* ------------------------------------------------------------------------ *
 *  A site's lines as fr shows it (vt_show_rows.c groups the rows that read alike)
 * ------------------------------------------------------------------------ */
/* One line of a site as shown: the op, or a frame led by "<- " (an outer frame) or
 * "via " (a frame between the op and the user frame shown before it). */
typedef struct {
    const char *op;
    const vt_site_frame *fr;
    const char *lead;
} vt_show_line;

typedef struct {
    vt_show_line l[VT_SITE_MAX_FRAMES + 1];
    size_t n;
    uint32_t hidden;        /* frames not shown */
    int hidden_user;        /* some of them are user code */
} vt_show_lines;

/* Site s of a, or NULL when there is none or it has no frames. */
const vt_site *vt_show_site_of(const vt_analysis *a, uint32_t site);
void vt_show_site_lines(const vt_site *s, const vt_frames *fr, vt_show_lines *o);

#endif /* VT_SHOW_H */
