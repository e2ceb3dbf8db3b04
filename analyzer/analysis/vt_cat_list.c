// SPDX-License-Identifier: MIT
/* vt_cat_list.c - the categories' names and options (vt_cat_list.h). */
#include "vt_cat_list.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VT_CAT_NAME_(id, name, what) name,
static const char *const cat_names[VT_CAT_N] = { VT_CATS(VT_CAT_NAME_) };
#undef VT_CAT_NAME_
#define VT_CAT_WHAT_(id, name, what) what,
static const char *const cat_whats[VT_CAT_N] = { VT_CATS(VT_CAT_WHAT_) };
#undef VT_CAT_WHAT_

const char *vt_cat_name(vt_cat c)
{
    return (unsigned)c < VT_CAT_N ? cat_names[c] : "other";
}

const char *vt_cat_what(vt_cat c)
{
    return (unsigned)c < VT_CAT_N ? cat_whats[c] : cat_whats[VT_CAT_OTHER];
}

int vt_cat_parse(const char *name)
{
    for (int i = 0; i < VT_CAT_N; i++)
        if (!strcmp(name, cat_names[i])) return i;
    return -1;
}

/* ------------------------------------------------------------------------ *
 *  Options
 * ------------------------------------------------------------------------ */
int vt_cat_wanted(const vt_cat_opts *o)
{
    if (o && o->off) return 0;
    const char *e = getenv("VRAMTRACE_NO_CATEGORIES");
    return !(e && *e && strcmp(e, "0"));
}

int vt_cat_opts_add_rules(vt_cat_opts *o, const char *path)
{
    if (o->nrules == VT_CAT_MAX_RULES) {
        fprintf(stderr, "vramtrace: too many --rules files (at most %d)\n", VT_CAT_MAX_RULES);
        return -1;
    }
    o->rules[o->nrules++] = path;
    return 0;
}
