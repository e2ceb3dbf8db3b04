// SPDX-License-Identifier: MIT
/* symprog.h - shared by the symbolizer test program and the objects it loads.
 *
 * Every test site calls symprog_record from a known function; the return address it
 * captures lies inside that function, at the line passed with it. */
#ifndef SYMPROG_H
#define SYMPROG_H

#ifdef __cplusplus
extern "C" {
#endif

/* tag: unique site name; func/file/line: what the innermost frame must resolve to;
 * caller/caller_line: for a site inside an inlined function, the function it is inlined
 * into and the line of that inlined call (NULL, 0 otherwise). */
typedef void (*symprog_rec_fn)(const char *tag, const char *func, const char *file, int line,
                               const char *caller, int caller_line);

void symprog_record(const char *tag, const char *func, const char *file, int line,
                    const char *caller, int caller_line);

void symprog_cxx_entry(void);

#ifdef __cplusplus
}
#endif

#endif /* SYMPROG_H */
