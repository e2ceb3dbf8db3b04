// SPDX-License-Identifier: MIT
/* vt_svg.h - static SVG pictures, for papers and CI artifacts: the timeline chart and
 * the flame graph, drawn as the HTML reports draw them (docs/pictures.md), with
 * <title> tooltips where an SVG viewer shows them. */
#ifndef VT_SVG_H
#define VT_SVG_H

#include <stdio.h>

#include "vt_ftree.h"
#include "vt_series.h"

/* Return 0, or 2 after printing one line. */
int vt_svg_timeline(FILE *f, const vt_analysis *a, const vt_series *s, const char *title);
int vt_svg_flame(FILE *f, const vt_analysis *a, const vt_ftree *t, const char *title,
                 const char *subtitle, int flame);

#endif /* VT_SVG_H */
