// SPDX-License-Identifier: MIT
// fake_c10_cuda.cc - a stand-in libc10_cuda.so for CI (no GPU, no PyTorch): it exports
// the global c10::cuda::CUDACachingAllocator::allocator of torch 2.11 and an object
// whose vtable has attachAllocatorTraceTracker in slot 44, and calls the attached
// trackers with TraceEntry objects of torch 2.11's layout when tt_prog asks (fake_emit).
// Built twice: with FAKE_SHIFTED, one more function comes before the attach (slot 45, as
// in some other version), and the functions are in the dynamic symbol table, so that
// vramtrace's check of the slot's name refuses it rather than calling it.
#include <atomic>
#include <cstdint>
#include <cstddef>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace fake {

// torch 2.11's c10::CachingDeviceAllocator::TraceEntry (measured: sizeof 136, addr at 8,
// stream at 32, size at 40, mempool at 48, time at 64).
struct TraceEntry {
    int action;
    int8_t device;
    std::size_t addr;
    std::shared_ptr<void> context;
    void *stream;
    std::size_t size;
    std::pair<unsigned long long, unsigned long long> mempool;
    int64_t time;
    std::string compile_context = "N/A";
    std::string user_metadata;
};
static_assert(sizeof(TraceEntry) == 136, "torch 2.11's TraceEntry is 136 bytes");

using Tracker = std::function<void(const TraceEntry &)>;
std::vector<Tracker> trackers;

// Slots 2..43: functions never called; then attachAllocatorTraceTracker.
struct __attribute__((visibility("default"))) FakeAllocator {
    virtual ~FakeAllocator() = default;
#define F(n) virtual void f##n() { std::abort(); }
    F(2) F(3) F(4) F(5) F(6) F(7) F(8) F(9) F(10) F(11) F(12) F(13) F(14) F(15) F(16) F(17)
    F(18) F(19) F(20) F(21) F(22) F(23) F(24) F(25) F(26) F(27) F(28) F(29) F(30) F(31)
    F(32) F(33) F(34) F(35) F(36) F(37) F(38) F(39) F(40) F(41) F(42) F(43)
#undef F
#ifdef FAKE_SHIFTED
    virtual void f44() { std::abort(); }
#endif
    virtual void attachAllocatorTraceTracker(Tracker t) { trackers.push_back(std::move(t)); }
    virtual void f46() { std::abort(); }
};

} // namespace fake
using namespace fake;

// The object is made at load time, as PyTorch's allocator is (its init comes later).
namespace c10 { namespace cuda { namespace CUDACachingAllocator {
__attribute__((visibility("default"))) std::atomic<void *> allocator;
} } }

__attribute__((constructor)) static void fake_init()
{
    c10::cuda::CUDACachingAllocator::allocator.store(static_cast<void *>(new FakeAllocator));
}

// Named as PyTorch's is, so that blocks' stacks hold the frames the built-in `cache` rule
// names (c10::cuda::CUDACachingAllocator::Native::...): a block must still not count as
// a segment.
namespace c10 { namespace cuda { namespace CUDACachingAllocator { namespace Native {
__attribute__((noinline, visibility("default"))) void record_trace(const fake::TraceEntry &e)
{
    for (const fake::Tracker &t : fake::trackers) t(e);
    __asm__ volatile("" ::: "memory");  // keeps this frame (no tail call)
}
} } } }

extern "C" __attribute__((visibility("default"))) void fake_emit(int action, int device, uint64_t addr,
                                                                 uint64_t size, uint64_t stream, int pool)
{
    TraceEntry e{ action, (int8_t)device, addr, nullptr, (void *)(uintptr_t)stream, size,
                  { (unsigned long long)pool, 0ull }, 0, "N/A", "" };
    c10::cuda::CUDACachingAllocator::Native::record_trace(e);
}

extern "C" __attribute__((visibility("default"))) std::size_t fake_trackers(void) { return trackers.size(); }
