// SPDX-License-Identifier: MIT
/* symlib.c - a shared object that sym_prog dlopens. Built several times: plainly, split
 * (debug info in a .build-id tree), with minidebuginfo only, and once more with
 * SYMLIB_OTHER (same file name, other content, so another build-id). SYMLIB_TAG names
 * the build's sites. */
#include "symprog.h"

#ifndef SYMLIB_TAG
#define SYMLIB_TAG "lib"
#endif

__attribute__((noinline)) static void lib_static(symprog_rec_fn rec)
{
    rec(SYMLIB_TAG "_static", "lib_static", __FILE__, __LINE__, 0, 0);
}

void symlib_entry(symprog_rec_fn rec)
{
    rec(SYMLIB_TAG "_global", "symlib_entry", __FILE__, __LINE__, 0, 0);
    lib_static(rec);
}

#ifdef SYMLIB_OTHER
int symlib_other_extra(int x)
{
    return 3 * x;
}
#endif
