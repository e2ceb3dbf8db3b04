// SPDX-License-Identifier: MIT
/* vt_show.h - how the commands print shared things: frames, sites, commands, dates,
 * in text and in JSON (docs/json-schema.md). */
#ifndef VT_SHOW_H
#define VT_SHOW_H

#include <stdint.h>
#include <stdio.h>

#include "vt_analyze.h"
#include "vt_json.h"

#define VT_SHOW_FRAMES 5   /* frames of a site printed in text output by default */

/* "function (file:line) [module]" */
void vt_show_frame(FILE *f, const vt_site_frame *fr);
/* The first frame of site s, then up to nframes-1 outer frames on lines of their own,
 * each indented by `indent` spaces and led by "<- ". Ends with a newline. */
void vt_show_site(FILE *f, const vt_analysis *a, uint32_t site, int nframes, int indent);
/* Up to nframes frames of site s on one line, joined by " <- ", then a newline. */
void vt_show_site_inline(FILE *f, const vt_analysis *a, uint32_t site, int nframes);
/* The site as a JSON array member "frames": [...]. */
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
