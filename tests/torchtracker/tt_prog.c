/* SPDX-License-Identifier: MIT */
/* tt_prog.c - drives the allocator trace tracker path without a GPU: loads the stand-in
 * libc10_cuda.so (fake_c10_cuda.cc) RTLD_LOCAL as torch does, attaches the tracker with
 * libvramtrace_torch.so, then plays a caching allocator: segments from the (fake)
 * driver, blocks inside them through the tracker, in PyTorch's order of events.
 *
 *   tt_prog C10_LIB SHIM_LIB VERSION EXPECT_RC [play]
 *
 * Exits 0 when vt_torch_attach returned EXPECT_RC (and, with `play`, after playing). */
#include <cuda.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define MiB (1ull << 20)

/* TraceEntry::Action */
enum { ALLOC, FREE_REQUESTED, FREE_COMPLETED, SEGMENT_ALLOC, SEGMENT_FREE, SEGMENT_MAP, SEGMENT_UNMAP, SNAPSHOT, OOM };

static void (*emit)(int action, int device, uint64_t addr, uint64_t size, uint64_t stream, int pool);

/* Named functions: the blocks' stacks say who asked (noinline keeps the frames). */
__attribute__((noinline)) static void load_weights(CUdeviceptr seg)
{
    emit(ALLOC, 0, seg, 40 * MiB, 0, 0);
}

__attribute__((noinline)) static void step(CUdeviceptr seg)
{
    emit(ALLOC, 0, seg + 40 * MiB, 8 * MiB, 0, 0);
    emit(ALLOC, 0, seg + 48 * MiB, 8 * MiB, 0, 0);
    emit(FREE_REQUESTED, 0, seg + 48 * MiB, 8 * MiB, 0, 0);
    emit(FREE_COMPLETED, 0, seg + 48 * MiB, 8 * MiB, 0, 0);
    emit(FREE_REQUESTED, 0, seg + 40 * MiB, 8 * MiB, 0, 0);
    emit(FREE_COMPLETED, 0, seg + 40 * MiB, 8 * MiB, 0, 0);
}

__attribute__((noinline)) static int grow_and_release(void)
{
    /* a segment grown for one block, then emptied and given back (empty_cache):
     * PyTorch frees the memory, then says SEGMENT_FREE */
    CUdeviceptr s2;
    if (cuMemAlloc_v2(&s2, 4 * MiB) != CUDA_SUCCESS) return -1;
    emit(SEGMENT_ALLOC, 0, s2, 4 * MiB, 0, 1);  /* grown for a private pool's block */
    emit(ALLOC, 0, s2, 3 * MiB, 0, 1);
    emit(FREE_COMPLETED, 0, s2, 3 * MiB, 0, 1);
    if (cuMemFree_v2(s2) != CUDA_SUCCESS) return -1;
    emit(SEGMENT_FREE, 0, s2, 4 * MiB, 0, 0);
    return 0;
}

/* The allocator refusing 32 MiB under a cap of its own: no driver call fails. */
__attribute__((noinline)) static void refused(void)
{
    emit(OOM, 0, 100 * MiB, 32 * MiB, 0, 0);
}

/* More than the device has: the driver refuses, the allocator frees its cache and asks
 * again, then reports the OOM. One OOM for the user, not three. */
__attribute__((noinline)) static int device_full(void)
{
    CUdeviceptr p;
    for (int i = 0; i < 2; i++)
        if (cuMemAlloc_v2(&p, 200ull << 30) != CUDA_ERROR_OUT_OF_MEMORY) return -1;
    emit(OOM, 0, 0, 200ull << 30, 0, 0);
    return 0;
}

static int play(void)
{
    CUdevice dev;
    CUcontext ctx;
    CUdeviceptr seg, other;
    if (cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&dev, 0) != CUDA_SUCCESS ||
        cuDevicePrimaryCtxRetain(&ctx, dev) != CUDA_SUCCESS || cuCtxSetCurrent(ctx) != CUDA_SUCCESS)
        return -1;
    /* memory that is not PyTorch's (a library's workspace): stays a driver allocation */
    if (cuMemAlloc_v2(&other, 1 * MiB) != CUDA_SUCCESS) return -1;
    if (cuMemAlloc_v2(&seg, 64 * MiB) != CUDA_SUCCESS) return -1;
    emit(SEGMENT_ALLOC, 0, seg, 64 * MiB, 0, 0);
    load_weights(seg);
    for (int i = 0; i < 3; i++) step(seg);
    if (grow_and_release()) return -1;
    refused();
    return device_full();
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: tt_prog C10_LIB SHIM_LIB VERSION EXPECT_RC [play]\n");
        return 2;
    }
    void *c10 = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    void *shim = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
    if (!c10 || !shim) {
        fprintf(stderr, "tt_prog: %s\n", dlerror());
        return 2;
    }
    int (*attach)(const char *) = (int (*)(const char *))dlsym(shim, "vt_torch_attach");
    const char *(*why)(int) = (const char *(*)(int))dlsym(shim, "vt_torch_why");
    unsigned long (*events)(void) = (unsigned long (*)(void))dlsym(shim, "vt_torch_events");
    emit = (void (*)(int, int, uint64_t, uint64_t, uint64_t, int))dlsym(c10, "fake_emit");
    if (!attach || !why || !events || !emit) {
        fprintf(stderr, "tt_prog: missing symbols\n");
        return 2;
    }
    int rc = attach(argv[3]);
    printf("vt_torch_attach(%s) = %d: %s\n", argv[3], rc, why(rc));
    if (rc != atoi(argv[4])) return 1;
    if (argc > 5) {
        if (play()) {
            fprintf(stderr, "tt_prog: the fake driver failed\n");
            return 1;
        }
        printf("events %lu\n", events());
        if (events() != 26) return 1;
    }
    return 0;
}
