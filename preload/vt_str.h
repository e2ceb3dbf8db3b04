// SPDX-License-Identifier: MIT
/* vt_str.h - interned strings (vt_str.c): text -> STRING id, a STRING record once. */
#ifndef VT_STR_H
#define VT_STR_H

#include <stddef.h>
#include <stdint.h>

#define VT_STR_MAX 4096           /* longer strings are cut */
uint32_t vt_str_intern(const char *s, size_t n);  /* 0: table full or empty string */
uint64_t vt_str_dropped(void);    /* texts refused because the table was full */
uint64_t vt_hash_bytes(const void *p, size_t n, uint64_t seed);

#endif /* VT_STR_H */
