/* SPDX-License-Identifier: MIT */
/* vt_fuzz_one.c - one untrusted trace through every command of the analyzer: the
 * libFuzzer entry point (LLVMFuzzerTestOneInput), shared by the AFL-style main
 * (vt_fuzz_afl.c) and the damaged-trace driver (tests/cli/vt_fuzz.c). Nothing may
 * crash, hang, read out of bounds or leave UB behind (build with sanitizers); the
 * commands may refuse the input with exit 2, their output is not checked here. */
#include "vt_fuzz_one.h"

#include "vt_cmds.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One scratch folder per process, made on first use and kept: libFuzzer calls the
 * entry point millions of times, and the commands take paths, not buffers. */
static char vt_fz_dir[64];

static int vt_fz_setup(void)
{
    if (vt_fz_dir[0]) return 0;
    char tmpl[] = "/tmp/vt-fuzz-XXXXXX";
    if (!mkdtemp(tmpl)) return -1;
    memcpy(vt_fz_dir, tmpl, sizeof tmpl);
    /* The reports go nowhere: fuzzing prints millions of them. */
    if (!getenv("VT_FUZZ_STDOUT")) {
        int devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0) { dup2(devnull, 1); close(devnull); }
    }
    setenv("VRAMTRACE_NO_PROGRESS", "1", 1);
    return 0;
}

static int vt_fz_put(const char *path, const uint8_t *b, size_t n)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) return -1;
    size_t off = 0;
    while (off < n) {
        ssize_t w = write(fd, b + off, n - off);
        if (w <= 0) { close(fd); return -1; }
        off += (size_t)w;
    }
    return close(fd);
}

typedef int (*vt_fz_cmd)(int argc, char **argv);

/* Runs cmd on a NULL-terminated argument list; "@" stands for the trace, "%" for an
 * output file in the scratch folder with the given suffix after it. */
static int vt_fz_run(vt_fz_cmd cmd, const char *trace, const char *const *args, int *bad)
{
    char *argv[16];
    char outs[4][128];
    int argc = 0, nout = 0;
    for (; args[argc] && argc < 15; argc++) {
        const char *a = args[argc];
        if (!strcmp(a, "@")) {
            argv[argc] = (char *)trace;
        } else if (a[0] == '%' && nout < 4) {
            snprintf(outs[nout], sizeof outs[nout], "%s/out%s", vt_fz_dir, a + 1);
            argv[argc] = outs[nout++];
        } else {
            argv[argc] = (char *)a;
        }
    }
    argv[argc] = NULL;
    int rc = cmd(argc, argv);
    fflush(stdout);
    fflush(stderr);
    /* 0 fine, 1 a check failed (check, diff), 2 input refused: anything else is a bug. */
    if (rc < 0 || rc > 2) *bad = 1;
    return rc;
}

int vt_fuzz_trace_file(const char *trace, int pick)
{
    if (vt_fz_setup()) return 1;
    int bad = 0;
    static const char *const report[] = { "@", NULL };
    static const char *const report_json[] = { "--json", "@", NULL };
    static const char *const top_site[] = { "@", NULL };
    static const char *const top_fn[] = { "@", "--by", "function", NULL };
    static const char *const top_mod[] = { "@", "--by", "module", "--at", "end", NULL };
    static const char *const top_cat[] = { "@", "--by", "category", NULL };
    static const char *const top_layer[] = { "@", "--by", "layer", NULL };
    static const char *const diff[] = { "@", "@", NULL };
    static const char *const diff_json[] = { "--json", "@", "@", NULL };
    static const char *const check[] = { "@", "--max-leak", "0", "--max-peak", "1MiB", NULL };
    static const char *const tl_html[] = { "@", "-o", "%.html", NULL };
    static const char *const tl_svg[] = { "@", "-o", "%.svg", "--device", "all", NULL };
    static const char *const fg_html[] = { "@", "-o", "%.html", NULL };
    static const char *const fg_svg[] = { "@", "-o", "%.svg", "--what", "leaked", NULL };
    static const char *const ex_folded[] = { "--format", "folded", "@", "-o", "%.folded", NULL };
    static const char *const ex_pprof[] = { "--format", "pprof", "@", "-o", "%.pb.gz", NULL };
    static const char *const ex_perfetto[] = { "--format", "perfetto", "@", "-o", "%.json", NULL };
    static const char *const ex_speed[] = { "--format", "speedscope", "@", "-o", "%.ss", NULL };
    static const char *const ex_csv[] = { "--format", "csv", "@", "-o", "%.csv", NULL };
    static const char *const dump[] = { "@", NULL };
    const struct { vt_fz_cmd fn; const char *const *args; } runs[] = {
        { vt_cmd_report, report }, { vt_cmd_report, report_json }, { vt_cmd_top, top_site },
        { vt_cmd_top, top_fn }, { vt_cmd_top, top_mod }, { vt_cmd_top, top_cat },
        { vt_cmd_top, top_layer }, { vt_cmd_diff, diff }, { vt_cmd_diff, diff_json },
        { vt_cmd_check, check }, { vt_cmd_timeline, tl_html }, { vt_cmd_timeline, tl_svg },
        { vt_cmd_flamegraph, fg_html }, { vt_cmd_flamegraph, fg_svg },
        { vt_cmd_export, ex_folded }, { vt_cmd_export, ex_pprof }, { vt_cmd_export, ex_perfetto },
        { vt_cmd_export, ex_speed }, { vt_cmd_export, ex_csv }, { vt_cmd_dump, dump },
    };
    int rc0 = 2;
    size_t nruns = sizeof runs / sizeof runs[0];
    for (size_t i = 0; i < nruns; i++) {
        if (pick == VT_FUZZ_READERS && i != 0 && i != 1 && i != 3 && runs[i].fn != vt_cmd_dump) continue;
        if (pick >= 0 && i != 0 && i != (size_t)pick % nruns) continue;
        int rc = vt_fz_run(runs[i].fn, trace, runs[i].args, &bad);
        if (i == 0) rc0 = rc;
        /* A trace report refuses, every command refuses the same way: the rest would
         * only repeat the reader, and fuzzing time is better spent on deeper inputs. */
        if (i == 0 && rc == 2 && !getenv("VT_FUZZ_ALL")) break;
    }
    if (bad) return 1;
    return rc0 == 0 ? 0 : 2;
}

int vt_fuzz_trace_mem(const uint8_t *data, size_t size)
{
    if (vt_fz_setup()) return 1;
    char path[128];
    snprintf(path, sizeof path, "%s/in.vtrace", vt_fz_dir);
    if (vt_fz_put(path, data, size)) return 1;
    /* One command per input besides report, picked by the input's length: every command
     * runs ten times as often per second as when each input ran all twenty, and a
     * mutation that changes the length moves the input to another command.
     * VT_FUZZ_EVERY=1 runs them all. */
    int pick = getenv("VT_FUZZ_EVERY") ? VT_FUZZ_EVERY : (int)(((uint32_t)size * 2654435761u) >> 8 & 0xffff);
    return vt_fuzz_trace_file(path, pick);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (vt_fuzz_trace_mem(data, size) == 1) abort();
    return 0;
}
