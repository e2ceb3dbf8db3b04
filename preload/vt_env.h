// SPDX-License-Identifier: MIT
/* vt_env.h - the VRAMTRACE_* environment variables: parsing and the output path. */
#ifndef VT_ENV_H
#define VT_ENV_H

#include <stddef.h>

#include "vt_config.h"

/* Parses the VRAMTRACE_* variables into cfg. Returns 0, or -1 after writing the one
 * warning line (the caller then leaves tracing off). */
int vt_env_parse(vt_config *cfg);

/* Expands cfg->output for this process into out (size n). Returns 0 or -1. */
int vt_env_expand(const vt_config *cfg, char *out, size_t n);

#endif /* VT_ENV_H */
