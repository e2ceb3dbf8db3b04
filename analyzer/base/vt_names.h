// SPDX-License-Identifier: MIT
/* vt_names.h - stable names of record types, kinds and VMM operations, as printed by
 * dump, report and the JSON output. */
#ifndef VT_NAMES_H
#define VT_NAMES_H

const char *vt_kind_name(unsigned kind);     /* "cuMemAlloc", "kind99" when unknown */
const char *vt_vmm_op_name(unsigned op);     /* "map", ... */
const char *vt_rec_type_name(unsigned type); /* "alloc", ... */
const char *vt_class_name(unsigned cls);     /* "device", "managed", "host" */
const char *vt_annot_role_name(unsigned role); /* ANNOTATE roles: "weights", ... ("none" = 0) */

#endif /* VT_NAMES_H */
