// SPDX-License-Identifier: MIT
/* vt_cmd_run.c - `vramtrace run [-o PATTERN] [--depth N] [--per-tensor] [--torch-modules]
 * [--[no-]jax] [--no-summary] -- CMD ARGS...`: runs CMD with the recorder preloaded, forwards SIGINT/SIGTERM to it,
 * then says where the trace(s) went and sums them up. Exits with CMD's status
 * (128 + signal when a signal killed it). */
#include "vt_cmds.h"

#include "vt_analyze.h"
#include "vt_args.h"
#include "vt_format.h"
#include "vt_reader.h"
#include "vt_ranks_show.h"
#include "vt_summary.h"
#include "vt_units.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------------------ *
 *  Environment of the child
 * ------------------------------------------------------------------------ */
/* Where `cmake --install` puts the recorder, relative to the binary's folder (set by
 * CMake from GNUInstallDirs: ../lib/x86_64-linux-gnu/vramtrace on Debian's /usr). */
#ifndef VT_INSTALL_LIB_REL
#define VT_INSTALL_LIB_REL "../lib/vramtrace"
#endif

/* Finds the recorder: VRAMTRACE_LIB, else ../lib/libvramtrace.so next to this binary (the
 * build tree and the Python wheel), else the installed library folder. */
static int find_lib(char *out, size_t n)
{
    const char *env = getenv("VRAMTRACE_LIB");
    char want[PATH_MAX];
    if (env && *env) {
        snprintf(want, sizeof want, "%s", env);
    } else {
        char exe[PATH_MAX];
        ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
        if (k <= 0) {
            fprintf(stderr, "vramtrace: run: cannot find my own binary (/proc/self/exe): %s\n", strerror(errno));
            return -1;
        }
        exe[k] = 0;
        const char *dir = dirname(exe);
        snprintf(want, sizeof want, "%s/%s/libvramtrace.so", dir, VT_INSTALL_LIB_REL);
        if (access(want, R_OK) != 0) snprintf(want, sizeof want, "%s/../lib/libvramtrace.so", dir);
    }
    char real[PATH_MAX];
    if (!realpath(want, real) || access(real, R_OK) != 0) {
        fprintf(stderr, "vramtrace: run: recorder library not found: %s (%s)%s\n", want, strerror(errno),
                env && *env ? "" : "; build it or set VRAMTRACE_LIB");
        return -1;
    }
    snprintf(out, n, "%s", real);
    return 0;
}

static int set_env(const char *k, const char *v)
{
    if (setenv(k, v, 1) == 0) return 0;
    fprintf(stderr, "vramtrace: run: cannot set %s: %s\n", k, strerror(errno));
    return -1;
}

/* NVTX ranges become scopes (docs/python.md): NVTX loads its injection library from
 * NVTX_INJECTION64_PATH. One set by the user (another tool's, Nsight Systems') is kept. */
static int set_nvtx(const char *lib)
{
    const char *old = getenv("NVTX_INJECTION64_PATH");
    return old && *old ? 0 : set_env("NVTX_INJECTION64_PATH", lib);
}

/* The folder of the Python start-up hook (lib/vramtrace_py, next to the recorder) goes
 * first on PYTHONPATH: for PyTorch's blocks (unless --no-torch-blocks), module names
 * (--torch-modules) and the JAX hook (set_py_hooks). */
static int set_torch_hook(const char *lib)
{
    char dir[PATH_MAX], probe[PATH_MAX + 32];
    snprintf(dir, sizeof dir, "%s", lib);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0;
    snprintf(probe, sizeof probe, "%s/vramtrace_py/sitecustomize.py", dir);
    if (access(probe, R_OK) != 0) {
        fprintf(stderr, "vramtrace: run: Python hook: %s not found (%s)\n", probe, strerror(errno));
        return -1;
    }
    probe[strlen(probe) - strlen("/sitecustomize.py")] = 0;
    const char *old = getenv("PYTHONPATH");
    size_t n = strlen(probe) + (old ? strlen(old) : 0) + 2;
    char *v = malloc(n);
    if (!v) return -1;
    if (old && *old) snprintf(v, n, "%s:%s", probe, old);
    else snprintf(v, n, "%s", probe);
    int rc = set_env("PYTHONPATH", v);
    free(v);
    return rc;
}

/* The Python start-up hook (lib/vramtrace_py, next to the recorder) goes first on
 * PYTHONPATH; VRAMTRACE_PY_HOOKS says which of its hooks to install: "torch" for
 * --torch-modules, "jax" unless --no-jax (docs/python.md). Without --torch-modules or
 * --jax, a missing hook folder is not an error: JAX is then left to lifetimes. */
static int set_py_hooks(const char *lib, int torch, int jax, int required)
{
    if (!torch && !jax) return 0;
    if (set_env("VRAMTRACE_PY_HOOKS", torch && jax ? "torch,jax" : torch ? "torch" : "jax")) return -1;
    char dir[PATH_MAX], probe[PATH_MAX + 32];
    snprintf(dir, sizeof dir, "%s", lib);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0;
    snprintf(probe, sizeof probe, "%s/vramtrace_py/sitecustomize.py", dir);
    if (access(probe, R_OK) != 0 && !required) return 0;
    return set_torch_hook(lib);
}

/* PYTORCH_CUDA_ALLOC_CONF is "key:value,key:value": the backend key is replaced (or
 * added), every other key the user set is kept. */
static int merge_torch_conf(void)
{
    const char *old = getenv("PYTORCH_CUDA_ALLOC_CONF");
    static const char want[] = "backend:cudaMallocAsync";
    size_t cap = (old ? strlen(old) : 0) + sizeof want + 2;
    char *out = malloc(cap);
    if (!out) return -1;
    out[0] = 0;
    int replaced = 0;
    if (old && *old) {
        char *copy = strdup(old);
        if (!copy) { free(out); return -1; }
        for (char *save = NULL, *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
            while (*item == ' ') item++;
            if (!*item) continue;
            const char *colon = strchr(item, ':');
            size_t klen = colon ? (size_t)(colon - item) : strlen(item);
            while (klen && item[klen - 1] == ' ') klen--;
            if (*out) strcat(out, ",");
            if (klen == 7 && strncmp(item, "backend", 7) == 0) {
                if (!replaced) strcat(out, want);
                else if (*out) out[strlen(out) - 1] = 0;
                replaced = 1;
            } else {
                strcat(out, item);
            }
        }
        free(copy);
    }
    if (!replaced) {
        if (*out) strcat(out, ",");
        strcat(out, want);
    }
    int rc = set_env("PYTORCH_CUDA_ALLOC_CONF", out);
    free(out);
    return rc;
}

/* ------------------------------------------------------------------------ *
 *  Signals: forwarded to the child
 * ------------------------------------------------------------------------ */
/* The child's pid for the signal handler: a handler can only reach globals. */
static volatile sig_atomic_t child_pid;

static void forward(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    /* A signal the kernel sent for the terminal (Ctrl-C) already reached the child,
     * which is in the same foreground process group: sending it again would deliver
     * it twice. */
    if (si && si->si_code == SI_KERNEL) return;
    if (child_pid > 0) kill((pid_t)child_pid, sig);
}

/* ------------------------------------------------------------------------ *
 *  Finding the traces
 * ------------------------------------------------------------------------ */
/* Room for a working directory plus a pattern and a pid suffix. */
#define RUN_PATH (2 * PATH_MAX + 64)

typedef struct {
    char path[RUN_PATH];
    uint32_t pid;
} found;

/* %r as the recorder expands it (preload/vt_env.c): the first launcher variable that
 * holds a rank (vt_format.h), else the first local rank, else 0. Under srun or mpirun
 * each `vramtrace run` has its own rank's variables; under torchrun only the workers
 * do, and their files are found by the pattern (%r as "*"). */
static int run_rank(void)
{
#define RUN_RANK_(name) if ((r = vt_rank_value(getenv(name))) >= 0) return r;
    int32_t r;
    VT_RANK_VARS(RUN_RANK_)
    VT_LOCAL_RANK_VARS(RUN_RANK_)
#undef RUN_RANK_
    return 0;
}

/* Expands %p %h %r %% as the recorder does. With pid 0 the result is a glob pattern. */
static void expand(const char *pat, pid_t pid, char *out, size_t n)
{
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    char rank[16];
    snprintf(rank, sizeof rank, "%d", run_rank());
    size_t o = 0;
    for (const char *p = pat; *p && o + 1 < n; p++) {
        char tmp[300];
        const char *ins = NULL;
        if (*p == '%' && p[1]) {
            p++;
            switch (*p) {
            case 'p':
                if (pid) snprintf(tmp, sizeof tmp, "%d", (int)pid);
                else snprintf(tmp, sizeof tmp, "*");
                ins = tmp;
                break;
            case 'h': ins = pid ? host : "*"; break;
            case 'r': ins = pid ? rank : "*"; break;
            case '%': ins = "%"; break;
            default: snprintf(tmp, sizeof tmp, "%%%c", *p); ins = tmp; break;
            }
            size_t k = strlen(ins);
            if (o + k >= n) break;
            memcpy(out + o, ins, k);
            o += k;
        } else {
            out[o++] = *p;
        }
    }
    out[o] = 0;
}

static int have(const found *f, size_t n, const char *path)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(f[i].path, path)) return 1;
    return 0;
}

/* When the command ran (CLOCK_REALTIME ns), and its pid: a trace is one of ours only
 * when its header says it started in that window, and (for the command's own name) in
 * that pid. */
typedef struct {
    uint64_t start_rt, end_rt;
    uint32_t pid;          /* 0: any pid (descendants' files) */
} run_window;

/* Seconds of slack for clocks: the recorder reads the time after the exec. */
#define RUN_SLACK_NS 1000000000ull

/* What a candidate file turned out to be. */
enum { F_NONE, F_OURS, F_EMPTY, F_FOREIGN };

/* A file is one of ours when it is a regular file of our user, modified since the command
 * started, and a trace whose header names a start inside the run (and the command's pid
 * when w->pid is set): a file planted by someone else, or left by an earlier run, is not
 * summarized as this run's. F_EMPTY: ours by owner and time, but no whole header (the
 * disk was full, or the recorder died at its start). */
static int trace_since(const char *path, const run_window *w, uint32_t *pid)
{
    struct stat st;
    if (lstat(path, &st) != 0) return F_NONE;
    if (!S_ISREG(st.st_mode) || st.st_uid != geteuid()) return F_FOREIGN;
    uint64_t mt = (uint64_t)st.st_mtim.tv_sec * 1000000000ull + (uint64_t)st.st_mtim.tv_nsec;
    if (mt + RUN_SLACK_NS < w->start_rt) return F_FOREIGN;
    vt_reader rd;
    char msg[256];
    if (vt_reader_open(&rd, path, msg, sizeof msg) != VT_READ_OK)
        return st.st_size < (off_t)sizeof(vt_file_header) + 12 ? F_EMPTY : F_FOREIGN;
    *pid = rd.hdr.pid;
    uint64_t t = rd.hdr.start_realtime_ns;
    vt_reader_close(&rd);
    if (t + RUN_SLACK_NS < w->start_rt || t > w->end_rt + RUN_SLACK_NS) return F_FOREIGN;
    if (w->pid && *pid != w->pid) return F_FOREIGN;
    return F_OURS;
}

/* Files that looked like this run's but held no trace: the first one's path, and how
 * many (said when no trace was found). */
static char g_empty[RUN_PATH];
static int g_nempty;

static size_t add_glob(found *f, size_t n, size_t max, const char *pattern, const run_window *w, int digits_after)
{
    glob_t g;
    if (glob(pattern, 0, NULL, &g) != 0) return n;
    for (size_t i = 0; i < g.gl_pathc && n < max; i++) {
        const char *p = g.gl_pathv[i];
        if (digits_after) {
            const char *dot = strrchr(p, '.');
            if (!dot || !dot[1] || strspn(dot + 1, "0123456789") != strlen(dot + 1)) continue;
        }
        uint32_t pid;
        if (have(f, n, p)) continue;
        int k = trace_since(p, w, &pid);
        if (k == F_EMPTY && !g_nempty++) snprintf(g_empty, sizeof g_empty, "%s", p);
        if (k != F_OURS) continue;
        snprintf(f[n].path, sizeof f[n].path, "%s", p);
        f[n].pid = pid;
        n++;
    }
    globfree(&g);
    return n;
}

static int by_pid(const void *x, const void *y)
{
    const found *a = x, *b = y;
    return a->pid < b->pid ? -1 : a->pid > b->pid;
}

/* The path to print: relative to the working directory when inside it. */
static const char *shown(const char *path, const char *cwd)
{
    size_t n = strlen(cwd);
    if (n && !strncmp(path, cwd, n) && path[n] == '/') return path + n + 1;
    return path;
}

/* ------------------------------------------------------------------------ *
 *  Summary
 * ------------------------------------------------------------------------ */
static void summary(found *f, size_t n)
{
    char **paths = calloc(n, sizeof *paths);
    if (!paths) return;
    for (size_t i = 0; i < n; i++) paths[i] = f[i].path;
    vt_analyze_opts ao = { UINT64_MAX, 1, NULL, NULL };
    vt_analysis an;
    if (vt_analyze(&an, (int)n, paths, &ao) == 0) {
        char head[300]; /* several ranks: who peaks highest, and why */
        vt_summary_print(stderr, &an, paths, vt_ranks_show_headline(head, sizeof head, &an));
    }
    vt_analysis_free(&an);
    free(paths);
}

/* Why no trace was found, as precisely as can be told from outside. */
static void no_trace(const char *cmd, const char *path, const char *cwd)
{
    char dir[RUN_PATH];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0;
    struct statvfs vs;
    int full = statvfs(slash ? dir : ".", &vs) == 0 && vs.f_bavail == 0;
    if (g_nempty)
        fprintf(stderr, "vramtrace: no trace was written: %s was created but holds no trace header (%s; "
                "see the recorder's warning above)\n", shown(g_empty, cwd),
                full ? "the disk is full" : "the recorder could not write it");
    else if (full)
        fprintf(stderr, "vramtrace: no trace was written: the disk holding %s is full (see the recorder's "
                "warning above)\n", slash ? dir : ".");
    else
        fprintf(stderr, "vramtrace: no trace was written: %s made no CUDA allocation call, or the "
                "recorder did not load or could not create its file (looked for %s)\n", cmd, shown(path, cwd));
}

/* The loader ignores LD_PRELOAD for a setuid or setgid program (AT_SECURE), unless the
 * library sits in a system folder; even then the recorder refuses to trace it. */
static void warn_setuid(const char *cmd)
{
    char found[PATH_MAX];
    const char *p = cmd;
    if (!strchr(cmd, '/')) {
        const char *path = getenv("PATH");
        p = NULL;
        for (const char *d = path ? path : "/usr/bin:/bin"; d && *d;) {
            const char *e = strchr(d, ':');
            size_t len = e ? (size_t)(e - d) : strlen(d);
            snprintf(found, sizeof found, "%.*s/%s", (int)len, d, cmd);
            if (access(found, X_OK) == 0) { p = found; break; }
            d = e ? e + 1 : NULL;
        }
    }
    struct stat st;
    if (p && stat(p, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & (S_ISUID | S_ISGID)))
        fprintf(stderr, "vramtrace: run: %s is setuid/setgid: the loader does not preload the recorder "
                "into it, so it runs untraced\n", cmd);
}

/* ------------------------------------------------------------------------ *
 *  The command
 * ------------------------------------------------------------------------ */
static const char usage[] =
    "usage: vramtrace run [-o PATTERN] [--depth N] [--per-tensor] [--torch-modules] [--no-torch-blocks]\n"
    "                     [--[no-]jax] [--readable] [--no-summary] [--no-symbolize]\n"
    "                     -- CMD ARGS...\n"
    "  Runs CMD with the recorder (libvramtrace.so) preloaded, then says where the\n"
    "  trace went and prints a short summary. Exits with CMD's status.\n"
    "  -o, --output PATTERN  trace path; %p pid, %h host, %r rank, %% percent\n"
    "                        (default vramtrace-%p.vtrace)\n"
    "  --depth N             stack frames to record, 0..256 (default 64)\n"
    "  --torch-modules       name each PyTorch nn.Module's allocations, forward and\n"
    "                        backward, after the module (a Python start-up hook;\n"
    "                        docs/python.md)\n"
    "  --jax, --no-jax       name the role (weights, optimizer state, gradients) and\n"
    "                        flax module of JAX's buffers at each jitted call (a Python\n"
    "                        start-up hook; on unless --no-jax, inert without jax)\n"
    "  --per-tensor          make PyTorch, TensorFlow and JAX ask the driver for every\n"
    "                        tensor (cudaMallocAsync / platform allocators)\n"
    "  --no-torch-blocks     do not trace PyTorch's blocks inside its caching\n"
    "                        allocator's segments (traced by default; docs/python.md)\n"
    "  --readable            create the traces readable by all (0644; default 0600)\n"
    "  --no-summary          only say where the trace went\n"
    "  --no-symbolize        leave the frames unresolved in the trace (by default they\n"
    "                        are resolved here as CMD exits, so it reads the same on\n"
    "                        any host; vramtrace symbolize does it later)\n";

int vt_cmd_run(int argc, char **argv)
{
    enum { O_OUT = 1, O_DEPTH, O_PER_TENSOR, O_TORCH_MODULES, O_NO_BLOCKS, O_JAX, O_NO_JAX, O_READABLE, O_NO_SUMMARY,
           O_NO_SYMBOLIZE, O_HELP };
    static const vt_opt opts[] = {
        { "output", 'o', 1, O_OUT }, { "depth", 0, 1, O_DEPTH }, { "per-tensor", 0, 0, O_PER_TENSOR },
        { "torch-modules", 0, 0, O_TORCH_MODULES }, { "no-torch-blocks", 0, 0, O_NO_BLOCKS },
        { "jax", 0, 0, O_JAX }, { "no-jax", 0, 0, O_NO_JAX },
        { "readable", 0, 0, O_READABLE }, { "no-summary", 0, 0, O_NO_SUMMARY },
        { "no-symbolize", 0, 0, O_NO_SYMBOLIZE }, { "help", 'h', 0, O_HELP }, { NULL, 0, 0, 0 }
    };
    const char *pattern = NULL;
    uint64_t depth = 0;
    int has_depth = 0, per_tensor = 0, torch_modules = 0, readable = 0, no_summary = 0, no_symbolize = 0;
    int jax = 1, jax_asked = 0, no_blocks = 0;
    char **cmd = NULL;
    vt_args a;
    vt_args_init(&a, "run", argc, argv);
    a.stop_at_operand = 1;
    const char *v;
    int id;
    while (!cmd && (id = vt_args_next(&a, opts, &v)) != VT_ARGS_END) {
        switch (id) {
        case VT_ARGS_ERROR: return 2;
        case VT_ARGS_OPERAND: cmd = argv + a.i - 1; break;
        case O_OUT:
            if (!*v) { vt_args_error(&a, "empty -o PATTERN"); return 2; }
            pattern = v;
            break;
        case O_DEPTH: if (vt_args_uint(&a, "--depth", v, 256, &depth)) return 2; has_depth = 1; break;
        case O_PER_TENSOR: per_tensor = 1; break;
        case O_TORCH_MODULES: torch_modules = 1; break;
        case O_READABLE: readable = 1; break;
        case O_JAX: jax = jax_asked = 1; break;
        case O_NO_JAX: jax = jax_asked = 0; break;
        case O_NO_BLOCKS: no_blocks = 1; break;
        case O_NO_SUMMARY: no_summary = 1; break;
        case O_NO_SYMBOLIZE: no_symbolize = 1; break;
        case O_HELP: fputs(usage, stdout); return 0;
        }
    }
    if (!cmd) {
        vt_args_error(&a, "missing CMD (vramtrace run [OPTIONS] -- CMD ARGS...)");
        return 2;
    }

    char lib[PATH_MAX];
    if (find_lib(lib, sizeof lib)) return 2;
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd)) snprintf(cwd, sizeof cwd, ".");
    if (!pattern) pattern = getenv("VRAMTRACE_OUTPUT");
    if (!pattern || !*pattern) pattern = "vramtrace-%p.vtrace";
    /* An absolute pattern: the traces land where the user stood even when CMD changes
     * directory, and we know where to look for them. */
    char abs_pattern[RUN_PATH];
    if (pattern[0] == '/') snprintf(abs_pattern, sizeof abs_pattern, "%s", pattern);
    else snprintf(abs_pattern, sizeof abs_pattern, "%s/%s", cwd, pattern);

    const char *old = getenv("LD_PRELOAD");
    size_t plen = strlen(lib) + (old ? strlen(old) : 0) + 2;
    char *preload = malloc(plen);
    if (!preload) return 2;
    if (old && *old) snprintf(preload, plen, "%s:%s", lib, old);
    else snprintf(preload, plen, "%s", lib);
    int bad = set_env("LD_PRELOAD", preload) || set_env("VRAMTRACE_OUTPUT", abs_pattern);
    free(preload);
    if (has_depth) {
        char d[16];
        snprintf(d, sizeof d, "%u", (unsigned)depth);
        bad = bad || set_env("VRAMTRACE_DEPTH", d);
    }
    int torch = torch_modules || !no_blocks;
    bad = bad || set_nvtx(lib) || set_py_hooks(lib, torch, jax, torch_modules || jax_asked)
          || (torch && (set_env("VRAMTRACE_TORCH_MODULES", torch_modules ? "1" : "0")
                        || set_env("VRAMTRACE_TORCH_BLOCKS", no_blocks ? "0" : "1")))
          || (readable && set_env("VRAMTRACE_READABLE", "1"));
    if (per_tensor)
        bad = bad || merge_torch_conf() || set_env("XLA_PYTHON_CLIENT_ALLOCATOR", "platform") ||
              set_env("TF_GPU_ALLOCATOR", "cuda_malloc_async");
    if (bad) return 2;

    warn_setuid(cmd[0]);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t start_rt = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
    /* Signals that come before the child's pid is known wait (blocked) and are then
     * forwarded; the child gets the mask back before exec. */
    struct sigaction sa, old_int, old_term, old_hup;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = forward;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigset_t block, old_mask;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    sigprocmask(SIG_BLOCK, &block, &old_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    sigaction(SIGHUP, &sa, &old_hup);
    /* A command that cannot start is one error, not also "no trace was written": the
     * child sends exec's errno through a close-on-exec pipe, which a successful exec
     * closes empty. */
    int ep[2];
    if (pipe2(ep, O_CLOEXEC) != 0) {
        fprintf(stderr, "vramtrace: run: pipe: %s\n", strerror(errno));
        sigprocmask(SIG_SETMASK, &old_mask, NULL);
        return 2;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "vramtrace: run: fork: %s\n", strerror(errno));
        sigprocmask(SIG_SETMASK, &old_mask, NULL);
        close(ep[0]);
        close(ep[1]);
        return 2;
    }
    if (pid == 0) {
        close(ep[0]);
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGTERM, &old_term, NULL);
        sigaction(SIGHUP, &old_hup, NULL);
        sigprocmask(SIG_SETMASK, &old_mask, NULL);
        execvp(cmd[0], cmd);
        int e = errno;
        if (write(ep[1], &e, sizeof e) < 0) { /* the parent then sees a plain exit */ }
        _exit(e == ENOENT ? 127 : 126);
    }
    close(ep[1]);
    child_pid = pid;
    sigprocmask(SIG_SETMASK, &old_mask, NULL);
    int exec_errno = 0;
    ssize_t got;
    while ((got = read(ep[0], &exec_errno, sizeof exec_errno)) < 0 && errno == EINTR) {}
    close(ep[0]);
    if (got != (ssize_t)sizeof exec_errno) exec_errno = 0;
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            fprintf(stderr, "vramtrace: run: waitpid: %s\n", strerror(errno));
            status = 0;
            break;
        }
    }
    child_pid = 0;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGHUP, &old_hup, NULL);
    int rc = WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 1;
    if (exec_errno) {
        fprintf(stderr, "vramtrace: run: cannot run '%s': %s%s\n", cmd[0], strerror(exec_errno),
                exec_errno == ENOENT && !strchr(cmd[0], '/') ? " (not found in PATH)" : "");
        return rc;
    }
    clock_gettime(CLOCK_REALTIME, &ts);
    run_window win = { start_rt, (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec, (uint32_t)pid };
    run_window any = win;
    any.pid = 0;

    /* The traces: the child's own, <path>.<pid> of descendants that inherited a pattern
     * without %p, and for %p patterns any trace that matches the pattern and started
     * after the command. */
    enum { MAXF = 256 };
    found *f = calloc(MAXF, sizeof *f);
    if (!f) return rc;
    size_t n = 0;
    char path[RUN_PATH], pat[RUN_PATH + 4];
    expand(abs_pattern, pid, path, sizeof path);
    uint32_t tpid;
    int k = trace_since(path, &win, &tpid);
    if (k == F_OURS) {
        snprintf(f[n].path, sizeof f[n].path, "%s", path);
        f[n++].pid = tpid;
    } else if (k == F_EMPTY && !g_nempty++) {
        snprintf(g_empty, sizeof g_empty, "%s", path);
    } else if (k == F_FOREIGN) {
        fprintf(stderr, "vramtrace: %s is not this run's trace (another user's, older, or not a trace): "
                "left alone\n", shown(path, cwd));
    }
    /* <path>.N: descendants' files, and the next names the recorder took when one was
     * in use (an exec chain in one pid, a planted file). */
    snprintf(pat, sizeof pat, "%s.*", path);
    n = add_glob(f, n, MAXF, pat, &any, 1);
    if (strstr(abs_pattern, "%p") || strstr(abs_pattern, "%h") || strstr(abs_pattern, "%r")) {
        expand(abs_pattern, 0, pat, sizeof pat);
        n = add_glob(f, n, MAXF, pat, &any, 0);
    }
    if (n > 1) qsort(f + 1, n - 1, sizeof *f, by_pid);

    if (!n) no_trace(cmd[0], path, cwd);
    /* Self-contained traces: the binaries are here now, maybe not where the trace is read
     * (docs/symbols.md). A trace cut short (a killed program) is left as it is. */
    for (size_t i = 0; i < n && !no_symbolize; i++) vt_symbolize_one(f[i].path, 1);
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        char b[VT_UNITS_BUF];
        if (stat(f[i].path, &st) != 0) st.st_size = 0;
        fprintf(stderr, "vramtrace: trace written to %s (pid %u, %s)\n", shown(f[i].path, cwd), f[i].pid,
                vt_units_size(b, (uint64_t)st.st_size));
    }
    if (n && !no_summary) {
        for (size_t i = 0; i < n; i++) {
            const char *s = shown(f[i].path, cwd);
            if (s != f[i].path) memmove(f[i].path, s, strlen(s) + 1);
        }
        summary(f, n);
    }
    free(f);
    return rc;
}
