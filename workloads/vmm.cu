// SPDX-License-Identifier: MIT
/* vmm.cu - vt-vmm: the CUDA virtual memory management API, through the driver.
 *
 * Two physical allocations (cuMemCreate) mapped side by side into one reserved VA range,
 * then taken apart in the two orders the driver allows:
 *   h2: retain (+1 reference) and release it, unmap, release  -> freed at the release;
 *   h1: release while still mapped, then unmap                 -> freed at the unmap.
 * `--via symbols` (default) calls libcuda's exported functions; `--via entry-point` gets
 * the VMM functions from cudaGetDriverEntryPointByVersion, as CUDA libraries do. */
#include "wl_common.h"

#include <cuda.h>
#include <string.h>

#define CU_CHECK(call)                                                                  \
    do {                                                                                \
        CUresult r_ = (call);                                                           \
        if (r_ != CUDA_SUCCESS) {                                                       \
            const char *n_ = NULL;                                                      \
            cuGetErrorName(r_, &n_);                                                    \
            wl_die("%s failed at %s:%d: %s", #call, __FILE__, __LINE__, n_ ? n_ : "?"); \
        }                                                                               \
    } while (0)

/* The VMM entry points, from the symbol table or from the runtime's entry-point lookup. */
static struct {
    decltype(&cuMemCreate) create;
    decltype(&cuMemRelease) release;
    decltype(&cuMemAddressReserve) reserve;
    decltype(&cuMemAddressFree) address_free;
    decltype(&cuMemMap) map;
    decltype(&cuMemUnmap) unmap;
    decltype(&cuMemSetAccess) set_access;
    decltype(&cuMemRetainAllocationHandle) retain;
    decltype(&cuMemGetAllocationGranularity) granularity;
} vmm;

static void *lookup(const char *name)
{
    void *fn = NULL;
    cudaDriverEntryPointQueryResult q;
    WL_CHECK(cudaGetDriverEntryPointByVersion(name, &fn, 12000, cudaEnableDefault, &q));
    if (q != cudaDriverEntryPointSuccess || !fn) wl_die("driver entry point %s not found", name);
    return fn;
}

static WL_NOINLINE CUmemGenericAllocationHandle vmm_create(size_t n, const CUmemAllocationProp *prop)
{
    CUmemGenericAllocationHandle h = 0;
    CU_CHECK(vmm.create(&h, n, prop, 0));
    WL_KEEP_FRAME();
    return h;
}

int main(int argc, char **argv)
{
    int entry = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--via") && i + 1 < argc && !strcmp(argv[i + 1], "symbols")) i++;
        else if (!strcmp(argv[i], "--via") && i + 1 < argc && !strcmp(argv[i + 1], "entry-point")) { entry = 1; i++; }
        else {
            fprintf(stderr, "usage: vt-vmm [--via symbols|entry-point]\n");
            return strcmp(argv[i], "--help") ? 2 : 0;
        }
    }
    wl_prog = "vt-vmm";
    CU_CHECK(cuInit(0));
    CUdevice dev;
    CU_CHECK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU_CHECK(cuCtxSetCurrent(ctx));
    int vmm_ok = 0;
    CU_CHECK(cuDeviceGetAttribute(&vmm_ok, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, dev));
    if (!vmm_ok) wl_die("device 0 does not support virtual memory management");
    if (entry) {
        vmm.create = (decltype(vmm.create))lookup("cuMemCreate");
        vmm.release = (decltype(vmm.release))lookup("cuMemRelease");
        vmm.reserve = (decltype(vmm.reserve))lookup("cuMemAddressReserve");
        vmm.address_free = (decltype(vmm.address_free))lookup("cuMemAddressFree");
        vmm.map = (decltype(vmm.map))lookup("cuMemMap");
        vmm.unmap = (decltype(vmm.unmap))lookup("cuMemUnmap");
        vmm.set_access = (decltype(vmm.set_access))lookup("cuMemSetAccess");
        vmm.retain = (decltype(vmm.retain))lookup("cuMemRetainAllocationHandle");
        vmm.granularity = (decltype(vmm.granularity))lookup("cuMemGetAllocationGranularity");
    } else {
        vmm.create = cuMemCreate;
        vmm.release = cuMemRelease;
        vmm.reserve = cuMemAddressReserve;
        vmm.address_free = cuMemAddressFree;
        vmm.map = cuMemMap;
        vmm.unmap = cuMemUnmap;
        vmm.set_access = cuMemSetAccess;
        vmm.retain = cuMemRetainAllocationHandle;
        vmm.granularity = cuMemGetAllocationGranularity;
    }

    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = dev;
    size_t gran = 0;
    CU_CHECK(vmm.granularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    const size_t s1 = 4 * gran, s2 = 2 * gran, reserve = 8 * gran;

    CUmemGenericAllocationHandle h1 = vmm_create(s1, &prop);
    CUmemGenericAllocationHandle h2 = vmm_create(s2, &prop);
    CUdeviceptr va = 0;
    CU_CHECK(vmm.reserve(&va, reserve, 0, 0, 0));
    CU_CHECK(vmm.map(va, s1, 0, h1, 0));
    CU_CHECK(vmm.map(va + s1, s2, 0, h2, 0));
    CUmemAccessDesc acc;
    memset(&acc, 0, sizeof acc);
    acc.location = prop.location;
    acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CU_CHECK(vmm.set_access(va, s1 + s2, &acc, 1));
    CU_CHECK(cuMemsetD8(va, 0x3c, s1 + s2)); /* the mapping really is usable */
    CU_CHECK(cuCtxSynchronize());

    /* h2: the ordinary order */
    CUmemGenericAllocationHandle h2r = 0;
    CU_CHECK(vmm.retain(&h2r, (void *)(uintptr_t)(va + s1)));
    if (h2r != h2) wl_die("cuMemRetainAllocationHandle returned another handle");
    CU_CHECK(vmm.release(h2r)); /* drops the reference the retain took */
    CU_CHECK(vmm.unmap(va + s1, s2));
    CU_CHECK(vmm.release(h2)); /* h2's memory is freed here */

    /* h1: released while mapped, so the memory lives until the unmap */
    CU_CHECK(vmm.release(h1));
    CU_CHECK(cuMemsetD8(va, 0x11, s1)); /* still mapped, still usable */
    CU_CHECK(cuCtxSynchronize());
    CU_CHECK(vmm.unmap(va, s1)); /* h1's memory is freed here */
    CU_CHECK(vmm.address_free(va, reserve));
    CU_CHECK(cuDevicePrimaryCtxRelease(dev));

    printf("{\"workload\":\"vt-vmm\",\"units\":\"requested_bytes\",\"via\":\"%s\",\"granularity\":%zu,"
           "\"creates\":2,\"releases\":3,\"retains\":1,\"maps\":2,\"unmaps\":2,"
           "\"physical\":[{\"handle\":\"0x%llx\",\"bytes\":%zu,\"freed_at\":\"unmap\"},"
           "{\"handle\":\"0x%llx\",\"bytes\":%zu,\"freed_at\":\"release\"}],"
           "\"reserved\":{\"va\":\"0x%llx\",\"bytes\":%zu},\"allocated_bytes\":%zu,\"peak_bytes\":%zu,"
           "\"end_bytes\":0,\"sequence\":[\"create h1\",\"create h2\",\"reserve\",\"map h1\",\"map h2\","
           "\"set_access\",\"retain h2\",\"release h2 (retained)\",\"unmap h2\",\"release h2\","
           "\"release h1 (mapped)\",\"unmap h1\",\"address_free\"]}\n",
           entry ? "entry-point" : "symbols", gran, (unsigned long long)h1, s1, (unsigned long long)h2, s2,
           (unsigned long long)va, reserve, s1 + s2, s1 + s2);
    return 0;
}
