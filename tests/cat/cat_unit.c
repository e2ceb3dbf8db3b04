// SPDX-License-Identifier: MIT
/* cat_unit.c - unit tests of categories: names, rule parsing and precedence, the
 * plumbing test of static CUDA runtimes, frame classes and ATen op names, and lifetime inference on synthetic training
 * loops whose answer is known by construction. Prints one line per failed check and
 * exits 1 when any failed. */
#include "vt_cat.h"
#include "vt_fclass.h"
#include "vt_rules.h"
#include "vt_sites.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures, checks;

#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        checks++;                                                          \
        if (!(cond)) {                                                     \
            failures++;                                                    \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                    \
            printf(__VA_ARGS__);                                           \
            printf("\n");                                                  \
        }                                                                  \
    } while (0)

/* ------------------------------------------------------------------------ *
 *  Names, plumbing, bare function names
 * ------------------------------------------------------------------------ */
static void test_names(void)
{
    for (int c = 0; c < VT_CAT_N; c++)
        CHECK(vt_cat_parse(vt_cat_name((vt_cat)c)) == c, "round trip of %s", vt_cat_name((vt_cat)c));
    CHECK(vt_cat_parse("weight") == -1, "unknown name");
    CHECK(!strcmp(vt_cat_name(VT_CAT_OPTIMIZER_STATE), "optimizer_state"), "optimizer_state");

    static const struct { const char *f; int want; } pl[] = {
        { "libcudart_static_5382377d5c772c9d197c0cda9fd9742ee6ad893c", 1 },
        { "__cudart1234", 1 },
        { "cudaMalloc", 1 },
        { "cudaMallocAsync", 1 },
        { "cuMemAlloc_v2", 1 },
        { "cuMemCreate", 1 },
        { "cublasCreate_v2", 0 },   /* a library, not the runtime: a site of its own */
        { "cudnnCreate", 0 },
        { "cudaq", 0 },
        { "curand_init", 0 },
        { "mem_alloc(int, unsigned long, char const*)", 0 },
        { "cu", 0 },
    };
    for (size_t i = 0; i < sizeof pl / sizeof pl[0]; i++)
        CHECK(vt_sites_is_plumbing_function(pl[i].f) == pl[i].want, "plumbing(%s) != %d", pl[i].f, pl[i].want);

    static const struct { const char *f; const char *bare; } bn[] = {
        { "alloc_weight(unsigned long, char const*, ...) [clone .constprop.0]", "alloc_weight" },
        { "ns::Klass::method(int) const", "ns::Klass::method" },
        { "foo<bar(int)>::baz(int)", "foo<bar(int)>::baz" },
        { "(anonymous namespace)::helper(int)", "(anonymous namespace)::helper" },
        { "functor::operator()(int)", "functor::operator()" },
        { "plain_c_function", "plain_c_function" },
        { "cold_part [clone .cold]", "cold_part" },
    };
    for (size_t i = 0; i < sizeof bn / sizeof bn[0]; i++) {
        size_t n = vt_rules_bare_len(bn[i].f);
        CHECK(n == strlen(bn[i].bare) && !strncmp(bn[i].f, bn[i].bare, n), "bare(%s) = %.*s", bn[i].f, (int)n, bn[i].f);
    }
}

/* ------------------------------------------------------------------------ *
 *  Rules
 * ------------------------------------------------------------------------ */
static vt_site_frame native(const char *fn, const char *file, const char *module)
{
    vt_site_frame f;
    memset(&f, 0, sizeof f);
    f.function = fn;
    f.file = file;
    f.file_base = file ? (strrchr(file, '/') ? strrchr(file, '/') + 1 : file) : NULL;
    f.module = module;
    f.kind = VT_FRAME_NATIVE;
    f.resolved = 1;
    return f;
}

static vt_site_frame python(const char *fn, const char *file)
{
    vt_site_frame f = native(fn, file, "python");
    f.kind = VT_FRAME_PYTHON;
    return f;
}

static vt_rules *parse(const char *text, const char *origin)
{
    char err[256];
    vt_rules *r = vt_rules_parse(text, strlen(text), origin, err, sizeof err);
    CHECK(r != NULL, "parse failed: %s", err);
    return r;
}

static void expect_error(const char *text, const char *want)
{
    char err[256] = "";
    vt_rules *r = vt_rules_parse(text, strlen(text), "r.txt", err, sizeof err);
    CHECK(!r && strstr(err, want), "error for <%s>: got <%s>, want <%s>", text, err, want);
    vt_rules_free(r);
}

static void test_parse(void)
{
    expect_error("weights\n", "r.txt:1: a rule needs at least one condition");
    expect_error("# c\nweight function=x\n", "r.txt:2: unknown category 'weight'");
    expect_error("weights fn=x\n", "unknown key 'fn'");
    expect_error("weights function\n", "is not a condition");
    expect_error("weights function~(\n", "bad regular expression");
    expect_error("weights function=\"a b\n", "unterminated quote");
    expect_error("weights frame=cxx\n", "bad frame kind");
    expect_error("[x\n", "a section is [name]");
    expect_error("weights|nope function=x\n", "unknown category");
    char err[256];
    vt_rules *d = vt_rules_default(err, sizeof err);
    CHECK(d != NULL, "built-in rules: %s", err);
    CHECK(d && vt_rules_count(d) > 40, "built-in rules: %zu", d ? vt_rules_count(d) : 0);
    vt_rules_free(d);
}

static vt_rules_match match(vt_rules *r, vt_site_frame *f, uint32_t n, unsigned kind)
{
    vt_site s;
    memset(&s, 0, sizeof s);
    s.frames = f;
    s.nframes = n;
    vt_rules_match m;
    vt_rules_match_site(r, &s, kind, &m);
    return m;
}

static void test_precedence(void)
{
    /* innermost matching frame first, whatever the order of the rules */
    vt_rules *r = parse("[t]\nactivations|temporary function=_call_impl file=*/torch/nn/modules/module.py\n"
                        "weights function~(^|\\.)_apply$ file=*/torch/nn/modules/module.py\n", "built-in");
    vt_site_frame st[] = {
        native("at::empty_strided(...)", NULL, "libtorch_cpu.so"),
        python("_apply", "/x/torch/nn/modules/module.py"),
        python("forward", "/x/model.py"),
        python("_call_impl", "/x/torch/nn/modules/module.py"),
        python("<module>", "/x/train.py"),
    };
    vt_rules_match m = match(r, st, 5, VT_KIND_MEM_ALLOC);
    CHECK(m.matched && m.cat == VT_CAT_WEIGHTS && m.frame == 1, "Module.to under forward is weights (got %s at %d)",
          vt_cat_name((vt_cat)m.cat), m.frame);
    m = match(r, st + 2, 3, VT_KIND_MEM_ALLOC);
    CHECK(m.matched && m.cat == VT_CAT_ACTIVATIONS && m.ncats == 2 &&
          m.allowed == ((1u << VT_CAT_ACTIVATIONS) | (1u << VT_CAT_TEMPORARY)), "forward: activations|temporary");
    CHECK(!strcmp(vt_rules_section(r, m.section), "t"), "section of a built-in set: %s", vt_rules_section(r, m.section));
    m = match(r, st, 1, VT_KIND_MEM_ALLOC);
    CHECK(!m.matched, "no rule for a lone native frame");

    /* at one frame, the rule listed first */
    vt_rules *r2 = parse("temporary function=f\nweights function=f\n", "built-in");
    vt_site_frame f1[] = { native("f(int)", "a.c", "prog") };
    m = match(r2, f1, 1, VT_KIND_MEM_ALLOC);
    CHECK(m.matched && m.cat == VT_CAT_TEMPORARY && m.line == 1, "first rule at a frame");
    vt_rules_free(r2);

    /* a user set is tried whole before the defaults, even for an outer frame */
    vt_rules *user = parse("[mine]\nother function=forward\n", "user.rules");
    vt_rules_chain(user, r);
    m = match(user, st, 5, VT_KIND_MEM_ALLOC);
    CHECK(m.matched && m.cat == VT_CAT_OTHER && m.frame == 2, "user rules first");
    CHECK(!strcmp(vt_rules_section(user, m.section), "user.rules:mine"), "user section %s",
          vt_rules_section(user, m.section));
    m = match(user, st + 3, 2, VT_KIND_MEM_ALLOC);
    CHECK(m.matched && m.cat == VT_CAT_ACTIVATIONS && !strcmp(vt_rules_section(user, m.section), "t"),
          "defaults after the user's");
    vt_rules_free(user);

    /* conditions: call, module and file globs, regex, frame kind, quoted values, cache */
    vt_rules *r3 = parse("cache module=libc10_cuda.so call=cuMemAlloc\n"
                         "temporary call=cuMemAllocAsync\n"
                         "workspace module=libcublas.so*\n"
                         "gradients file=bert.cu\n"
                         "optimizer_state file=/src/*/adam.c\n"
                         "activations function=\"layer fwd(int, int)\"\n"
                         "weights frame=scope function=init*\n"
                         "other function~^mem_\n", "built-in");
    vt_site_frame f2[] = { native("x", NULL, "libc10_cuda.so"), native("cublasCreate_v2", NULL, "libcublas.so.13") };
    m = match(r3, f2, 2, VT_KIND_MEM_ALLOC);
    CHECK(m.cache && m.matched && m.cat == VT_CAT_WORKSPACE, "cache flag + module glob");
    m = match(r3, f2, 2, VT_KIND_MEM_ALLOC_ASYNC);
    CHECK(!m.cache && m.matched && m.cat == VT_CAT_TEMPORARY && m.frame == -1, "call condition decides first");
    vt_site_frame f3[] = { native("g", "/w/workloads/bert.cu", "vt-bert") };
    m = match(r3, f3, 1, VT_KIND_MEM_ALLOC);
    CHECK(m.matched && m.cat == VT_CAT_GRADIENTS, "file base-name glob");
    vt_site_frame f4[] = { native("g", "/src/opt/adam.c", "p") };
    m = match(r3, f4, 1, VT_KIND_MEM_ALLOC);
    CHECK(m.matched && m.cat == VT_CAT_OPTIMIZER_STATE, "file path glob");
    vt_site_frame f5[] = { native("layer fwd(int, int)", NULL, "p") };
    m = match(r3, f5, 1, VT_KIND_MEM_ALLOC);
    CHECK(m.matched && m.cat == VT_CAT_ACTIVATIONS, "quoted value with a parameter list");
    vt_site_frame f6[] = { native("init_model", NULL, "p"), native("mem_alloc(int)", NULL, "p") };
    m = match(r3, f6, 2, VT_KIND_MEM_ALLOC);
    CHECK(m.matched && m.cat == VT_CAT_OTHER && m.frame == 1, "frame=scope does not match a native frame");
    f6[0].kind = VT_FRAME_SCOPE;
    m = match(r3, f6, 2, VT_KIND_MEM_ALLOC);
    CHECK(m.matched && m.cat == VT_CAT_WEIGHTS && m.frame == 0, "frame=scope");
    /* the memo must not mix up two calls of the same frames */
    m = match(r3, f2, 2, VT_KIND_MEM_ALLOC);
    CHECK(m.cache && m.cat == VT_CAT_WORKSPACE, "memo keeps the call apart");
    vt_rules_free(r3);

    /* the built-in rules on vt-bert's and cuBLAS's frames */
    char err[256];
    vt_rules *d = vt_rules_default(err, sizeof err);
    static const struct { const char *fn; int cat; } wl[] = {
        { "alloc_weight(unsigned long, char const*, ...)", VT_CAT_WEIGHTS },
        { "alloc_grad(unsigned long, char const*, ...) [clone .constprop.0]", VT_CAT_GRADIENTS },
        { "alloc_optstate(unsigned long, char const*, ...)", VT_CAT_OPTIMIZER_STATE },
        { "alloc_activation(unsigned long, char const*, ...)", VT_CAT_ACTIVATIONS },
        { "alloc_workspace(unsigned long, char const*, ...) [clone .constprop.0]", VT_CAT_WORKSPACE },
        { "alloc_temp(unsigned long, char const*, ...)", VT_CAT_TEMPORARY },
    };
    for (size_t i = 0; d && i < sizeof wl / sizeof wl[0]; i++) {
        vt_site_frame f[] = { native("mem_alloc(int, unsigned long, char const*)", "bert_mem.cuh", "vt-bert"),
                              native(wl[i].fn, "bert_mem.cuh", "vt-bert"), native("main", "bert.cu", "vt-bert") };
        m = match(d, f, 3, VT_KIND_MEM_ALLOC);
        CHECK(m.matched && m.cat == wl[i].cat && m.ncats == 1 &&
              !strcmp(vt_rules_section(d, m.section), "workloads"), "built-in rule for %s", wl[i].fn);
    }
    vt_site_frame cb[] = { native("libcublas.so.13+0x5b45ee", NULL, "libcublas.so.13"),
                           native("cublasCreate_v2", NULL, "libcublas.so.13"), native("main", "bert.cu", "vt-bert") };
    if (d) {
        m = match(d, cb, 3, VT_KIND_MEM_ALLOC);
        CHECK(m.matched && m.cat == VT_CAT_WORKSPACE && !strcmp(vt_rules_section(d, m.section), "cuda-libraries"),
              "cuBLAS's own allocations are workspace");
    }
    vt_rules_free(d);
}

/* The shortcuts of rule matching (star-only globs without fnmatch, the literals a
 * regex needs, answers remembered per interned string) against fnmatch and regexec
 * themselves, on random patterns and texts over a small alphabet. */
static unsigned long long rnd_state = 42;
static unsigned rnd(unsigned n)
{
    rnd_state = rnd_state * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)(rnd_state >> 33) % n;
}

static void rnd_str(char *out, size_t max, const char *alphabet)
{
    size_t n = rnd((unsigned)max), k = strlen(alphabet);
    for (size_t i = 0; i < n; i++) out[i] = alphabet[rnd((unsigned)k)];
    out[n] = 0;
}

static int rule_hits(const char *key, const char *pat, int is_re, const char *text)
{
    char line[256];
    snprintf(line, sizeof line, "weights %s%c\"%s\"\n", key, is_re ? '~' : '=', pat);
    char err[256];
    vt_rules *r = vt_rules_parse(line, strlen(line), "t", err, sizeof err);
    if (!r) return -1;
    vt_site_frame f = native(text, NULL, text);
    vt_rules_match m = match(r, &f, 1, VT_KIND_MEM_ALLOC);
    /* another frame (not in the frame memo) naming the same string: the answer
     * remembered for that string */
    int by_module = !strcmp(key, "module");
    vt_site_frame f2 = native(by_module ? "zz" : text, NULL, by_module ? text : "zz");
    vt_rules_match m2 = match(r, &f2, 1, VT_KIND_MEM_ALLOC);
    vt_rules_free(r);
    if (m.matched != m2.matched) return -2;
    return m.matched;
}

static void test_fast_conds(void)
{
    for (int i = 0; i < 20000; i++) {
        char pat[16], text[16];
        rnd_str(pat, sizeof pat, "ab*/.");
        if (!pat[0]) continue;
        rnd_str(text, sizeof text, "ab/.");
        int want = vt_rules_glob(pat, text);
        int got = rule_hits("module", pat, 0, text);
        CHECK(got == want, "module=%s on <%s>: %d, fnmatch says %d", pat, text, got, want);
    }
    static const char *const res[] = { "^(ab|ba)[a-b]", "(ab|b.a)", "ab", "^ab", "(ab|ba)?b", "(ab|ba)*",
                                       "(ab)|a", "^(a|b)b$", "(aa|bb|ab)b", "b(ab|ba)" };
    for (size_t k = 0; k < sizeof res / sizeof res[0]; k++) {
        regex_t re;
        if (regcomp(&re, res[k], REG_EXTENDED | REG_NOSUB)) continue;
        for (int i = 0; i < 2000; i++) {
            char text[12];
            rnd_str(text, sizeof text, "ab.");
            int want = regexec(&re, text, 0, NULL, 0) == 0;
            int got = rule_hits("function", res[k], 1, text);
            CHECK(got == want, "function~%s on <%s>: %d, regexec says %d", res[k], text, got, want);
        }
        regfree(&re);
    }
}

/* ------------------------------------------------------------------------ *
 *  Lifetime inference on synthetic training loops
 * ------------------------------------------------------------------------ */
typedef struct {
    vt_replay *rp;
    uint64_t t, next_addr;
} sim;

static uint64_t sim_alloc(sim *s, uint32_t stack, uint64_t size)
{
    vt_rec r;
    memset(&r, 0, sizeof r);
    r.type = VT_REC_ALLOC;
    r.kind = VT_KIND_MEM_ALLOC;
    r.stack_id = stack;
    r.time_ns = s->t += 1000;
    r.addr = s->next_addr += 1 << 24;
    r.size = size;
    vt_replay_rec(s->rp, &r);
    return r.addr;
}

static void sim_free(sim *s, uint64_t addr)
{
    vt_rec r;
    memset(&r, 0, sizeof r);
    r.type = VT_REC_FREE;
    r.kind = VT_KIND_MEM_FREE;
    r.time_ns = s->t += 1000;
    r.addr = addr;
    vt_replay_rec(s->rp, &r);
}

enum { S_WEIGHTS = 1, S_WORKSPACE, S_ACT, S_FWD_TMP, S_BWD_TMP, S_GRAD, S_OPT, S_OPT_TMP, S_LOSS, S_INIT_TMP };
#define MB (1u << 20)

/* vt-bert's way: gradients made by the first backward and kept (zero_grad without
 * set_to_none); optimizer state made by the first step. PyTorch's way (set_to_none):
 * gradients made by every backward and freed by the next step's zero_grad; the loss
 * freed after the optimizer step. */
static vt_replay *training(int torch_like, int steps)
{
    sim s = { vt_replay_new(0, 0), 0, 0 };
    if (!s.rp) return NULL;
    vt_replay_keep_catlog(s.rp);
    uint64_t w[10], grad[6] = { 0 }, opt[20], act[6], loss = 0;
    uint64_t ws = sim_alloc(&s, S_WORKSPACE, 4 * MB);
    for (int i = 0; i < 10; i++) w[i] = sim_alloc(&s, S_WEIGHTS, 1 * MB);
    sim_free(&s, sim_alloc(&s, S_INIT_TMP, 3 * MB));
    for (int k = 0; k < steps; k++) {
        if (torch_like)
            for (int i = 0; i < 6; i++)
                if (grad[i]) { sim_free(&s, grad[i]); grad[i] = 0; }  /* zero_grad(set_to_none=True) */
        s.t += 50000;
        for (int i = 0; i < 6; i++) {
            act[i] = sim_alloc(&s, S_ACT, 2 * MB);
            sim_free(&s, sim_alloc(&s, S_FWD_TMP, 1 * MB));
        }
        if (torch_like) {
            if (loss) sim_free(&s, loss);
            loss = sim_alloc(&s, S_LOSS, 4);
        }
        for (int i = 5; i >= 0; i--) {
            uint64_t tmp = sim_alloc(&s, S_BWD_TMP, 1 * MB);
            if (!grad[i]) grad[i] = sim_alloc(&s, S_GRAD, 1 * MB);
            sim_free(&s, tmp);
            sim_free(&s, act[i]);
        }
        s.t += 200000;  /* the optimizer step */
        if (k == 0)
            for (int i = 0; i < 20; i++) opt[i] = sim_alloc(&s, S_OPT, 1 * MB);
        sim_free(&s, sim_alloc(&s, S_OPT_TMP, MB / 2));
        s.t += 50000;
    }
    s.t += 100000;
    for (int i = 0; i < 20; i++) sim_free(&s, opt[i]);
    for (int i = 0; i < 6; i++)
        if (grad[i]) sim_free(&s, grad[i]);
    for (int i = 0; i < 10; i++) sim_free(&s, w[i]);
    sim_free(&s, ws);
    if (loss) sim_free(&s, loss);
    vt_replay_finish(s.rp);
    return s.rp;
}

static int group_of(const vt_replay *rp, uint32_t stack)
{
    const vt_replay_result *res = vt_replay_result_of(rp);
    for (size_t i = 0; i < res->ngroups; i++)
        if (res->groups[i].stack_id == stack) return (int)i;
    return -1;
}

static void test_inference(int torch_like, int steps)
{
    vt_replay *rp = training(torch_like, steps);
    CHECK(rp != NULL, "replay");
    if (!rp) return;
    vt_cat_trace ct;
    CHECK(vt_cat_infer(rp, &ct) == 0, "infer");
    CHECK(ct.niters == (size_t)steps, "%s, %d steps: %zu iterations found", torch_like ? "torch" : "bert", steps,
          ct.niters);
    static const struct { uint32_t stack; int cat; const char *what; } want[] = {
        { S_WEIGHTS, VT_CAT_WEIGHTS, "weights" },
        { S_WORKSPACE, VT_CAT_WEIGHTS, "workspace (lifetimes see weights)" },
        { S_ACT, VT_CAT_ACTIVATIONS, "activations" },
        { S_FWD_TMP, VT_CAT_TEMPORARY, "forward scratch" },
        { S_BWD_TMP, VT_CAT_TEMPORARY, "backward scratch" },
        { S_GRAD, VT_CAT_GRADIENTS, "gradients" },
        { S_OPT, VT_CAT_OPTIMIZER_STATE, "optimizer state" },
        { S_OPT_TMP, VT_CAT_TEMPORARY, "optimizer scratch" },
        { S_INIT_TMP, VT_CAT_TEMPORARY, "start-up scratch" },
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        int g = group_of(rp, want[i].stack);
        CHECK(g >= 0 && ct.inferred[g] == want[i].cat, "%s, %d steps: %s: got %s", torch_like ? "torch" : "bert",
              steps, want[i].what, g >= 0 ? vt_cat_name((vt_cat)ct.inferred[g]) : "no group");
    }
    vt_cat_trace_free(&ct);
    vt_replay_free(rp);
}

/* No training loop: nothing is called activations or gradients. */
static void test_no_iterations(void)
{
    sim s = { vt_replay_new(0, 0), 0, 0 };
    vt_replay_keep_catlog(s.rp);
    uint64_t a = sim_alloc(&s, 1, 8 * MB);
    for (int i = 0; i < 3; i++) sim_free(&s, sim_alloc(&s, 2, MB));
    s.t += 10000000;
    sim_free(&s, a);
    vt_replay_finish(s.rp);
    vt_cat_trace ct;
    CHECK(vt_cat_infer(s.rp, &ct) == 0, "infer");
    CHECK(ct.niters == 0, "no iterations: %zu", ct.niters);
    CHECK(ct.inferred[group_of(s.rp, 2)] == VT_CAT_TEMPORARY, "short-lived: temporary");
    CHECK(ct.inferred[group_of(s.rp, 1)] == VT_CAT_OTHER, "long-lived: other");
    vt_cat_trace_free(&ct);
    vt_replay_free(s.rp);
}

/* Operator names from ATen's symbols, and the built-in class: rules on real names. */
static void test_fclass(void)
{
    static const struct { const char *f, *op; } ops[] = {
        { "at::_ops::log_softmax::call(at::Tensor const&, long, std::optional<c10::ScalarType>)", "log_softmax" },
        { "at::_ops::add_Tensor::redispatch(c10::DispatchKeySet, at::Tensor const&)", "add_Tensor" },
        { "at::(anonymous namespace)::structured_log_softmax_cuda_out_functional::set_output_raw_strided(long)", "log_softmax" },
        { "at::native::(anonymous namespace)::structured_addmm_out_cuda_functional::set_output_strided()", "addmm" },
        { "at::(anonymous namespace)::structured_ufunc_add_CUDA_functional::set_output_raw_strided()", "add" },
        { "torch::autograd::VariableType::(anonymous namespace)::addmm(c10::DispatchKeySet, at::Tensor const&)", "addmm" },
        { "torch::autograd::VariableType::(anonymous namespace)::Foo::bar()", NULL },
        { "c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::malloc(int, unsigned long)", NULL },
        { "unstructured_thing()", NULL },
        { "libtorch_cuda.so+0x1234", NULL },
    };
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) {
        char buf[128];
        size_t n = vt_fclass_op(ops[i].f, buf, sizeof buf);
        if (ops[i].op) CHECK(n && !strcmp(buf, ops[i].op), "op(%s) = %s, want %s", ops[i].f, n ? buf : "-", ops[i].op);
        else CHECK(n == 0, "op(%s) = %s, want none", ops[i].f, buf);
    }
    char err[600];
    vt_rules *r = vt_rules_default(err, sizeof err);
    CHECK(r != NULL, "built-in rules: %s", err);
    if (!r) return;
    static const struct { uint8_t kind; const char *function, *file, *module; int want; } fr[] = {
        { VT_FRAME_NATIVE, "c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::malloc(int)", NULL, "libc10_cuda.so", VT_FC_PLUMBING },
        { VT_FRAME_NATIVE, "libc10_cuda.so+0x4bfb4", NULL, "libc10_cuda.so", VT_FC_PLUMBING },
        { VT_FRAME_NATIVE, "cuMemAllocAsync", NULL, "libcuda.so.1", VT_FC_PLUMBING },
        { VT_FRAME_NATIVE, "at::_ops::addmm::call(at::Tensor const&)", NULL, "libtorch_cpu.so", VT_FC_FRAMEWORK },
        { VT_FRAME_NATIVE, "libcublas.so.13+0x5b45ee", NULL, "libcublas.so.13", VT_FC_FRAMEWORK },
        { VT_FRAME_NATIVE, "_PyEval_EvalFrameDefault", NULL, "libpython3.12.so.1.0", VT_FC_INTERPRETER },
        { VT_FRAME_NATIVE, "python3.12+0x58216f", NULL, "python3.12", VT_FC_INTERPRETER },
        { VT_FRAME_NATIVE, "ffi_call", NULL, "libffi.so.8", VT_FC_INTERPRETER },
        { VT_FRAME_NATIVE, "[unknown]+0x7f00", NULL, "[unknown]", VT_FC_INTERPRETER },
        { VT_FRAME_NATIVE, "libgomp.so.1+0x1234", NULL, "libgomp.so.1", VT_FC_FRAMEWORK },
        { VT_FRAME_PYTHON, "_call_impl", "/usr/lib/python3/dist-packages/torch/nn/modules/module.py", "python", VT_FC_INTERPRETER },
        { VT_FRAME_PYTHON, "forward", "/venv/lib/python3.12/site-packages/transformers/models/gpt2/modeling_gpt2.py", "python", VT_FC_LIBRARY },
        { VT_FRAME_PYTHON, "__init__", "/usr/lib/python3.12/json/__init__.py", "python", VT_FC_LIBRARY },
        { VT_FRAME_PYTHON, "<module>", "/home/me/train.py", "python", -1 },
        { VT_FRAME_NATIVE, "alloc_weight(unsigned long)", "bert.cu", "vt-bert", -1 },
    };
    for (size_t i = 0; i < sizeof fr / sizeof *fr; i++) {
        const char *base = fr[i].file ? strrchr(fr[i].file, '/') : NULL;
        vt_site_frame f = { .function = fr[i].function, .file = fr[i].file, .file_base = base ? base + 1 : NULL,
                            .module = fr[i].module, .kind = fr[i].kind, .resolved = 1 };
        int c = vt_rules_frame_class(r, &f);
        CHECK(c == fr[i].want, "class(%s) = %d, want %d", fr[i].function, c, fr[i].want);
    }
    vt_rules_free(r);
}

int main(void)
{
    test_names();
    test_fclass();
    test_parse();
    test_precedence();
    test_fast_conds();
    for (int steps = 2; steps <= 5; steps++) {
        test_inference(0, steps);
        test_inference(1, steps);
    }
    test_no_iterations();
    printf("%d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
