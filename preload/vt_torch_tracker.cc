// SPDX-License-Identifier: MIT
// vt_torch_tracker.cc - attaches an allocator trace tracker to PyTorch's CUDA caching
// allocator from inside the traced process, so that the trace holds every block (tensor)
// inside the allocator's segments without changing the allocator (issue 23).
//
// PyTorch's c10::cuda::CUDACachingAllocator::attachAllocatorTraceTracker is an inline
// function of its header: a virtual call on the object in the exported global
// c10::cuda::CUDACachingAllocator::allocator. libc10_cuda.so exports no function to
// call, and we build without PyTorch's headers, so this file mirrors the two things the
// call needs from a given PyTorch version: the vtable slot of attachAllocatorTraceTracker
// and the head of struct TraceEntry. Both are checked against the running library before
// anything is called (vt_torch_attach), and only versions whose layout was measured are
// attached; any other answers with a reason and the trace stays at segments.
//
// Built as its own library (libvramtrace_torch.so) so that the recorder itself needs no
// C++ runtime. The Python start-up hook loads it with ctypes once torch has initialised
// CUDA (docs/python.md); it finds the recorder's vramtrace_torch_event with dlsym.
#include <dlfcn.h>
#include <link.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>

namespace {

// The head of c10::CachingDeviceAllocator::TraceEntry (x86-64, libstdc++), what the
// tracker reads; the strings after it are never touched.
struct TraceEntryHead {
    int action;                 // TraceEntry::Action
    int8_t device;              // c10::DeviceIndex
    std::size_t addr;
    void *context[2];           // std::shared_ptr<GatheredContext>
    void *stream;               // cudaStream_t
    std::size_t size;
    unsigned long long pool[2]; // MempoolId_t: std::pair<CaptureId_t, CaptureId_t>
};
static_assert(offsetof(TraceEntryHead, addr) == 8, "TraceEntry layout");
static_assert(offsetof(TraceEntryHead, stream) == 32, "TraceEntry layout");
static_assert(offsetof(TraceEntryHead, size) == 40, "TraceEntry layout");
static_assert(offsetof(TraceEntryHead, pool) == 48, "TraceEntry layout");

// The callback type is std::function<void(const TraceEntry&)>; its layout does not depend
// on TraceEntry, only on libstdc++ (the one PyTorch's wheels use).
using Tracker = std::function<void(const TraceEntryHead &)>;
// A virtual member taking the std::function by value: the Itanium C++ ABI passes `this`
// first and a non-trivial argument as a pointer to the caller's copy, as for this function.
using AttachFn = void (*)(void *self, Tracker tracker);
using EventFn = void (*)(int action, int device, uint64_t addr, uint64_t size, uint64_t stream, int private_pool);

// Versions whose layout was measured (tests/gpu/tracker_abi.cc): "major.minor" -> the
// slot of attachAllocatorTraceTracker in CUDAAllocator's vtable (after the two
// destructors, Allocator's 4 functions, DeviceAllocator's 7 and CUDAAllocator's 31).
struct Known { const char *version; int slot; };
const Known known[] = { { "2.11", 44 } };

// The recorder's entry, found once (set before the tracker is attached, never changed).
EventFn event_fn;
// A count for tests and the hook's debug line: a plain load and store, not a locked
// add (one per block event, on the program's allocating threads; two threads at once
// may lose a count, which those readers can bear).
std::atomic<unsigned long> events;

void on_event(const TraceEntryHead &e)
{
    events.store(events.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    event_fn(e.action, e.device, e.addr, e.size, (uint64_t)(uintptr_t)e.stream, (e.pool[0] | e.pool[1]) != 0);
}

// Same loaded object?
bool same_object(const void *a, const void *b)
{
    Dl_info x, y;
    return dladdr(a, &x) && dladdr(b, &y) && x.dli_fbase == y.dli_fbase;
}

int slot_of(const char *version)
{
    for (const Known &k : known) {
        std::size_t n = std::strlen(k.version);
        if (!std::strncmp(version, k.version, n) && (version[n] == '.' || version[n] == 0 || version[n] == '+'))
            return k.slot;
    }
    return -1;
}

const char allocator_sym[] = "_ZN3c104cuda20CUDACachingAllocator9allocatorE";

// torch loads its libraries RTLD_LOCAL (a Python extension's dependencies), so the global
// is not found through RTLD_DEFAULT: find libc10_cuda.so among the loaded objects and ask
// it (measured on torch 2.11: dlsym(RTLD_DEFAULT) returned NULL).
int find_c10(struct dl_phdr_info *info, size_t, void *out)
{
    const char *p = info->dlpi_name ? std::strrchr(info->dlpi_name, '/') : nullptr;
    p = p ? p + 1 : info->dlpi_name;
    if (!p || std::strncmp(p, "libc10_cuda.so", 14) || (p[14] && p[14] != '.')) return 0;
    *static_cast<const char **>(out) = info->dlpi_name;
    return 1;
}

void *allocator_global()
{
    void *sym = dlsym(RTLD_DEFAULT, allocator_sym);
    if (sym) return sym;
    const char *path = nullptr;
    dl_iterate_phdr(find_c10, &path);
    if (!path) return nullptr;
    void *h = dlopen(path, RTLD_LAZY | RTLD_NOLOAD);  // already loaded: no new reference kept
    if (!h) return nullptr;
    sym = dlsym(h, allocator_sym);
    dlclose(h);
    return sym;
}

} // namespace

// Results of vt_torch_attach (the hook prints vt_torch_why's text for a negative one).
enum {
    VT_TORCH_OK = 0,
    VT_TORCH_NO_RECORDER = -1, VT_TORCH_NO_LIBRARY = -2, VT_TORCH_NO_ALLOCATOR = -3,
    VT_TORCH_VERSION = -4, VT_TORCH_LAYOUT = -5, VT_TORCH_THREW = -6
};

extern "C" __attribute__((visibility("default"))) const char *vt_torch_why(int rc)
{
    switch (rc) {
    case VT_TORCH_OK: return "attached";
    case VT_TORCH_NO_RECORDER: return "the recorder (libvramtrace.so) is not in this process";
    case VT_TORCH_NO_LIBRARY: return "no loaded libc10_cuda.so exports c10::cuda::CUDACachingAllocator::allocator";
    case VT_TORCH_NO_ALLOCATOR: return "the CUDA caching allocator is not set up";
    case VT_TORCH_VERSION: return "this PyTorch version's allocator layout is not known to vramtrace";
    case VT_TORCH_LAYOUT: return "the allocator's vtable does not look like the one measured for this version";
    case VT_TORCH_THREW: return "PyTorch refused the tracker";
    default: return "unknown";
    }
}

// Events the tracker has seen (tests; the hook's debug line).
extern "C" __attribute__((visibility("default"))) unsigned long vt_torch_events(void)
{
    return events.load(std::memory_order_relaxed);
}

// Attaches the tracker to the allocator of the PyTorch loaded in this process.
// version: torch.__version__. Call once, after the allocator is initialised (it attaches
// to each device's allocator that exists then) and only with the native backend.
extern "C" __attribute__((visibility("default"))) int vt_torch_attach(const char *version)
{
    if (!event_fn) {
        event_fn = reinterpret_cast<EventFn>(dlsym(RTLD_DEFAULT, "vramtrace_torch_event"));
        if (!event_fn) return VT_TORCH_NO_RECORDER;
    }
    void *sym = allocator_global();
    if (!sym) return VT_TORCH_NO_LIBRARY;
    void *obj = static_cast<std::atomic<void *> *>(sym)->load();
    if (!obj) return VT_TORCH_NO_ALLOCATOR;
    int slot = slot_of(version ? version : "");
    if (slot < 0) return VT_TORCH_VERSION;
    void **vtable = *static_cast<void ***>(obj);
    // The vtable and the function in it belong to the library that holds the global (a
    // wrong slot past the end, or a pointer that is not a vtable, fails here rather than
    // in a call).
    if (!same_object(vtable, sym) || !same_object(vtable[slot], sym)) return VT_TORCH_LAYOUT;
    // A symbol table that names the function (not stripped) must name this one.
    Dl_info di;
    if (dladdr(vtable[slot], &di) && di.dli_sname && di.dli_saddr == vtable[slot] &&
        !std::strstr(di.dli_sname, "attachAllocatorTraceTracker"))
        return VT_TORCH_LAYOUT;
    AttachFn attach = reinterpret_cast<AttachFn>(vtable[slot]);
    try {
        attach(obj, Tracker(on_event));
    } catch (...) {
        return VT_TORCH_THREW;
    }
    return VT_TORCH_OK;
}
