// SPDX-License-Identifier: MIT
/* tp_dl.c - test program NOT linked with libcuda: it dlopen's libcuda.so.1 at run time.
 *   tp_dl dlsym SECTION...                     exported names through dlsym
 *   tp_dl getproc v1|v2 default|legacy|ptds SECTION...
 *        dlsym one cuGetProcAddress, ask it for "cuGetProcAddress" itself, then look up
 *        everything through the pointer that returned (as libcudart does)
 *   tp_dl plugin       allocations from a library dlopen'ed after tracing started */
#define _GNU_SOURCE
#include "tp.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *open_driver(void)
{
    /* RTLD_LOCAL, as libcudart opens it: the driver's names stay out of the global scope. */
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) tp_die("dlopen(libcuda.so.1): %s", dlerror());
    return h;
}

static int run_sections(tp_api *a, int argc, char **argv, int first)
{
    ex_start(a);
    if (first >= argc) tp_die("no section");
    for (int i = first; i < argc; i++)
        if (ex_run(argv[i], a) < 0) tp_die("unknown section %s", argv[i]);
    return tp_finish();
}

static int run_getproc(int argc, char **argv)
{
    if (argc < 5) tp_die("usage: tp_dl getproc v1|v2 default|legacy|ptds SECTION...");
    int v2 = strcmp(argv[2], "v2") == 0;
    cuuint64_t flags = strcmp(argv[3], "ptds") == 0 ? CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM
                     : strcmp(argv[3], "legacy") == 0 ? CU_GET_PROC_ADDRESS_LEGACY_STREAM
                     : CU_GET_PROC_ADDRESS_DEFAULT;
    void *h = open_driver();
    void *gp0 = dlsym(h, v2 ? "cuGetProcAddress_v2" : "cuGetProcAddress");
    if (!gp0) tp_die("dlsym(cuGetProcAddress%s) failed", v2 ? "_v2" : "");
    /* cuGetProcAddress looked up through itself: the v2 one for 12.0+, v1 for 11.3. */
    void *gp = NULL;
    if (v2) {
        CUdriverProcAddressQueryResult st;
        TP_CK(((PFN_cuGetProcAddress_v12000)gp0)("cuGetProcAddress", &gp, 12000, flags, &st), CUDA_SUCCESS);
    } else {
        TP_CK(((PFN_cuGetProcAddress_v11030)gp0)("cuGetProcAddress", &gp, 11030, flags), CUDA_SUCCESS);
    }
    if (!gp) tp_die("cuGetProcAddress(cuGetProcAddress) gave NULL");
    tp_api a;
    tp_api_from_getproc(&a, gp, v2, flags);
    a.mode = argv[3];
    return run_sections(&a, argc, argv, 4);
}

static int run_plugin(void)
{
    tp_api a;
    tp_api_from_dlsym(&a, open_driver());
    ex_start(&a);
    ex_basic(&a);
    char exe[PATH_MAX], lib[PATH_MAX + 32];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) tp_die("readlink /proc/self/exe");
    exe[n] = 0;
    *strrchr(exe, '/') = 0;
    snprintf(lib, sizeof lib, "%s/libtp_plugin.so", exe);
    void *h = dlopen(lib, RTLD_NOW);
    if (!h) tp_die("dlopen(%s): %s", lib, dlerror());
    void (*run)(const tp_api *) = (void (*)(const tp_api *))dlsym(h, "tp_plugin_run");
    if (!run) tp_die("tp_plugin_run missing");
    run(&a);
    return tp_finish();
}

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: tp_dl dlsym|getproc|plugin ...\n"); return 2; }
    tp_init(argc, argv, 0);
    if (strcmp(argv[1], "dlsym") == 0) {
        tp_api a;
        tp_api_from_dlsym(&a, open_driver());
        return run_sections(&a, argc, argv, 2);
    }
    if (strcmp(argv[1], "getproc") == 0) return run_getproc(argc, argv);
    if (strcmp(argv[1], "plugin") == 0) return run_plugin();
    tp_die("unknown mode %s", argv[1]);
}
