// SPDX-License-Identifier: MIT
/* vt_env.c - the VRAMTRACE_* variables, and the output path pattern.
 *
 * Read once, in the constructor (getenv later would race with a program's setenv).
 * Strict: a value that is not exactly a number in range, or an output pattern with an
 * unknown %-escape, produces ONE warning line and the program runs untraced; guessing
 * what a typo meant would produce a trace the user did not ask for. An empty value is
 * the same as an unset one. */
#include "vt_env.h"
#include "vt_config.h"
#include "vt_format.h"
#include "vt_global.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define VT_DEFAULT_OUTPUT "vramtrace-%p.vtrace"

static const char *env(const char *name)
{
    const char *v = getenv(name);
    return v && v[0] ? v : NULL;
}

/* Decimal, no sign, no spaces, no suffix. */
static int parse_num(const char *name, long lo, long hi, long def, long *out)
{
    const char *v = env(name);
    if (!v) { *out = def; return 0; }
    long n = 0;
    for (const char *p = v; *p; p++) {
        if (*p < '0' || *p > '9' || n > 1000000000L) {
            vt_warn("bad value %s=\"%s\" (want %ld..%ld); tracing disabled", name, v, lo, hi);
            return -1;
        }
        n = n * 10 + (*p - '0');
    }
    if (n < lo || n > hi) {
        vt_warn("bad value %s=\"%s\" (want %ld..%ld); tracing disabled", name, v, lo, hi);
        return -1;
    }
    *out = n;
    return 0;
}

/* The first of the launcher's variables that holds a rank (vt_format.h); -1: none. A
 * launcher's variable is not ours to be strict about: a value that is not a rank is
 * passed over, with no warning. */
#define VT_ENV_NAME_(name) name,
static const char *const rank_vars[] = { VT_RANK_VARS(VT_ENV_NAME_) NULL };
static const char *const local_rank_vars[] = { VT_LOCAL_RANK_VARS(VT_ENV_NAME_) NULL };
#undef VT_ENV_NAME_

static int rank_from(const char *const *names)
{
    for (; *names; names++) {
        int32_t r = vt_rank_value(env(*names));
        if (r >= 0) return r;
    }
    return -1;
}

/* Checks the pattern's escapes; sets *has_pid. */
static int check_pattern(const char *pat, int *has_pid)
{
    *has_pid = 0;
    for (const char *p = pat; *p; p++) {
        if (*p != '%') continue;
        p++;
        if (*p == 'p') *has_pid = 1;
        else if (*p != 'h' && *p != 'r' && *p != '%') return -1;
    }
    return 0;
}

int vt_env_parse(vt_config *cfg)
{
    long v;
    memset(cfg, 0, sizeof *cfg);
    if (parse_num("VRAMTRACE_DISABLE", 0, 1, 0, &v)) return -1;
    cfg->disable = (int)v;
    if (cfg->disable) return 0;
    if (parse_num("VRAMTRACE_DEPTH", 0, VT_DEPTH_MAX, 64, &v)) return -1;
    cfg->depth = (int)v;
    if (parse_num("VRAMTRACE_FLUSH_MS", 1, 3600000, 100, &v)) return -1;
    cfg->flush_ms = (int)v;
    if (parse_num("VRAMTRACE_NVML_MS", 0, 3600000, 10, &v)) return -1;
    cfg->nvml_ms = (int)v;
    if (parse_num("VRAMTRACE_FREE_STACKS", 0, 1, 0, &v)) return -1;
    cfg->free_stacks = (int)v;
    if (parse_num("VRAMTRACE_ZSTD_LEVEL", 1, 19, 3, &v)) return -1;
    cfg->zstd_level = (int)v;
    if (parse_num("VRAMTRACE_DEBUG", 0, 1, 0, &v)) return -1;
    cfg->debug = (int)v;
    if (parse_num("VRAMTRACE_LIBUNWIND", 0, 1, 0, &v)) return -1;
    cfg->libunwind = (int)v;
    if (parse_num("VRAMTRACE_PYTHON", 0, 1, 1, &v)) return -1;
    cfg->python = (int)v;
    if (parse_num("VRAMTRACE_INTERPRETER_FRAMES", 0, 1, 0, &v)) return -1;
    cfg->interp_frames = (int)v;
    if (parse_num("VRAMTRACE_STATS", 0, 1, 0, &v)) return -1;
    cfg->stats = (int)v;
    if (parse_num("VRAMTRACE_RING", 1024, 1L << 24, 65536, &v)) return -1;
    uint32_t slots = 1024;
    while (slots < (uint64_t)v) slots <<= 1;
    cfg->ring_slots = slots;
    if (parse_num("VRAMTRACE_DROP_MS", 0, 3600000, 0, &v)) return -1;
    cfg->drop_ms = (int)v;
    if (parse_num("VRAMTRACE_READABLE", 0, 1, 0, &v)) return -1;
    cfg->readable = (int)v;
    cfg->local_rank = rank_from(local_rank_vars);
    cfg->rank = rank_from(rank_vars);
    if (cfg->rank < 0) cfg->rank = cfg->local_rank;   /* one node: the local rank is the rank */

    const char *pat = env("VRAMTRACE_OUTPUT");
    if (!pat) pat = VT_DEFAULT_OUTPUT;
    int has_pid;
    if (check_pattern(pat, &has_pid)) {
        vt_warn("bad value VRAMTRACE_OUTPUT=\"%s\" (%%p, %%h, %%r and %%%% are the escapes); tracing disabled", pat);
        return -1;
    }
    /* Relative patterns are made absolute now: the program may chdir before its first
     * CUDA call, and `vramtrace run` looks for the file where it started the program. */
    char cwd[VT_PATH_MAX];
    int n;
    if (pat[0] == '/') n = snprintf(cfg->output, sizeof cfg->output, "%s", pat);
    else if (getcwd(cwd, sizeof cwd)) n = snprintf(cfg->output, sizeof cfg->output, "%s/%s", cwd, pat);
    else n = snprintf(cfg->output, sizeof cfg->output, "%s", pat);
    if (n < 0 || (size_t)n >= sizeof cfg->output - 32) {
        vt_warn("bad value VRAMTRACE_OUTPUT (longer than %d bytes); tracing disabled", VT_PATH_MAX - 32);
        return -1;
    }

    /* A process exec'ed from a traced one inherits VRAMTRACE_OWNER_PID. Without %p in
     * the pattern it would truncate its ancestor's file: give it its own name. */
    char me[32];
    snprintf(me, sizeof me, "%ld", (long)getpid());
    const char *owner = getenv("VRAMTRACE_OWNER_PID");
    if (!owner || !owner[0]) {
        setenv("VRAMTRACE_OWNER_PID", me, 1);
        /* Descendants started elsewhere write next to us, where `vramtrace run` looks. */
        setenv("VRAMTRACE_OUTPUT", cfg->output, 1);
    } else if (strcmp(owner, me) != 0) {
        cfg->descendant = !has_pid;
    }
    return 0;
}

int vt_env_expand(const vt_config *cfg, char *out, size_t n)
{
    char host[256] = "";
    if (gethostname(host, sizeof host - 1) != 0) strcpy(host, "unknown");
    host[sizeof host - 1] = 0;
    size_t o = 0;
    int has_pid = 0;
    for (const char *p = cfg->output; *p; p++) {
        char tmp[300];
        const char *s = tmp;
        if (*p != '%') { tmp[0] = *p; tmp[1] = 0; }
        else {
            p++;
            switch (*p) {
            case 'p': snprintf(tmp, sizeof tmp, "%ld", (long)getpid()); has_pid = 1; break;
            case 'h': s = host; break;
            case 'r': snprintf(tmp, sizeof tmp, "%d", cfg->rank < 0 ? 0 : cfg->rank); break;
            case '%': strcpy(tmp, "%"); break;
            default: return -1;
            }
        }
        size_t l = strlen(s);
        if (o + l + 1 > n) return -1;
        memcpy(out + o, s, l);
        o += l;
    }
    if (cfg->descendant && !has_pid) {
        int k = snprintf(out + o, n - o, ".%ld", (long)getpid());
        if (k < 0 || (size_t)k >= n - o) return -1;
        o += (size_t)k;
    }
    out[o] = 0;
    return 0;
}
