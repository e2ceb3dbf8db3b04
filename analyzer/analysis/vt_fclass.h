/* SPDX-License-Identifier: MIT */
/* vt_fclass.h - frame classes and operator names: what each folded frame is to the
 * reader (user code, library Python, framework, interpreter, plumbing), decided once per
 * distinct frame by the rules' `class:` lines, and the ATen operator a site's frames
 * name. The text views (vt_show.h) show a site from these. */
#ifndef VT_FCLASS_H
#define VT_FCLASS_H

#include <stddef.h>

#include "vt_sites.h"

struct vt_cat_opts;

struct vt_rules;

/* Classes every frame of every site (frames[].fclass) and names each site's operator
 * (.op). The rules are the --rules files of o (their `class:` lines), then the built-in
 * ones, which apply even under --no-default-rules: classes decide no category. `rules`
 * is the analysis' category chain: used as it is when it ends in the built-in set (not
 * parsed again), else NULL. A frame no rule classes is user code. Returns 0, or -1 when
 * out of memory (frames left user). */
int vt_fclass_assign(vt_sites *ss, struct vt_rules *rules, const struct vt_cat_opts *o);

/* The operator a function name names, "log_softmax" from "at::_ops::log_softmax::call(...)",
 * "at::(anonymous namespace)::structured_log_softmax_cuda_out_functional::..." or
 * "torch::autograd::VariableType::(anonymous namespace)::log_softmax(...)"; written to
 * buf (n bytes). Returns its length, 0 when the name names none. */
size_t vt_fclass_op(const char *function, char *buf, size_t n);

#endif /* VT_FCLASS_H */
