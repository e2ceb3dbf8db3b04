// SPDX-License-Identifier: MIT
/* vt_html.h - self-contained HTML reports: the timeline chart and the flame graph.
 * One file each, the data as JSON in a <script type="application/json">, the style
 * and a small hand-written script inline (vt_html.css, vt_timeline.js, vt_flame.js,
 * embedded at build time); a Content-Security-Policy forbids any network access. */
#ifndef VT_HTML_H
#define VT_HTML_H

#include <stdio.h>

#include "vt_ftree.h"
#include "vt_html_common.h"
#include "vt_moments.h"
#include "vt_series.h"

/* Return 0, or 2 after printing one line. */
/* m: the top sites at the sampled moments (clicking the chart shows them), or NULL. */
int vt_html_timeline(FILE *f, const vt_analysis *a, const vt_series *s, const vt_moments *m, const char *title);
/* The "stacks" member of the timeline's data (vt_html_moments.c). */
void vt_html_moments(FILE *f, const vt_moments *m);
/* flame: root at the bottom; inverted: opens on the inverted tree (built in the page). */
int vt_html_flame(FILE *f, const vt_analysis *a, const vt_ftree *t, const char *title,
                  const char *subtitle, int flame, int inverted);

#endif /* VT_HTML_H */
