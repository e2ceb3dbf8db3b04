// SPDX-License-Identifier: MIT
/* vt_frame_label.h - a folded frame as one line of text, for flame graphs, folded
 * stacks and the interchange formats. */
#ifndef VT_FRAME_LABEL_H
#define VT_FRAME_LABEL_H

#include <stddef.h>

#include "vt_sites.h"

/* The text of a frame in a flame graph or a folded stack: the function; Python frames
 * add "(file:line)" since many Python functions share a name ("forward"); scopes
 * (NVTX ranges, layers) are "[name]". ';' and newlines become ':' and ' '. */
const char *vt_export_frame_label(const vt_site_frame *f, char *buf, size_t n);

#endif /* VT_FRAME_LABEL_H */
