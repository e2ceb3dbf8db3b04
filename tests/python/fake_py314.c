// SPDX-License-Identifier: MIT
/* fake_py314.c - a stand-in CPython 3.14 for the recorder's _Py_DebugOffsets path, where
 * no 3.14 interpreter can be had (CI runs Debian 12: python3.11).
 *
 * The program exports what the recorder looks up in a Python process (Py_GetVersion,
 * _PyRuntime, PyGILState_GetThisThreadState, PyCode_Addr2Line, PyCode_Type,
 * PyUnicode_Type, _PyEval_EvalFrameDefault) and builds 3.14-shaped frames by hand:
 * _PyRuntime starts with a _Py_DebugOffsets laid out as CPython 3.14's
 * Include/internal/pycore_debug_offsets.h declares it (written out below field by field,
 * not taken from the recorder), whose offsets point into this file's own frame, code and
 * string structs. Those differ from 3.13's (owner at 74, co_code_adaptive at 216), so
 * frames come out right only when the recorder reads the blob. _PyEval_EvalFrameDefault
 * pushes an entry frame (owner FRAME_OWNED_BY_INTERPRETER) as a local, as 3.14's does, and
 * Python-to-Python calls add frames without C recursion. Allocations:
 *   1 MiB   <module> -> fn_a (one interpreter call) -> C -> cuMemAlloc
 *   2 MiB   <module> -> fn_a, C callback, then fn_b (a generator's frame, before its first
 *           traceable instruction: kept) -> fn_c (f_executable tagged) -> a frame still
 *           being set up (skipped) in a second interpreter call -> C -> cuMemAlloc
 * It prints the address range of _PyEval_EvalFrameDefault for check_fakepy.py.
 *
 * FAKEPY_VERSION sets the version (default 3.14.0) in Py_GetVersion and in the blob;
 * FAKEPY_FREE=1 marks the blob free-threaded; FAKEPY_BADOFF=1 puts an impossible offset
 * in it. Each of those must give one warning and no Python frames. */
#define _GNU_SOURCE
#include <cuda.h>
#include <dlfcn.h>
#include <link.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))
#define NOINLINE __attribute__((noinline))

/* ---- CPython 3.14's _Py_DebugOffsets (GIL build), field by field ---------------- */
typedef struct {
    char cookie[8];
    uint64_t version;
    uint64_t free_threaded;
    struct { uint64_t size, finalizing, interpreters_head; } runtime_state;
    struct {
        uint64_t size, id, next, threads_head, threads_main, gc, imports_modules, sysdict, builtins,
            ceval_gil, gil_runtime_state, gil_runtime_state_enabled, gil_runtime_state_locked,
            gil_runtime_state_holder, code_object_generation, tlbc_generation;
    } interpreter_state;
    struct {
        uint64_t size, prev, next, interp, current_frame, thread_id, native_thread_id, datastack_chunk, status;
    } thread_state;
    struct { uint64_t size, previous, executable, instr_ptr, localsplus, owner, stackpointer, tlbc_index; } interpreter_frame;
    struct {
        uint64_t size, filename, name, qualname, linetable, firstlineno, argcount, localsplusnames,
            localspluskinds, co_code_adaptive, co_tlbc;
    } code_object;
    struct { uint64_t size, ob_type; } pyobject;
    struct { uint64_t size, tp_name, tp_repr, tp_flags; } type_object;
    struct { uint64_t size, ob_item, ob_size; } tuple_object;
    struct { uint64_t size, ob_item, ob_size; } list_object;
    struct { uint64_t size, used, table, mask; } set_object;
    struct { uint64_t size, ma_keys, ma_values; } dict_object;
    struct { uint64_t size, ob_fval; } float_object;
    struct { uint64_t size, lv_tag, ob_digit; } long_object;
    struct { uint64_t size, ob_size, ob_sval; } bytes_object;
    struct { uint64_t size, state, length, asciiobject_size; } unicode_object;
    struct { uint64_t size, collecting; } gc;
    struct { uint64_t size, gi_name, gi_iframe, gi_frame_state; } gen_object;
    struct {
        uint64_t eval_breaker, remote_debugger_support, remote_debugging_enabled, debugger_pending_call,
            debugger_script_path, debugger_script_path_size;
    } debugger_support;
} debug_offsets_314;

/* ---- this program's objects ----------------------------------------------------- */
typedef struct { intptr_t refcnt; const void *type; } fobj;
typedef struct {                 /* a compact ASCII str (PyASCIIObject, 40 bytes, then text) */
    fobj ob;
    int64_t length;
    int64_t hash;
    uint32_t state;
    uint32_t pad;
    char text[48];
} fstr;
typedef struct {
    fobj ob;
    int64_t ob_size;
    char pad1[44];
    int firstlineno;             /* 68 */
    char pad2[40];
    fstr *filename;              /* 112 */
    fstr *name;
    fstr *qualname;
    char pad3[64];
    int firsttraceable;          /* co_code_adaptive - 16, as in CPython's GIL builds */
    int pad4;
    void *co_extra;
    uint16_t code[64];           /* co_code_adaptive, 216 */
} fcode;
typedef struct fframe {          /* _PyInterpreterFrame, 3.14 GIL build */
    uintptr_t f_executable;      /* a _PyStackRef: the low bit tags a deferred reference */
    struct fframe *previous;
    void *funcobj, *globals, *builtins, *locals, *frame_obj;
    uint16_t *instr_ptr;         /* 56 */
    void *stackpointer;
    uint16_t return_offset;
    char owner;                  /* 74 */
    uint8_t visited;
    void *localsplus[1];
} fframe;
typedef struct { char pad[88]; fframe *current_frame; } ftstate;

enum { OWNED_BY_THREAD = 0, OWNED_BY_GENERATOR = 1, OWNED_BY_INTERPRETER = 3 };

EXPORT char PyCode_Type[416];
EXPORT char PyUnicode_Type[416];
EXPORT union { debug_offsets_314 d; char bytes[8192]; } _PyRuntime;

static char version[128] = "3.14.0 (main, Dec  2 2026, 06:00:00) [GCC 12.2.0]";
static ftstate tstate;
static __thread ftstate *my_tstate;

EXPORT const char *Py_GetVersion(void) { return version; }
EXPORT int Py_IsInitialized(void) { return 1; }
EXPORT void *PyGILState_GetThisThreadState(void) { return my_tstate; }
EXPORT int PyCode_Addr2Line(void *co, int off) { return ((fcode *)co)->firstlineno + off / 2; }

static void set_str(fstr *s, const char *text)
{
    s->ob.type = PyUnicode_Type;
    s->length = (int64_t)strlen(text);
    s->state = 0x20 | 0x40 | 1 << 2;  /* compact, ascii, kind 1 */
    strcpy(s->text, text);
}

static fstr file_s, mod_s, a_s, b_s, c_s, inc_s;
static fcode mod_c, a_c, b_c, c_c, inc_c;
static fframe mod_f, a_f, b_f, c_f, inc_f;

static void set_code(fcode *c, fstr *name, int first, int firsttraceable)
{
    c->ob.type = PyCode_Type;
    c->filename = &file_s;
    c->name = c->qualname = name;
    c->firstlineno = first;
    c->firsttraceable = firsttraceable;
}

static void set_frame(fframe *f, fcode *c, int instr, char owner, int tag)
{
    f->f_executable = (uintptr_t)c | (uintptr_t)tag;
    f->instr_ptr = c->code + instr;
    f->owner = owner;
}

static void fill_offsets(void)
{
    debug_offsets_314 *d = &_PyRuntime.d;
    memcpy(d->cookie, "xdebugpy", 8);
    int major = 3, minor = 14, patch = 0;
    sscanf(version, "%d.%d.%d", &major, &minor, &patch);
    d->version = (uint64_t)major << 24 | (uint64_t)minor << 16 | (uint64_t)patch << 8 | 0xf0;
    d->free_threaded = getenv("FAKEPY_FREE") ? 1 : 0;
    d->runtime_state.size = sizeof _PyRuntime;
    d->interpreter_state.size = 4096;
    d->interpreter_state.gil_runtime_state_holder = 1000;  /* a neighbour the recorder skips */
    d->interpreter_state.tlbc_generation = 2000;
    d->thread_state.size = sizeof(ftstate);
    d->thread_state.prev = 8;
    d->thread_state.current_frame = offsetof(ftstate, current_frame);
    d->thread_state.thread_id = 3000;
    d->interpreter_frame.size = sizeof(fframe);
    d->interpreter_frame.previous = offsetof(fframe, previous);
    d->interpreter_frame.executable = offsetof(fframe, f_executable);
    d->interpreter_frame.instr_ptr = offsetof(fframe, instr_ptr);
    d->interpreter_frame.localsplus = offsetof(fframe, localsplus);
    d->interpreter_frame.owner = offsetof(fframe, owner);
    d->interpreter_frame.stackpointer = offsetof(fframe, stackpointer);
    d->interpreter_frame.tlbc_index = 4000;
    d->code_object.size = sizeof(fcode);
    d->code_object.filename = offsetof(fcode, filename);
    d->code_object.name = offsetof(fcode, name);
    d->code_object.qualname = offsetof(fcode, qualname);
    d->code_object.firstlineno = offsetof(fcode, firstlineno);
    d->code_object.co_code_adaptive = offsetof(fcode, code);
    d->code_object.co_tlbc = 5000;
    d->pyobject.size = 16;
    d->pyobject.ob_type = 8;
    d->set_object.size = 6000;
    d->unicode_object.size = 56;
    d->unicode_object.state = offsetof(fstr, state);
    d->unicode_object.length = offsetof(fstr, length);
    d->unicode_object.asciiobject_size = offsetof(fstr, text);
    d->gc.size = 7000;
    if (getenv("FAKEPY_BADOFF")) d->code_object.filename = 1u << 20;
}

/* ---- the "interpreter" ---------------------------------------------------------- */
typedef void (*c_call)(int);
EXPORT void *_PyEval_EvalFrameDefault(ftstate *ts, fframe *frame, int step);

static NOINLINE void c_alloc(int mib)
{
    CUdeviceptr p = 0;
    if (cuMemAlloc(&p, (size_t)mib << 20) != CUDA_SUCCESS) { fprintf(stderr, "fake_py314: alloc failed\n"); exit(1); }
    __asm__ volatile("" ::: "memory");
}

static NOINLINE void c_callback(int step)
{
    /* a C function that calls back into Python: a second interpreter call */
    _PyEval_EvalFrameDefault(&tstate, &b_f, step);
    __asm__ volatile("" ::: "memory");
}

/* Runs frame; Python-to-Python calls push frames onto the chain in this same C call. */
EXPORT NOINLINE void *_PyEval_EvalFrameDefault(ftstate *ts, fframe *frame, int step)
{
    fframe entry;
    memset(&entry, 0, sizeof entry);
    entry.f_executable = 1;      /* PyStackRef_None-like, not a code object */
    entry.owner = OWNED_BY_INTERPRETER;
    entry.previous = ts->current_frame;
    frame->previous = &entry;
    ts->current_frame = frame;
    if (frame == &mod_f) {
        a_f.previous = &mod_f;   /* <module> calls fn_a */
        ts->current_frame = &a_f;
        if (step == 1) c_alloc(1);
        else c_callback(step);
    } else if (frame == &b_f) {
        c_f.previous = &b_f;     /* fn_b calls fn_c, which calls a function not yet started */
        inc_f.previous = &c_f;
        ts->current_frame = &inc_f;
        c_alloc(2);
    }
    ts->current_frame = entry.previous;
    frame->previous = NULL;  /* entry is gone */
    __asm__ volatile("" ::: "memory");
    return NULL;
}

int main(void)
{
    const char *v = getenv("FAKEPY_VERSION");
    if (v) snprintf(version, sizeof version, "%s (main, fake) [GCC]", v);
    fill_offsets();
    set_str(&file_s, "fake314.py");
    set_str(&mod_s, "<module>");
    set_str(&a_s, "fn_a");
    set_str(&b_s, "Gen.fn_b");
    set_str(&c_s, "fn_c");
    set_str(&inc_s, "not_started");
    set_code(&mod_c, &mod_s, 1, 0);
    set_code(&a_c, &a_s, 10, 1);
    set_code(&b_c, &b_s, 20, 3);
    set_code(&c_c, &c_s, 30, 2);
    set_code(&inc_c, &inc_s, 40, 4);
    set_frame(&mod_f, &mod_c, 5, OWNED_BY_THREAD, 0);      /* line 6 */
    set_frame(&a_f, &a_c, 2, OWNED_BY_THREAD, 1);         /* line 12, tagged */
    set_frame(&b_f, &b_c, 0, OWNED_BY_GENERATOR, 0);      /* line 20: a generator's, kept */
    set_frame(&c_f, &c_c, 7, OWNED_BY_THREAD, 1);         /* line 37, tagged */
    set_frame(&inc_f, &inc_c, 1, OWNED_BY_THREAD, 0);     /* before instruction 4: skipped */
    my_tstate = &tstate;

    Dl_info di;
    const ElfW(Sym) *es = NULL;
    if (!dladdr1((void *)_PyEval_EvalFrameDefault, &di, (void **)&es, RTLD_DL_SYMENT) || !es) return 2;
    printf("eval 0x%llx %llu\n", (unsigned long long)(uintptr_t)_PyEval_EvalFrameDefault,
           (unsigned long long)es->st_size);
    if (cuInit(0) != CUDA_SUCCESS) return 2;
    _PyEval_EvalFrameDefault(&tstate, &mod_f, 1);
    _PyEval_EvalFrameDefault(&tstate, &mod_f, 2);
    return 0;
}
