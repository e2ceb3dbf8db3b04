// SPDX-License-Identifier: MIT
/* vt_rules.c - category rules: parsing, and matching against folded sites. */
#include "vt_rules.h"
#include "vt_cat_list.h"
#include "vt_names.h"

#include <errno.h>
#include <fnmatch.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ *
 *  Rules
 * ------------------------------------------------------------------------ */
enum { K_FUNCTION, K_FILE, K_MODULE, K_FRAME, K_CALL };

typedef struct {
    uint8_t key;
    uint8_t is_re;
    uint8_t bare;           /* function glob without '(': matched against the bare name */
    uint8_t base;           /* file glob without '/': matched against the base name */
    uint8_t frame_kind;     /* K_FRAME: vt_frame_kind */
    uint8_t star_only;      /* glob: no '?', '[' or '\\': star_match, not fnmatch */
    uint16_t pre_len;       /* regex: text must start with pat[1 .. 1 + pre_len) (re_prefix) */
    char *pat;
    char **lits;            /* regex: text must hold one of these (re_literals); NULL: none */
    int nlits;
    uint8_t lits_at_start;  /* ... and at its start */
    int8_t last_hit;        /* cond_frame's answer for last_text: interned strings repeat */
    const char *last_text;
    regex_t re;
} cond;

typedef struct {
    uint8_t is_cache;
    uint8_t recompute;      /* a `recomputed` (1) or `-recomputed` (2) rule: it decides no category */
    uint8_t fclass;         /* a `class:NAME` rule: vt_fclass + 1; it decides no category */
    uint8_t cat, ncats;
    uint16_t allowed;
    uint16_t section;       /* local id, 0 = none */
    uint32_t line;
    cond *conds;
    int nconds;
    int frame_conds;        /* conditions on a frame (all but call=) */
} rule;

/* Contexts: what a frame has but its function (module, file, frame kind) and the call
 * -> the rules whose conditions on those all hold there, in order (r->cand[first ..
 * first + n)). A trace's frames share few contexts, and most rules fail on one of
 * those fields, so a frame the memo has not seen runs the function conditions of the
 * few rules left rather than every rule. */
typedef struct {
    const char *module, *file, *file_base;
    uint8_t fkind, call, used;
    uint32_t id;            /* in order of making: the memo's key (slots move on growth) */
    uint32_t first, n;
} ctx_ent;

/* Memo: (function, context) -> first matching category rule and first matching cache
 * rule. Frame strings are interned by vt_sites, so pointers compare as strings. 16
 * bytes, up to 3/4 full: one per distinct frame of a trace's stacks, up to
 * MEMO_MAX_SLOTS; it is held while the sites are, at the analysis' peak. */
typedef struct {
    const char *function;   /* NULL: an empty slot */
    uint32_t ctx;
    int16_t cat_rule, cache_rule;
} memo_ent;
#define MEMO_MAX_RULES INT16_MAX            /* rule indexes a memo_ent can hold */
/* Slots at most (4 MiB): past that the memo keeps what it knows and takes no more, so
 * that a trace of very many distinct frames (unresolved ones, each its own name) does
 * not make it the largest thing the analysis holds; the contexts keep a frame it
 * misses cheap to match. */
#define MEMO_MAX_SLOTS (1u << 18)

struct vt_rules {
    char *origin;
    rule *rules;
    size_t n, cap;
    char **sections;        /* local id - 1 -> name */
    size_t nsections;
    uint16_t base;          /* ids of this set are base + local */
    memo_ent *memo;
    size_t memo_mask, memo_n;
    ctx_ent *ctx;
    size_t ctx_mask, ctx_n;
    uint32_t *cand;
    size_t ncand, cand_cap;
    vt_rules *next;
};

static void set_err(char *err, size_t errn, const char *fmt, ...)
{
    if (!err || !errn) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errn, fmt, ap);
    va_end(ap);
}

void vt_rules_free(vt_rules *r)
{
    while (r) {
        vt_rules *next = r->next;
        for (size_t i = 0; i < r->n; i++) {
            for (int k = 0; k < r->rules[i].nconds; k++) {
                cond *c = &r->rules[i].conds[k];
                if (c->is_re) regfree(&c->re);
                free(c->pat);
                for (int l = 0; l < c->nlits; l++) free(c->lits[l]);
                free(c->lits);
            }
            free(r->rules[i].conds);
        }
        free(r->rules);
        for (size_t i = 0; i < r->nsections; i++) free(r->sections[i]);
        free(r->sections);
        free(r->memo);
        free(r->ctx);
        free(r->cand);
        free(r->origin);
        free(r);
        r = next;
    }
}

void vt_rules_chain(vt_rules *r, vt_rules *next)
{
    vt_rules *last = r;
    while (last->next) last = last->next;
    last->next = next;
    for (vt_rules *p = next; p; p = p->next) {
        p->base = (uint16_t)(last->base + last->nsections);
        last = p;
    }
}

size_t vt_rules_count(const vt_rules *r)
{
    size_t n = 0;
    for (; r; r = r->next) n += r->n;
    return n;
}

const char *vt_rules_section(const vt_rules *r, uint16_t id)
{
    if (!id) return "";
    for (; r; r = r->next)
        if (id > r->base && id <= r->base + r->nsections) return r->sections[id - r->base - 1];
    return "";
}

/* ------------------------------------------------------------------------ *
 *  Names
 * ------------------------------------------------------------------------ */
size_t vt_rules_bare_len(const char *s)
{
    int depth = 0;
    size_t n = strlen(s);
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '<') depth++;
        else if (c == '>' && depth > 0) depth--;
        else if (c == '(' && depth == 0) {
            if (strncmp(s + i, "(anonymous namespace)", 21) == 0) { i += 20; continue; }
            if (i >= 8 && strncmp(s + i - 8, "operator", 8) == 0 && s[i + 1] == ')') { i++; continue; }
            if (i == 0) continue;
            return i;
        }
    }
    const char *clone = strstr(s, " [clone");
    return clone ? (size_t)(clone - s) : n;
}

int vt_rules_glob(const char *pattern, const char *text)
{
    return fnmatch(pattern, text, 0) == 0;
}

/* ------------------------------------------------------------------------ *
 *  Parsing
 * ------------------------------------------------------------------------ */
/* Next whitespace-separated token of *p into out (quotes and backslashes in a value
 * resolved). Returns 0 at the end of the line or a comment, -1 on an unterminated quote. */
static int next_token(const char **p, char *out, size_t outn, size_t *outlen)
{
    const char *s = *p;
    while (*s == ' ' || *s == '\t' || *s == '\r') s++;
    if (!*s || *s == '\n' || *s == '#') {
        *p = s;
        return 0;
    }
    size_t k = 0;
    int quoted = 0;
    while (*s && *s != '\n' && (quoted || (*s != ' ' && *s != '\t' && *s != '\r'))) {
        char c = *s++;
        if (c == '"') { quoted = !quoted; continue; }
        if (c == '\\' && quoted && (*s == '"' || *s == '\\')) c = *s++;
        if (k + 1 < outn) out[k++] = c;
    }
    out[k] = 0;
    *outlen = k;
    *p = s;
    return quoted ? -1 : 1;
}

static int add_section(vt_rules *r, const char *name, size_t n)
{
    char **p = realloc(r->sections, (r->nsections + 1) * sizeof *p);
    if (!p) return -1;
    r->sections = p;
    size_t ol = strcmp(r->origin, "built-in") ? strlen(r->origin) + 1 : 0;
    char *s = malloc(ol + n + 1);
    if (!s) return -1;
    if (ol) {
        memcpy(s, r->origin, ol - 1);
        s[ol - 1] = ':';
    }
    memcpy(s + ol, name, n);
    s[ol + n] = 0;
    r->sections[r->nsections++] = s;
    return 0;
}

static int parse_cats(rule *ru, const char *tok)
{
    if (!strncmp(tok, "class:", 6)) {
        int c = vt_fclass_parse(tok + 6);
        if (c < 0) return -1;
        ru->fclass = (uint8_t)(c + 1);
        return 0;
    }
    if (!strcmp(tok, "cache")) {
        ru->is_cache = 1;
        return 0;
    }
    if (!strcmp(tok, "recomputed") || !strcmp(tok, "-recomputed")) {
        ru->recompute = tok[0] == '-' ? 2 : 1;
        return 0;
    }
    const char *s = tok;
    while (*s) {
        const char *bar = strchr(s, '|');
        size_t n = bar ? (size_t)(bar - s) : strlen(s);
        char name[32];
        if (n == 0 || n >= sizeof name) return -1;
        memcpy(name, s, n);
        name[n] = 0;
        int c = vt_cat_parse(name);
        if (c < 0) return -1;
        if (!ru->ncats) ru->cat = (uint8_t)c;
        if (!(ru->allowed & (1u << c))) ru->ncats++;
        ru->allowed |= (uint16_t)(1u << c);
        s += n;
        if (*s == '|') s++;
    }
    return ru->ncats ? 0 : -1;
}

/* A '|' outside any group (an unterminated bracket expression counts as one). */
static int top_level_alt(const char *re)
{
    int depth = 0;
    for (const char *p = re; *p; p++) {
        if (*p == '\\' && p[1]) { p++; continue; }
        if (*p == '[') {                       /* a bracket expression: all literal */
            p++;
            if (*p == '^') p++;
            if (*p == ']') p++;
            while (*p && *p != ']') p++;
            if (!*p) return 1;
            continue;
        }
        if (*p == '(') depth++;
        else if (*p == ')') depth--;
        else if (*p == '|' && depth <= 0) return 1;
    }
    return 0;
}

/* The literal text an anchored extended regex needs at the start of what it matches
 * ("^torch::optim::" -> "torch::optim::"): a cheap test that rules most text out before
 * regexec runs. 0 when there is none or an alternation at the top level could match
 * without it. */
static uint16_t re_prefix(const char *re)
{
    if (re[0] != '^' || top_level_alt(re)) return 0;  /* any top-level '|': no prefix */
    size_t n = strcspn(re + 1, ".[]()*+?{}|\\^$");
    /* a quantifier that allows none of the last character makes it optional */
    if (n && (re[1 + n] == '*' || re[1 + n] == '?' || re[1 + n] == '{')) n--;
    return n > UINT16_MAX ? UINT16_MAX : (uint16_t)n;
}

/* The literals an extended regex needs one of: a regex of literal characters alone,
 * or one that starts with a group of literal alternatives ("(Autotun|autotun)",
 * "^(cublas|cudnn)[A-Z_]"); anchored by '^' they must start the text. Frames are
 * mostly unresolved or unrelated names, and a substring search rules them out in a
 * fraction of regexec's time. Returns 0 (none found: regexec decides alone) or the count. */
static int is_lit(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           ch == '_' || ch == ':' || ch == '-' || ch == '/' || ch == ' ' || ch == '<' || ch == '>' ||
           ch == ',' || ch == '=' || ch == '@' || ch == '%' || ch == '!' || ch == '#' || ch == '~';
}

static int re_literals(cond *c, const char *re)
{
    const char *p = re;
    c->lits_at_start = *p == '^';
    if (*p == '^') p++;
    const char *start = p, *stop;
    if (*p == '(') {
        start = ++p;
        while (is_lit(*p) || *p == '|') p++;
        /* an optional group, or a top-level '|' after it, needs none of them */
        if (*p != ')' || p[1] == '?' || p[1] == '*' || p[1] == '{' || top_level_alt(p + 1)) return 0;
        stop = p;
    } else {
        while (is_lit(*p)) p++;
        if (*p) return 0;            /* literal up to the end, or nothing known */
        stop = p;
    }
    int n = 1;
    for (const char *q = start; q < stop; q++) n += *q == '|';
    c->lits = calloc((size_t)n, sizeof *c->lits);
    if (!c->lits) return 0;
    for (const char *q = start; c->nlits < n; q++) {
        const char *e = q;
        while (e < stop && *e != '|') e++;
        if (e == q || !(c->lits[c->nlits] = strndup(q, (size_t)(e - q)))) {  /* an empty one: no test */
            for (int l = 0; l < c->nlits; l++) free(c->lits[l]);
            free(c->lits);
            c->lits = NULL;
            return c->nlits = 0;
        }
        c->nlits++;
        q = e;
    }
    return c->nlits;
}

/* A rule's conditions must all hold, in any order: the cheap tests go first, so that a
 * frame that fits no rule (most frames) fails before a regular expression runs. */
static int cond_cost(const cond *c)
{
    if (c->key == K_FRAME) return 0;
    if (c->is_re) return 3;
    return c->key == K_FUNCTION ? 2 : 1;
}

static void sort_conds(cond *c, int n)
{
    for (int i = 1; i < n; i++) {
        cond x = c[i];
        int j = i;
        for (; j > 0 && cond_cost(&c[j - 1]) > cond_cost(&x); j--) c[j] = c[j - 1];
        c[j] = x;
    }
}

static int parse_cond(cond *c, const char *tok, char *msg, size_t msgn)
{
    static const char *const keys[] = { "function", "file", "module", "frame", "call" };
    const char *op = tok + strcspn(tok, "=~");
    if (!*op) {
        snprintf(msg, msgn, "'%.200s' is not a condition (KEY=GLOB or KEY~REGEX; keys: function, file, "
                 "module, frame, call)", tok);
        return -1;
    }
    size_t kl = (size_t)(op - tok);
    int key = -1;
    for (int i = 0; i < 5; i++)
        if (strlen(keys[i]) == kl && !strncmp(tok, keys[i], kl)) key = i;
    if (key < 0) {
        snprintf(msg, msgn, "unknown key '%.*s' (function, file, module, frame, call)", (int)kl, tok);
        return -1;
    }
    const char *val = op + 1;
    if (!*val) {
        snprintf(msg, msgn, "empty pattern for '%.*s'", (int)kl, tok);
        return -1;
    }
    memset(c, 0, sizeof *c);
    c->key = (uint8_t)key;
    if (key == K_FRAME) {
        if (*op != '=') { snprintf(msg, msgn, "frame takes =native, =python or =scope"); return -1; }
        if (!strcmp(val, "native")) c->frame_kind = VT_FRAME_NATIVE;
        else if (!strcmp(val, "python")) c->frame_kind = VT_FRAME_PYTHON;
        else if (!strcmp(val, "scope")) c->frame_kind = VT_FRAME_SCOPE;
        else { snprintf(msg, msgn, "bad frame kind '%.100s' (native, python or scope)", val); return -1; }
        return 0;
    }
    c->pat = strdup(val);
    if (!c->pat) { snprintf(msg, msgn, "out of memory"); return -1; }
    if (*op == '~') {
        c->is_re = 1;
        int rc = regcomp(&c->re, val, REG_EXTENDED | REG_NOSUB);
        if (rc) {
            char e[128];
            regerror(rc, &c->re, e, sizeof e);
            snprintf(msg, msgn, "bad regular expression '%.200s': %s", val, e);
            free(c->pat);
            c->pat = NULL;
            c->is_re = 0;
            return -1;
        }
        c->pre_len = re_prefix(val);
        re_literals(c, val);
    } else {
        c->bare = key == K_FUNCTION && !strchr(val, '(');
        c->base = key == K_FILE && !strchr(val, '/');
        c->star_only = !strpbrk(val, "?[\\");
    }
    c->last_hit = -1;
    return 0;
}

vt_rules *vt_rules_parse(const char *text, size_t len, const char *origin, char *err, size_t errn)
{
    vt_rules *r = calloc(1, sizeof *r);
    if (!r || !(r->origin = strdup(origin))) {
        free(r);
        set_err(err, errn, "out of memory");
        return NULL;
    }
    /* The text need not end in NUL: work on a copy. */
    char *buf = malloc(len + 1);
    if (!buf) goto nomem;
    memcpy(buf, text, len);
    buf[len] = 0;
    uint16_t section = 0;
    uint32_t lineno = 0;
    char tok[1024], msg[512];
    for (const char *line = buf; *line;) {
        const char *eol = strchr(line, '\n');
        const char *p = line;
        lineno++;
        size_t tl;
        int t = next_token(&p, tok, sizeof tok, &tl);
        if (t < 0) { snprintf(msg, sizeof msg, "unterminated quote"); goto bad; }
        if (t == 0) goto next_line;
        if (tok[0] == '[') {
            if (tl < 3 || tok[tl - 1] != ']') { snprintf(msg, sizeof msg, "a section is [name]"); goto bad; }
            if (add_section(r, tok + 1, tl - 2)) goto nomem;
            section = (uint16_t)r->nsections;
            if (next_token(&p, tok, sizeof tok, &tl)) { snprintf(msg, sizeof msg, "text after the section name"); goto bad; }
            goto next_line;
        }
        if (r->n == r->cap) {
            size_t c = r->cap ? r->cap * 2 : 64;
            rule *q = realloc(r->rules, c * sizeof *q);
            if (!q) goto nomem;
            r->rules = q;
            r->cap = c;
        }
        rule *ru = &r->rules[r->n];
        memset(ru, 0, sizeof *ru);
        ru->line = lineno;
        ru->section = section;
        if (parse_cats(ru, tok)) {
            snprintf(msg, sizeof msg, "unknown category '%.100s' (weights, activations, gradients, "
                     "optimizer_state, workspace, temporary, communication, host_pinned, other, joined by '|'; or cache; or "
                     "class:user|library|framework|interpreter|plumbing)", tok);
            goto bad;
        }
        r->n++; /* from here on vt_rules_free frees what the rule holds */
        while ((t = next_token(&p, tok, sizeof tok, &tl)) != 0) {
            if (t < 0) { snprintf(msg, sizeof msg, "unterminated quote"); goto bad; }
            cond *q = realloc(ru->conds, (size_t)(ru->nconds + 1) * sizeof *q);
            if (!q) goto nomem;
            ru->conds = q;
            if (parse_cond(&ru->conds[ru->nconds], tok, msg, sizeof msg)) goto bad;
            if (ru->conds[ru->nconds].key != K_CALL) ru->frame_conds++;
            ru->nconds++;
        }
        if (!ru->nconds) { snprintf(msg, sizeof msg, "a rule needs at least one condition"); goto bad; }
        if (ru->fclass && ru->frame_conds != ru->nconds) {
            snprintf(msg, sizeof msg, "a class: rule is about a frame: call= has no place in it");
            goto bad;
        }
        sort_conds(ru->conds, ru->nconds);
    next_line:
        if (!eol) break;
        line = eol + 1;
    }
    free(buf);
    return r;
bad:
    set_err(err, errn, "%s:%u: %s", origin, lineno, msg);
    free(buf);
    vt_rules_free(r);
    return NULL;
nomem:
    set_err(err, errn, "out of memory");
    free(buf);
    vt_rules_free(r);
    return NULL;
}

vt_rules *vt_rules_load(const char *path, char *err, size_t errn)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        set_err(err, errn, "%s: %s", path, strerror(errno));
        return NULL;
    }
    char *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n + 4096 > cap) {
            size_t c = cap ? cap * 2 : 8192;
            char *p = realloc(buf, c);
            if (!p) { free(buf); fclose(f); set_err(err, errn, "out of memory"); return NULL; }
            buf = p;
            cap = c;
        }
        size_t k = fread(buf + n, 1, cap - n, f);
        n += k;
        if (k == 0) break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        set_err(err, errn, "%s: read error", path);
        return NULL;
    }
    vt_rules *r = vt_rules_parse(buf ? buf : "", n, path, err, errn);
    free(buf);
    return r;
}

vt_rules *vt_rules_default(char *err, size_t errn)
{
    return vt_rules_parse(vt_rules_default_text, strlen(vt_rules_default_text), "built-in", err, errn);
}

/* ------------------------------------------------------------------------ *
 *  Matching
 * ------------------------------------------------------------------------ */
/* fnmatch(pat, text, 0) for a pattern whose only special character is '*' (which then
 * matches any text, '/' and a leading '.' included): the literal pieces between stars in
 * order, the first at the start and the last at the end. Leftmost is always right for
 * the pieces in between. */
static int star_match(const char *pat, const char *text)
{
    const char *star = strchr(pat, '*');
    if (!star) return strcmp(pat, text) == 0;
    size_t n = (size_t)(star - pat), tn = strlen(text);
    if (n > tn || memcmp(pat, text, n)) return 0;
    const char *t = text + n, *tend = text + tn;
    for (pat = star + 1;; pat = star + 1) {
        star = strchr(pat, '*');
        if (!star) {
            size_t m = strlen(pat);
            return (size_t)(tend - t) >= m && memcmp(tend - m, pat, m) == 0;
        }
        size_t m = (size_t)(star - pat);
        if (!m) continue;
        const char *hit = memmem(t, (size_t)(tend - t), pat, m);
        if (!hit) return 0;
        t = hit + m;
    }
}

static int cond_text(const cond *c, const char *text)
{
    if (!text) return 0;
    if (c->is_re) {
        /* the first byte before the call: it rules out most text */
        if (c->pre_len && (text[0] != c->pat[1] || strncmp(text, c->pat + 1, c->pre_len) != 0)) return 0;
        if (c->nlits) {
            int any = 0;
            for (int l = 0; l < c->nlits && !any; l++)
                any = c->lits_at_start ? text[0] == c->lits[l][0] && strncmp(text, c->lits[l], strlen(c->lits[l])) == 0
                                       : strstr(text, c->lits[l]) != NULL;
            if (!any) return 0;
        }
        return regexec(&c->re, text, 0, NULL, 0) == 0;
    }
    return c->star_only ? star_match(c->pat, text) : fnmatch(c->pat, text, 0) == 0;
}

/* The answer for an interned string, remembered for the next frame that names the
 * same one (a module, a file: consecutive frames share them). */
static int cond_interned(cond *c, const char *text)
{
    if (text && text == c->last_text) return c->last_hit;
    int hit = cond_text(c, text);
    c->last_text = text;
    c->last_hit = (int8_t)hit;
    return hit;
}

static int cond_frame(cond *c, const vt_site_frame *f, unsigned kind)
{
    switch (c->key) {
    case K_FUNCTION:
        if (c->bare) {
            size_t n = vt_rules_bare_len(f->function);
            if (f->function[n] == 0) return cond_interned(c, f->function);
            char buf[1024];
            if (n >= sizeof buf) n = sizeof buf - 1;
            memcpy(buf, f->function, n);
            buf[n] = 0;
            return cond_text(c, buf);
        }
        return cond_interned(c, f->function);
    case K_FILE: return cond_interned(c, c->base ? f->file_base : f->file);
    case K_MODULE: return cond_interned(c, f->module);
    case K_FRAME: return f->kind == c->frame_kind;
    case K_CALL: return cond_text(c, vt_kind_name(kind));
    }
    return 0;
}

/* The rule's conditions on the function (functions = 1) or on all else (0) hold. */
static int rule_part(rule *ru, const vt_site_frame *f, unsigned kind, int functions)
{
    for (int k = 0; k < ru->nconds; k++)
        if ((ru->conds[k].key == K_FUNCTION) == functions && !cond_frame(&ru->conds[k], f, kind)) return 0;
    return 1;
}

static size_t ctx_hash(const char *module, const char *file, unsigned fkind, unsigned call)
{
    uint64_t h = (uint64_t)(uintptr_t)module * 0x9e3779b97f4a7c15ull;
    h ^= (uint64_t)(uintptr_t)file * 0xc2b2ae3d27d4eb4full;
    h ^= ((uint64_t)fkind << 8 | call) * 0x27d4eb2f165667c5ull;
    return (size_t)vt_hash64(h);
}

static int ctx_grow(vt_rules *r)
{
    size_t cap = r->ctx ? (r->ctx_mask + 1) * 2 : 64;
    ctx_ent *c = calloc(cap, sizeof *c);
    if (!c) return -1;
    for (size_t i = 0; r->ctx && i <= r->ctx_mask; i++) {
        const ctx_ent *e = &r->ctx[i];
        if (!e->used) continue;
        size_t j = ctx_hash(e->module, e->file, e->fkind, e->call) & (cap - 1);
        while (c[j].used) j = (j + 1) & (cap - 1);
        c[j] = *e;
    }
    free(r->ctx);
    r->ctx = c;
    r->ctx_mask = cap - 1;
    return 0;
}

/* The context of frame f under call kind, made on first sight; NULL: out of memory. */
static const ctx_ent *context(vt_rules *r, const vt_site_frame *f, unsigned kind)
{
    if ((r->ctx_n + 1) * 4 > (r->ctx ? r->ctx_mask + 1 : 0) * 3 && ctx_grow(r)) return NULL;
    size_t i = ctx_hash(f->module, f->file, f->kind, kind) & r->ctx_mask;
    for (;; i = (i + 1) & r->ctx_mask) {
        ctx_ent *e = &r->ctx[i];
        if (!e->used) break;
        if (e->module == f->module && e->file == f->file && e->file_base == f->file_base &&
            e->fkind == f->kind && e->call == kind)
            return e;
    }
    ctx_ent e = { f->module, f->file, f->file_base, (uint8_t)f->kind, (uint8_t)kind, 1, (uint32_t)r->ctx_n,
                  (uint32_t)r->ncand, 0 };
    for (size_t k = 0; k < r->n; k++) {
        rule *ru = &r->rules[k];
        if (!ru->frame_conds || ru->fclass || !rule_part(ru, f, kind, 0)) continue;
        if (r->ncand == r->cand_cap) {
            size_t c = r->cand_cap ? r->cand_cap * 2 : 256;
            uint32_t *p = realloc(r->cand, c * sizeof *p);
            if (!p) return NULL;
            r->cand = p;
            r->cand_cap = c;
        }
        r->cand[r->ncand++] = (uint32_t)k;
        e.n++;
    }
    r->ctx[i] = e;
    r->ctx_n++;
    return &r->ctx[i];
}

/* Rules without frame conditions: they test only the allocation call. */
static int rule_call(const rule *ru, unsigned kind)
{
    for (int k = 0; k < ru->nconds; k++)
        if (!cond_text(&ru->conds[k], vt_kind_name(kind))) return 0;
    return 1;
}

static size_t memo_hash(const char *function, uint32_t ctx)
{
    return (size_t)vt_hash64((uint64_t)(uintptr_t)function * 0x9e3779b97f4a7c15ull ^ ctx);
}

static int memo_grow(vt_rules *r)
{
    size_t cap = r->memo ? (r->memo_mask + 1) * 2 : 1024;
    if (cap > MEMO_MAX_SLOTS) return -1;
    memo_ent *m = calloc(cap, sizeof *m);
    if (!m) return -1;
    for (size_t i = 0; r->memo && i <= r->memo_mask; i++) {
        memo_ent *e = &r->memo[i];
        if (!e->function) continue;
        size_t j = memo_hash(e->function, e->ctx) & (cap - 1);
        while (m[j].function) j = (j + 1) & (cap - 1);
        m[j] = *e;
    }
    free(r->memo);
    r->memo = m;
    r->memo_mask = cap - 1;
    return 0;
}

/* First category rule and first cache rule of set r matching frame f (-1: none). */
static void frame_rules(vt_rules *r, const vt_site_frame *f, unsigned kind, int *cat_rule, int *cache_rule)
{
    const ctx_ent *cx = context(r, f, kind);
    int memo = cx && r->n <= MEMO_MAX_RULES && f->function;
    if (memo && (r->memo_n + 1) * 4 > (r->memo ? r->memo_mask + 1 : 0) * 3) memo_grow(r);
    size_t i = 0;
    if (memo && r->memo) {
        for (i = memo_hash(f->function, cx->id) & r->memo_mask; r->memo[i].function; i = (i + 1) & r->memo_mask) {
            const memo_ent *e = &r->memo[i];
            if (e->function == f->function && e->ctx == cx->id) {
                *cat_rule = e->cat_rule;
                *cache_rule = e->cache_rule;
                return;
            }
        }
    }
    *cat_rule = *cache_rule = -1;
    size_t nk = cx ? cx->n : r->n;
    for (size_t j = 0; j < nk && (*cat_rule < 0 || *cache_rule < 0); j++) {
        size_t k = cx ? r->cand[cx->first + j] : j;
        rule *ru = &r->rules[k];
        if (!ru->frame_conds || ru->fclass) continue;
        int mod = ru->is_cache || ru->recompute;
        if (mod ? *cache_rule >= 0 : *cat_rule >= 0) continue;
        if ((cx || rule_part(ru, f, kind, 0)) && rule_part(ru, f, kind, 1)) {
            if (mod) *cache_rule = (int)k;
            else *cat_rule = (int)k;
        }
    }
    /* when the memo could not grow, the answer is simply not kept */
    if (memo && r->memo && (r->memo_n + 1) * 4 <= (r->memo_mask + 1) * 3) {
        r->memo[i] = (memo_ent){ f->function, cx->id, (int16_t)*cat_rule, (int16_t)*cache_rule };
        r->memo_n++;
    }
}

void vt_rules_forget(vt_rules *r)
{
    for (; r; r = r->next) {
        free(r->memo);
        r->memo = NULL;
        r->memo_mask = r->memo_n = 0;
        free(r->ctx);
        r->ctx = NULL;
        r->ctx_mask = r->ctx_n = r->ncand = 0;
        for (size_t i = 0; i < r->n; i++)
            for (int k = 0; k < r->rules[i].nconds; k++) r->rules[i].conds[k].last_text = NULL;
    }
}

static void take(vt_rules_match *m, const vt_rules *r, const rule *ru, int frame)
{
    m->matched = 1;
    m->cat = ru->cat;
    m->ncats = ru->ncats;
    m->allowed = ru->allowed;
    m->section = ru->section ? (uint16_t)(r->base + ru->section) : 0;
    m->line = ru->line;
    m->frame = frame;
}

void vt_rules_match_site(vt_rules *r, const vt_site *s, unsigned kind, vt_rules_match *m)
{
    memset(m, 0, sizeof *m);
    m->frame = -1;
    for (; r; r = r->next) {
        /* Rules on the call alone come first: no frame is more inner than none. */
        if (!m->matched) {
            for (size_t k = 0; k < r->n; k++) {
                const rule *ru = &r->rules[k];
                if (ru->frame_conds || ru->recompute || !rule_call(ru, kind)) continue;
                if (ru->is_cache) {
                    if (!m->cache) { m->cache = 1; m->cache_section = ru->section ? (uint16_t)(r->base + ru->section) : 0; }
                } else {
                    take(m, r, ru, -1);
                    break;
                }
            }
        }
        for (uint32_t i = 0; i < (s ? s->nframes : 0); i++) {
            if (m->matched && m->cache && m->recompute) break;
            int cr, kr;
            frame_rules(r, &s->frames[i], kind, &cr, &kr);
            /* modifiers: the innermost frame a `cache` rule matches, and the innermost
             * one a `recomputed` or `-recomputed` rule matches, decide */
            if (kr >= 0 && r->rules[kr].recompute) {
                if (!m->recompute) m->recompute = r->rules[kr].recompute;
            } else if (kr >= 0 && !m->cache) {
                const rule *ru = &r->rules[kr];
                m->cache = 1;
                m->cache_section = ru->section ? (uint16_t)(r->base + ru->section) : 0;
            }
            if (cr >= 0 && !m->matched) take(m, r, &r->rules[cr], (int)i);
        }
    }
}

int vt_rules_frame_class(vt_rules *r, const vt_site_frame *f)
{
    for (; r; r = r->next)
        for (size_t k = 0; k < r->n; k++) {
            rule *ru = &r->rules[k];
            if (ru->fclass && rule_part(ru, f, 0, 0) && rule_part(ru, f, 0, 1)) return ru->fclass - 1;
        }
    return -1;
}
