// SPDX-License-Identifier: MIT
/* nvtx_prog.c - NVTX ranges around driver allocations, through the real nvtx3 headers
 * (header-only: every NVTX call goes through the injection library named by
 * NVTX_INJECTION64_PATH, or is a no-op without one).
 *
 *   nvtx_prog        allocations inside push/pop ranges (default domain and a named
 *                    domain), a start/end range, a registered string, a wide string,
 *                    and a second thread with ranges of its own
 * Each allocation's size says where it was made (the test matches sizes to scopes):
 *   1 MiB  outer                       (push "outer")
 *   2 MiB  outer > inner               (push "inner")
 *   3 MiB  outer > [mydomain] dpush    (nvtxDomainRangePushEx in domain "mydomain")
 *   4 MiB  outer > registered          (a registered string in that domain)
 *   5 MiB  epoch                       (start/end range "epoch", no push range open)
 *   6 MiB  (none)                      (everything ended)
 *   7 MiB  thread: worker              (another thread's push range; main's do not leak in)
 *   8 MiB  wide                        (nvtxRangePushW)
 * Exits 0 when every driver call succeeded. */
#include <cuda.h>
#include <nvtx3/nvToolsExt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <wchar.h>

#define MiB (1ull << 20)

static CUdeviceptr ptrs[16];
static int nptrs;

static __attribute__((noinline)) void alloc_mib(unsigned n)
{
    CUdeviceptr p;
    if (cuMemAlloc(&p, n * MiB) != CUDA_SUCCESS) {
        fprintf(stderr, "nvtx_prog: cuMemAlloc %u MiB failed\n", n);
        exit(1);
    }
    ptrs[nptrs++] = p;
}

static void *worker(void *arg)
{
    (void)arg;
    nvtxRangePushA("worker");
    alloc_mib(7);
    nvtxRangePop();
    return NULL;
}

int main(void)
{
    if (cuInit(0) != CUDA_SUCCESS) return 1;
    nvtxRangePushA("outer");
    alloc_mib(1);
    nvtxRangePushA("inner");
    alloc_mib(2);
    nvtxRangePop();

    nvtxDomainHandle_t dom = nvtxDomainCreateA("mydomain");
    nvtxEventAttributes_t a = { 0 };
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = "dpush";
    nvtxDomainRangePushEx(dom, &a);
    nvtxRangePushA("popped-by-default-domain");  /* default domain, above the domain range */
    nvtxRangePop();                              /* takes the default-domain range, not dpush */
    alloc_mib(3);
    nvtxDomainRangePop(dom);

    nvtxStringHandle_t reg = nvtxDomainRegisterStringA(dom, "registered");
    a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
    a.message.registered = reg;
    nvtxDomainRangePushEx(dom, &a);
    alloc_mib(4);
    nvtxDomainRangePop(dom);
    nvtxRangePop(); /* outer */

    nvtxRangeId_t r = nvtxRangeStartA("epoch");
    alloc_mib(5);
    nvtxRangeEnd(r);
    alloc_mib(6);

    pthread_t t;
    nvtxRangePushA("main-while-worker");
    if (pthread_create(&t, NULL, worker, NULL) != 0) return 1;
    pthread_join(t, NULL);
    nvtxRangePop();

    nvtxRangePushW(L"wide\u00e9");
    alloc_mib(8);
    nvtxRangePop();
    for (int i = 0; i < nptrs; i++) cuMemFree(ptrs[i]);
    return 0;
}
