// SPDX-License-Identifier: MIT
/* vt_html_common.h - what the HTML reports and the SVG pictures share: escaped text
 * and the subtitle that says which run a picture shows. */
#ifndef VT_HTML_COMMON_H
#define VT_HTML_COMMON_H

#include <stddef.h>
#include <stdio.h>

#include "vt_analysis.h"

/* Text for HTML or XML, in element content or in a quoted attribute: & < > " '
 * escaped, control bytes dropped, bytes that are not UTF-8 replaced by U+FFFD. */
void vt_html_esc(FILE *f, const char *s);

/* Title and subtitle lines of a report on trace 0 of a. */
void vt_html_subtitle(char *buf, size_t n, const vt_analysis *a, const char *memory);

#endif /* VT_HTML_COMMON_H */
