// SPDX-License-Identifier: MIT
/* vt_html.h - self-contained HTML reports: the timeline chart and the flame graph.
 * One file each, the data as JSON in a <script type="application/json">, the style
 * and a small hand-written script inline (vt_html.css, vt_timeline.js, vt_flame.js,
 * embedded at build time); a Content-Security-Policy forbids any network access. */
#ifndef VT_HTML_H
#define VT_HTML_H

#include <stdio.h>

#include "vt_export.h"
#include "vt_moments.h"
#include "vt_series.h"

/* Text for HTML or XML, in element content or in a quoted attribute: & < > " '
 * escaped, control bytes dropped, bytes that are not UTF-8 replaced by U+FFFD. */
void vt_html_esc(FILE *f, const char *s);

/* The colour of series i ("#rrggbb"): categories have fixed colours, sites and kinds
 * take a palette in order, "other" is grey. */
const char *vt_html_series_color(const vt_series *s, size_t i);

/* Title and subtitle lines of a report on trace 0 of a. */
void vt_html_subtitle(char *buf, size_t n, const vt_analysis *a, const char *memory);

/* Return 0, or 2 after printing one line. */
/* m: the top sites at the sampled moments (clicking the chart shows them), or NULL. */
int vt_html_timeline(FILE *f, const vt_analysis *a, const vt_series *s, const vt_moments *m, const char *title);
/* The "stacks" member of the timeline's data (vt_html_moments.c). */
void vt_html_moments(FILE *f, const vt_moments *m);
/* flame: root at the bottom; inverted: opens on the inverted tree (built in the page). */
int vt_html_flame(FILE *f, const vt_analysis *a, const vt_ftree *t, const char *title,
                  const char *subtitle, int flame, int inverted);

#endif /* VT_HTML_H */
