// vt_gen_cxx.cpp - a C++ allocation site for vt_gen, so that reports show demangled  (SPDX-License-Identifier: MIT)
// names (namespace, class, overload arguments).
#include <cstdint>

extern "C" {
typedef void (*vt_gen_cb)(void *);
void cudart_vtgen_malloc(vt_gen_cb cb, void *ctx);
void vt_gen_capture(void *ctx);
extern uint32_t vt_gen_stack;
uint32_t vt_gen_cxx_site(int n);
}

namespace model {
struct Layer {
    static uint32_t alloc_kv_cache(int n);
};

uint32_t Layer::alloc_kv_cache(int n)
{
    cudart_vtgen_malloc(vt_gen_capture, nullptr);
    return vt_gen_stack + (uint32_t)(n * 0);
}
} // namespace model

uint32_t vt_gen_cxx_site(int n)
{
    uint32_t s = model::Layer::alloc_kv_cache(n);
    return s;
}
