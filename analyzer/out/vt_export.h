// SPDX-License-Identifier: MIT
/* vt_export.h - the writers of each interchange format (docs/pictures.md). What they
 * share with the pictures: the selected memory (vt_eset.h), the call tree of its sites
 * (vt_ftree.h), frame labels (vt_frame_label.h), output helpers (vt_export_common.h). */
#ifndef VT_EXPORT_H
#define VT_EXPORT_H

#include <stdint.h>
#include <stdio.h>

#include "vt_analysis.h"
#include "vt_eset.h"

/* ------------------------------------------------------------------------ *
 *  Writers. Each returns 0, or 2 after printing one line.
 * ------------------------------------------------------------------------ */
typedef struct {
    vt_what what;
    int device;
    size_t buckets;         /* perfetto */
} vt_export_opts;

int vt_export_folded(FILE *f, const vt_analysis *a, const vt_export_opts *o);
/* Folded stacks with each frame's class as FlameGraph's annotations (vt_export_folded.c). */
int vt_export_folded_classes(FILE *f, const vt_analysis *a, const vt_export_opts *o);
int vt_export_pprof(FILE *f, const vt_analysis *a, const vt_export_opts *o);
/* Perfetto's protobuf trace (vt_export_perfetto_pb.c) and its legacy JSON. */
int vt_export_perfetto(FILE *f, const vt_analysis *a, const vt_export_opts *o);
int vt_export_perfetto_json(FILE *f, const vt_analysis *a, const vt_export_opts *o);
int vt_export_speedscope(FILE *f, const vt_analysis *a, const vt_export_opts *o);
int vt_export_csv(FILE *f, const vt_analysis *a, const vt_export_opts *o);
/* The frames of the stacks the CSV's rows name, one row per frame (vt_export_csv_stacks.c). */
int vt_export_csv_stacks(FILE *f, const vt_analysis *a, const vt_export_opts *o);

#endif /* VT_EXPORT_H */
