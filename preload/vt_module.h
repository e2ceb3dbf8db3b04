// SPDX-License-Identifier: MIT
/* vt_module.h - MODULE records for the loaded objects (vt_module.c), emitted by the writer. */
#ifndef VT_MODULE_H
#define VT_MODULE_H

#include "vt_format.h"

/* Writer: emits MODULE records for the objects not yet described. */
void vt_module_check(void (*emit)(const vt_rec *r));

#endif /* VT_MODULE_H */
