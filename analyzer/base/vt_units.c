// SPDX-License-Identifier: MIT
/* vt_units.c - sizes and durations, to and from text. */
#include "vt_units.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ------------------------------------------------------------------------ *
 *  Parsing
 * ------------------------------------------------------------------------ */
/* Splits "1.5 GiB" into 1.5 and "GiB". strtod alone would also take "inf", "0x10" and
 * "1e3"; a size or duration is plain decimal, so only digits and one dot are allowed. */
static int split_number(const char *s, double *v, const char **unit)
{
    while (isspace((unsigned char)*s)) s++;
    const char *p = s;
    int digits = 0, dots = 0;
    while (isdigit((unsigned char)*p) || *p == '.') {
        if (*p == '.') dots++; else digits++;
        p++;
    }
    if (!digits || dots > 1) return -1;
    char tmp[64];
    size_t n = (size_t)(p - s);
    if (n >= sizeof tmp) return -1;
    memcpy(tmp, s, n);
    tmp[n] = 0;
    *v = strtod(tmp, NULL);
    while (isspace((unsigned char)*p)) p++;
    *unit = p;
    return 0;
}

static int unit_is(const char *u, size_t n, const char *name)
{
    return strlen(name) == n && strncasecmp(u, name, n) == 0;
}

int vt_units_parse_size(const char *s, uint64_t *out)
{
    double v;
    const char *u;
    if (!s || split_number(s, &v, &u)) return -1;
    size_t n = strlen(u);
    while (n && isspace((unsigned char)u[n - 1])) n--;
    static const struct { const char *name; double mul; } units[] = {
        { "", 1 }, { "b", 1 },
        { "k", 1024.0 }, { "kib", 1024.0 }, { "kb", 1e3 },
        { "m", 1048576.0 }, { "mib", 1048576.0 }, { "mb", 1e6 },
        { "g", 1073741824.0 }, { "gib", 1073741824.0 }, { "gb", 1e9 },
        { "t", 1099511627776.0 }, { "tib", 1099511627776.0 }, { "tb", 1e12 },
    };
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (unit_is(u, n, units[i].name)) {
            double b = v * units[i].mul;
            if (b >= 18446744073709551615.0) return -1;
            *out = (uint64_t)llround(b);
            return 0;
        }
    }
    return -1;
}

int vt_units_parse_time(const char *s, uint64_t *ns_out)
{
    double v;
    const char *u;
    if (!s || split_number(s, &v, &u)) return -1;
    size_t n = strlen(u);
    while (n && isspace((unsigned char)u[n - 1])) n--;
    static const struct { const char *name; double mul; } units[] = {
        { "", 1e9 }, { "s", 1e9 }, { "sec", 1e9 }, { "ms", 1e6 }, { "us", 1e3 },
        { "ns", 1 }, { "m", 60e9 }, { "min", 60e9 }, { "h", 3600e9 },
    };
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (unit_is(u, n, units[i].name)) {
            double t = v * units[i].mul;
            if (t >= 18446744073709551615.0) return -1;
            *ns_out = (uint64_t)llround(t);
            return 0;
        }
    }
    return -1;
}

/* ------------------------------------------------------------------------ *
 *  Printing
 * ------------------------------------------------------------------------ */
static const char *fmt_size(char *buf, const char *sign, uint64_t b)
{
    static const char *const names[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
    if (b < 1024) {
        snprintf(buf, VT_UNITS_BUF, "%s%" PRIu64 " B", sign, b);
        return buf;
    }
    double v = (double)b / 1024.0;
    int i = 0;
    while (v >= 1024.0 && i < 5) { v /= 1024.0; i++; }
    /* Round first so that 1023.96 KiB prints as "1.00 MiB", not "1024 KiB". */
    if (v >= 999.5 && i < 5) { v /= 1024.0; i++; }
    const char *f = v < 9.995 ? "%s%.2f %s" : v < 99.95 ? "%s%.1f %s" : "%s%.0f %s";
    snprintf(buf, VT_UNITS_BUF, f, sign, v, names[i]);
    return buf;
}

const char *vt_units_size(char buf[VT_UNITS_BUF], uint64_t bytes)
{
    return fmt_size(buf, "", bytes);
}

const char *vt_units_size_delta(char buf[VT_UNITS_BUF], int64_t bytes)
{
    if (bytes == 0) return fmt_size(buf, "", 0);
    if (bytes > 0) return fmt_size(buf, "+", (uint64_t)bytes);
    return fmt_size(buf, "-", (uint64_t)0 - (uint64_t)bytes);
}

const char *vt_units_time(char buf[VT_UNITS_BUF], uint64_t ns)
{
    if (ns < 1000)
        snprintf(buf, VT_UNITS_BUF, "%" PRIu64 " ns", ns);
    else if (ns < 1000000)
        snprintf(buf, VT_UNITS_BUF, "%.1f us", (double)ns / 1e3);
    else if (ns < 1000000000)
        snprintf(buf, VT_UNITS_BUF, "%.1f ms", (double)ns / 1e6);
    else
        snprintf(buf, VT_UNITS_BUF, "%.3f s", (double)ns / 1e9);
    return buf;
}
