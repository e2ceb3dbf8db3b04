// SPDX-License-Identifier: MIT
/* vt_args.c - command-line options of one subcommand. */
#include "vt_args.h"
#include "vt_units.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void vt_args_init(vt_args *a, const char *cmd, int argc, char **argv)
{
    memset(a, 0, sizeof *a);
    a->cmd = cmd;
    a->argc = argc;
    a->argv = argv;
}

void vt_args_error(const vt_args *a, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "vramtrace: %s: ", a->cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " (try 'vramtrace %s --help')\n", a->cmd);
}

int vt_args_one_trace(const vt_args *a, char **path, const char *v)
{
    if (*path) {
        vt_args_error(a, "one TRACE only");
        return -1;
    }
    *path = (char *)v;
    return 0;
}

int vt_args_next(vt_args *a, const vt_opt *opts, const char **val)
{
    *val = NULL;
    if (a->i >= a->argc) return VT_ARGS_END;
    char *s = a->argv[a->i++];
    if (a->done || s[0] != '-' || s[1] == 0) {
        if (a->stop_at_operand) a->done = 1;
        *val = s;
        return VT_ARGS_OPERAND;
    }
    if (strcmp(s, "--") == 0) {
        a->done = 1;
        return vt_args_next(a, opts, val);
    }
    const vt_opt *o = NULL;
    const char *inline_val = NULL;
    if (s[1] == '-') {
        const char *name = s + 2;
        const char *eq = strchr(name, '=');
        size_t n = eq ? (size_t)(eq - name) : strlen(name);
        for (const vt_opt *p = opts; p->name; p++)
            if (strlen(p->name) == n && strncmp(p->name, name, n) == 0) { o = p; break; }
        if (!o) {
            vt_args_error(a, "unknown option '%.*s'", (int)(n + 2), s);
            return VT_ARGS_ERROR;
        }
        if (eq) {
            if (!o->has_arg) {
                vt_args_error(a, "option '--%s' takes no value", o->name);
                return VT_ARGS_ERROR;
            }
            inline_val = eq + 1;
        }
    } else {
        for (const vt_opt *p = opts; p->name; p++)
            if (p->shortc && p->shortc == s[1]) { o = p; break; }
        if (!o) {
            vt_args_error(a, "unknown option '-%c'", s[1]);
            return VT_ARGS_ERROR;
        }
        if (s[2]) {
            if (!o->has_arg) {
                vt_args_error(a, "unknown option '%s'", s);
                return VT_ARGS_ERROR;
            }
            inline_val = s + 2;
        }
    }
    if (o->has_arg) {
        if (inline_val) {
            *val = inline_val;
        } else if (a->i < a->argc) {
            *val = a->argv[a->i++];
        } else {
            vt_args_error(a, "option '--%s' needs a value", o->name);
            return VT_ARGS_ERROR;
        }
    }
    return o->id;
}

int vt_args_uint(const vt_args *a, const char *opt, const char *s, uint64_t max, uint64_t *out)
{
    char *end;
    errno = 0;
    if (!s || !*s || *s == '-' || *s == '+') goto bad;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v > max) goto bad;
    *out = v;
    return 0;
bad:
    vt_args_error(a, "bad value '%s' for %s (a whole number 0..%llu)", s ? s : "",
                  opt, (unsigned long long)max);
    return -1;
}

int vt_args_size(const vt_args *a, const char *opt, const char *s, uint64_t *out)
{
    if (vt_units_parse_size(s, out) == 0) return 0;
    vt_args_error(a, "bad size '%s' for %s (e.g. 20GiB, 1.5 GB, 512MiB)", s, opt);
    return -1;
}
