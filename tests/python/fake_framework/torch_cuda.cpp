// SPDX-License-Identifier: MIT
// torch_cuda.cpp - a stand-in libtorch_cuda.so: an ATen operator as PyTorch builds one
// (at::_ops::NAME::call -> a structured kernel's set_output -> at::empty_strided -> the
// caching allocator in libc10_cuda.so), reached from Python through ctypes. No GPU.
#include <cstddef>
#include <thread>

namespace c10 { namespace cuda { namespace CUDACachingAllocator {
void *raw_alloc(std::size_t size);
void raw_delete(void *p);
} } }

namespace at {
namespace _ops {
struct empty_strided { static void *call(std::size_t bytes); };
struct log_softmax { static void *call(std::size_t bytes); };
struct _log_softmax_backward_data { static void *call(std::size_t bytes); };
}

namespace native {
namespace {
struct structured_log_softmax_cuda_out_functional {
    void *out = nullptr;
    void set_output_raw_strided(std::size_t bytes);
};

__attribute__((noinline)) void structured_log_softmax_cuda_out_functional::set_output_raw_strided(std::size_t bytes)
{
    out = at::_ops::empty_strided::call(bytes);
}
} // namespace

__attribute__((noinline)) void *log_softmax_cuda(std::size_t bytes)
{
    structured_log_softmax_cuda_out_functional op;
    op.set_output_raw_strided(bytes);
    return op.out;
}
} // namespace native

__attribute__((noinline)) void *_ops::empty_strided::call(std::size_t bytes)
{
    return c10::cuda::CUDACachingAllocator::raw_alloc(bytes);
}

__attribute__((noinline)) void *_ops::log_softmax::call(std::size_t bytes)
{
    return native::log_softmax_cuda(bytes);
}

__attribute__((noinline)) void *_ops::_log_softmax_backward_data::call(std::size_t bytes)
{
    return _ops::empty_strided::call(bytes);
}
} // namespace at

// Backward runs on autograd's own threads, which hold no Python frames.
namespace torch { namespace autograd {
struct Engine {
    static void thread_main(std::size_t bytes, void **out);
};

__attribute__((noinline)) void Engine::thread_main(std::size_t bytes, void **out)
{
    *out = at::_ops::_log_softmax_backward_data::call(bytes);
}
} }

// What torch's Python binding would call.
extern "C" void *fake_torch_log_softmax(std::size_t bytes)
{
    return at::_ops::log_softmax::call(bytes);
}

extern "C" void *fake_torch_backward(std::size_t bytes)
{
    void *out = nullptr;
    std::thread t(torch::autograd::Engine::thread_main, bytes, &out);
    t.join();
    return out;
}

extern "C" void *fake_torch_empty(std::size_t bytes)
{
    return at::_ops::empty_strided::call(bytes);
}

extern "C" void fake_torch_free(void *p)
{
    c10::cuda::CUDACachingAllocator::raw_delete(p);
}
