// SPDX-License-Identifier: MIT
/* vt_show.h - how the commands print shared things: frames, sites, commands, dates,
 * in text and in JSON (docs/json-schema.md). */
#ifndef VT_SHOW_H
#define VT_SHOW_H

#include <stdint.h>
#include <stdio.h>

#include "vt_rows.h"
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
/* Rows of sites (vt_rows by VT_BY_SITE) that read alike under fr summed into one (the
 * first, largest, stands for them), then sorted again. Returns the new count. */
size_t vt_show_group_rows(const vt_analysis *a, const vt_frames *fr, vt_row *rows, size_t n);
/* The rows of sites holding bytes at `at` for tracker tk, grouped as fv shows them
 * (vt_show_group_rows), largest first; (size_t)-1 when out of memory (as vt_rows). */
size_t vt_show_site_rows(const vt_analysis *a, const vt_tracker *tk, vt_at at, const vt_frames *fv, vt_row **out);
/* The site as JSON members "op" (when one is named) and "frames": [...], every frame
 * with its class. */
void vt_show_site_json(vt_json *j, const vt_analysis *a, uint32_t site);
/* A row of sites as a JSON object: bytes, live_count, count, total_bytes, frames. */
void vt_show_row_json(vt_json *j, const vt_analysis *a, vt_by by, const vt_row *r);
/* argv joined by spaces (arguments with blanks quoted). */
void vt_show_command(FILE *f, const vt_reader *rd);
void vt_show_command_json(vt_json *j, const char *key, const vt_reader *rd);
/* "2026-11-29 10:00:00 UTC" */
const char *vt_show_date(char buf[40], uint64_t realtime_ns);
/* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", the form NVML prints */
void vt_show_uuid(char buf[48], const uint8_t uuid[16]);
/* Writes s with control bytes escaped (dump output). */
void vt_show_escaped(FILE *f, const char *s, size_t n);

#endif /* VT_SHOW_H */
