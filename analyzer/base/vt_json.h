// SPDX-License-Identifier: MIT
/* vt_json.h - a tiny streaming JSON writer: two-space indentation, keys in the order
 * written, so that output is stable and diffable (docs/json-schema.md). */
#ifndef VT_JSON_H
#define VT_JSON_H

#include <stdint.h>
#include <stdio.h>

#define VT_JSON_MAX_DEPTH 32

typedef struct {
    FILE *f;
    int depth;
    int count[VT_JSON_MAX_DEPTH]; /* members written so far at each level */
    char close[VT_JSON_MAX_DEPTH]; /* '}' or ']' */
} vt_json;

void vt_json_init(vt_json *j, FILE *f);
/* key is NULL inside arrays and at the top level. */
void vt_json_obj(vt_json *j, const char *key);
void vt_json_arr(vt_json *j, const char *key);
void vt_json_end(vt_json *j);             /* closes the innermost object or array */
void vt_json_str(vt_json *j, const char *key, const char *v);        /* NULL -> null */
void vt_json_strn(vt_json *j, const char *key, const char *v, size_t n);
void vt_json_u64(vt_json *j, const char *key, uint64_t v);
void vt_json_i64(vt_json *j, const char *key, int64_t v);
void vt_json_f64(vt_json *j, const char *key, double v);  /* 6 significant digits */
void vt_json_bool(vt_json *j, const char *key, int v);
void vt_json_null(vt_json *j, const char *key);
/* Ends the document with a newline. */
void vt_json_finish(vt_json *j);

#endif /* VT_JSON_H */
