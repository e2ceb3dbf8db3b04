// SPDX-License-Identifier: MIT
/* vt_control.c - the one function a program may call: pause and resume recording.
 *
 * vramtrace needs no code change; this is for the program that wants a trace of a window
 * only (a few training steps out of thousands), and for measuring the recorder itself in
 * one process: tests/gpu/bench_steps.py alternates blocks of steps with recording on and
 * off, which removes the process-to-process spread a separate untraced run has. Found
 * with dlsym, so a program can call it when preloaded and do nothing otherwise:
 *
 *     f = getattr(ctypes.CDLL(None), "vramtrace_set_recording", None)
 *     if f: f(0)   # ... steps not recorded ...; f(1)
 *
 * While paused, the wrappers still call the driver and nothing else: no device lookup,
 * no stack, no event. Each change of state is a PAUSE record, so the analyzer can say
 * that memory allocated or freed then is missing from its figures. */
#include "vt_format.h"
#include "vt_global.h"
#include "vt_side.h"

#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Orders the state changes and their records: two threads switching at once must not
 * leave a resume in the trace before the pause it ends. Taken only by this function. */
static pthread_mutex_t vt_control_mu = PTHREAD_MUTEX_INITIALIZER;

/* Returns what recording was before the call: 1 on, 0 paused; -1 when this process is
 * not being traced (disabled, bad configuration, a fork child, a write error). */
VT_EXPORT int vramtrace_set_recording(int on)
{
    if (atomic_load_explicit(&vt_g.state, memory_order_acquire) < VT_ST_IDLE) return -1;
    pthread_mutex_lock(&vt_control_mu);
    int was = atomic_exchange_explicit(&vt_g.paused, on ? 0 : 1, memory_order_acq_rel);
    if (was != !on) {
        vt_rec r = { .type = VT_REC_PAUSE, .device = -1, .tid = (uint32_t)syscall(SYS_gettid), .time_ns = vt_now(),
                     .aux0 = on ? 0 : 1 };
        vt_side_push(&r);
    }
    pthread_mutex_unlock(&vt_control_mu);
    return !was;
}

/* Whether recording is on (1), paused (0), or -1 when this process is not being traced;
 * changes nothing (vramtrace.is_recording() in Python). */
VT_EXPORT int vramtrace_recording(void)
{
    if (atomic_load_explicit(&vt_g.state, memory_order_acquire) < VT_ST_IDLE) return -1;
    return !atomic_load_explicit(&vt_g.paused, memory_order_acquire);
}
