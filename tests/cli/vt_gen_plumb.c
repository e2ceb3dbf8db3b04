// SPDX-License-Identifier: MIT
/* vt_gen_plumb.c - stand-ins for the CUDA runtime and the recorder, built twice as
 * libcudart_vtgen.so and libvramtrace_vtgen.so: vt_gen calls its allocation "API"
 * through them so that the innermost frames of every recorded stack belong to modules
 * the analyzer must fold away (their names start with libcudart / libvramtrace). */
#include <stddef.h>

typedef void (*vt_gen_cb)(void *);

#ifdef VT_GEN_CUDART
void vramtrace_vtgen_hook(vt_gen_cb cb, void *ctx);

/* The "runtime": calls into the "recorder", which captures the stack. */
void cudart_vtgen_malloc(vt_gen_cb cb, void *ctx)
{
    vramtrace_vtgen_hook(cb, ctx);
    __asm__ volatile("" ::: "memory"); /* not a tail call: this frame stays on the stack */
}
#else
void vramtrace_vtgen_hook(vt_gen_cb cb, void *ctx)
{
    cb(ctx);
    __asm__ volatile("" ::: "memory");
}
#endif
