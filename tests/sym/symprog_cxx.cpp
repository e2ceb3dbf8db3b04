// SPDX-License-Identifier: MIT
// symprog_cxx.cpp - C++ sites: a mangled member function of a namespaced class, and a
// namespaced function with an inlined namespaced helper.
#include "symprog.h"

namespace ns {

struct Klass {
    int v;
    __attribute__((noinline)) int method(int x);
};

int Klass::method(int x)
{
    symprog_record("cxx_method", "ns::Klass::method(int)", __FILE__, __LINE__, nullptr, 0);
    return v + x;
}

static inline __attribute__((always_inline)) void helper(int outer_line)
{
    symprog_record("cxx_inline", "ns::helper", __FILE__, __LINE__, "ns::free_fn(double)", outer_line);
}

__attribute__((noinline)) void free_fn(double)
{
    helper(__LINE__);
}

} // namespace ns

extern "C" void symprog_cxx_entry(void)
{
    ns::Klass k{1};
    volatile int r = k.method(2);
    (void)r;
    ns::free_fn(1.0);
}
