// SPDX-License-Identifier: MIT
/* vt_rules.h - category rules: patterns on symbolized frames that name what an
 * allocation is for (docs/categories.md has the format and the precedence).
 *
 * A rule set is parsed from text (a --rules file, or the built-in defaults). Matching
 * is per group: its folded frames (innermost first) and its allocation call. Results
 * are memoized per distinct frame, so a trace with many sites sharing frames costs
 * little. */
#ifndef VT_RULES_H
#define VT_RULES_H

#include <stddef.h>
#include <stdint.h>

#include "vt_sites.h"

typedef struct vt_rules vt_rules;

/* What a rule set says of one group. */
typedef struct {
    int      matched;       /* a category rule matched */
    uint8_t  cat;           /* the rule's first category (its default) */
    uint8_t  ncats;         /* categories it allows: 1 = decided, more = lifetimes choose */
    uint16_t allowed;       /* bit per vt_cat */
    uint16_t section;       /* vt_rules_section() id; 0 = none */
    uint32_t line;          /* line of the rule in its source */
    int      frame;         /* index of the frame it matched, -1: no frame condition */
    int      cache;         /* a `cache` rule matched some frame */
    uint16_t cache_section;
    int      recompute;     /* the innermost frame a `recomputed` rule (1) or a `-recomputed`
                             * rule (2) matched; 0: none. Recomputed: made again in a backward
                             * by activation checkpointing */
} vt_rules_match;

/* Parses rules from text. `origin` names the source in messages and in section names
 * ("FILE" or "built-in"). Returns NULL and writes one line to err on a syntax error
 * (with the line number) or out of memory. */
vt_rules *vt_rules_parse(const char *text, size_t len, const char *origin, char *err, size_t errn);

/* Reads and parses a file. */
vt_rules *vt_rules_load(const char *path, char *err, size_t errn);

/* The built-in rules: analysis/default-rules.txt, embedded at build time as vt_rules_default.c. */
extern const char vt_rules_default_text[];
vt_rules *vt_rules_default(char *err, size_t errn);

/* Chains `next` after `r`: matching tries r's rules first, then next's. r owns next. */
void vt_rules_chain(vt_rules *r, vt_rules *next);

void vt_rules_free(vt_rules *r);

/* Matches a site and allocation kind against the chain. Each set in turn: the innermost
 * frame that any of its rules matches decides, and at that frame the rule listed first;
 * a later set is tried only when no rule of the earlier ones matched. */
void vt_rules_match_site(vt_rules *r, const vt_site *s, unsigned kind, vt_rules_match *m);

/* The class the first `class:` rule matching frame f names (vt_fclass; a file's rules
 * before the built-in ones), or -1 when none does. Not memoized: vt_fclass_assign asks
 * once per distinct frame. */
int vt_rules_frame_class(vt_rules *r, const vt_site_frame *f);

/* Frees the match memo of every set of the chain (matching still works, and memoizes
 * afresh): after the last group is matched, its memory is better given back. */
void vt_rules_forget(vt_rules *r);

/* Section names: "[name]" headers in the text, qualified by origin for user files
 * ("rules.txt:pytorch"); id 0 is "". Ids are unique over a chain. */
const char *vt_rules_section(const vt_rules *r, uint16_t id);

/* Rules in the chain (for messages). */
size_t vt_rules_count(const vt_rules *r);

/* Helpers exposed for tests. */
int vt_rules_glob(const char *pattern, const char *text);
/* "ns::f(int) const [clone .isra.0]" -> length of "ns::f"; the whole length when the
 * text has no parameter list. */
size_t vt_rules_bare_len(const char *function);

#endif /* VT_RULES_H */
