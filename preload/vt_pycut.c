// SPDX-License-Identifier: MIT
/* vt_pycut.c - where a native stack under Python frames stops saying anything.
 *
 * A stack with Python frames holds, outside the innermost call of the interpreter loop,
 * native frames that are the interpreter's own: the loop itself, the C calls between
 * two Python levels (an nn.Module is called through its type's C slot, so each module
 * level adds a few), and the program's start (main, libc). Every Python frame is kept
 * anyway, so they add nothing a view shows (the rules class them as interpreter), while
 * each costs the memo a check of its words on every allocation: on a PyTorch model
 * those frames are most of a 56-frame walk (docs/benchmarks.md, section 7, fourth
 * pass). So the walk is kept only up to the first frame that returns into the loop
 * when every frame from there out is in the interpreter's own objects (the one holding
 * _PyEval_EvalFrameDefault, the executable, libc). Anything else out there (a native
 * library calling Python back: PyTorch's autograd engine running a Python backward,
 * ctypes callbacks, TorchDynamo's frame hook) keeps the whole walk.
 * VRAMTRACE_INTERPRETER_FRAMES=1 keeps it always. */
#include "vt_pycut.h"
#include "vt_py.h"

#include <gnu/libc-version.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>

#define VT_CUT_RANGES 32

/* The executable segments of the interpreter's own objects, found once (at the first
 * stack that could be cut) and read-only after: process-wide because the objects are. */
static struct {
    int       n;
    uintptr_t lo[VT_CUT_RANGES], hi[VT_CUT_RANGES];
} vt_cut;
static pthread_once_t vt_cut_once = PTHREAD_ONCE_INIT;

typedef struct {
    uintptr_t eval, libc;
    int       seen;   /* objects reported so far: the first is the executable */
} vt_cut_find;

static int holds(const struct dl_phdr_info *info, uintptr_t a)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *p = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + p->p_vaddr;
        if (p->p_type == PT_LOAD && a >= lo && a - lo < p->p_memsz) return 1;
    }
    return 0;
}

/* No allocation and no lock here: dl_iterate_phdr holds the loader's lock. */
static int ranges_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    vt_cut_find *f = arg;
    int first = f->seen++ == 0;
    if (!first && !holds(info, f->eval) && !holds(info, f->libc)) return 0;
    for (int i = 0; i < info->dlpi_phnum && vt_cut.n < VT_CUT_RANGES; i++) {
        const ElfW(Phdr) *p = &info->dlpi_phdr[i];
        if (p->p_type != PT_LOAD || !(p->p_flags & PF_X)) continue;
        vt_cut.lo[vt_cut.n] = info->dlpi_addr + p->p_vaddr;
        vt_cut.hi[vt_cut.n++] = info->dlpi_addr + p->p_vaddr + p->p_memsz;
    }
    return 0;
}

static void find_ranges(void)
{
    vt_cut_find f = { vt_py_eval_lo(), (uintptr_t)&gnu_get_libc_version, 0 };
    if (f.eval) dl_iterate_phdr(ranges_cb, &f);
}

static int interpreter_ip(uintptr_t ip)
{
    for (int i = 0; i < vt_cut.n; i++)
        if (ip - 1 >= vt_cut.lo[i] && ip - 1 < vt_cut.hi[i]) return 1;
    return 0;
}

int vt_pycut_at(void *const *ips, int n)
{
    int e = 0;
    while (e < n && !vt_py_eval_ip((uintptr_t)ips[e])) e++;
    if (e == 0 || e >= n) return n;
    pthread_once(&vt_cut_once, find_ranges);
    for (int i = e; i < n; i++)
        if (!interpreter_ip((uintptr_t)ips[i])) return n;
    return e;
}
