# SPDX-License-Identifier: MIT
"""The recorder's cost per PyTorch block (issue 23's blocks mode) without a GPU or torch:
block alloc+free pairs through vramtrace_torch_event, the recorder's entry for PyTorch's
allocator trace tracker, from deep native stacks under Python frames.

    LD_PRELOAD=libvramtrace.so python3 bench_blocks.py --lib libbench_blocks.so [options]

A "step" runs --layers layers of 8 operators (each a ctypes call of bb_op from its own
Python line, --pydepth Python frames deep, some of them one or two frames deeper, as in
submodules, descending --depth native frames in
bench_blocks_lib.c before its events): one block handed out and the previous one made
free per operator, as a forward pass does. With --native N, each step then has N pairs
on a thread Python never ran on (the autograd engine's backward). Under the recorder,
steps alternate in blocks of --block between recording on and paused
(vramtrace_set_recording), as tests/gpu/bench_steps.py does on the GPU; untraced, all
steps are "untraced". Prints one key=value line per mode, ns per pair (median step /
pairs per step), then `cost` (on - paused) when both were run. Times are the thread's own
CPU time (CLOCK_THREAD_CPUTIME_ID): on a busy machine wall time also counts the other
processes' turns, and the writer thread's work runs on another core of a GPU machine."""
import argparse
import ctypes
import statistics
import sys
import time

ap = argparse.ArgumentParser()
ap.add_argument("--lib", required=True, help="libbench_blocks.so")
ap.add_argument("--steps", type=int, default=200, help="timed steps per mode")
ap.add_argument("--warmup", type=int, default=20)
ap.add_argument("--block", type=int, default=10, help="steps per alternated block")
ap.add_argument("--layers", type=int, default=12)
ap.add_argument("--pydepth", type=int, default=10, help="Python frames above each operator")
ap.add_argument("--depth", type=int, default=40, help="native frames each operator descends")
ap.add_argument("--native", type=int, default=0, help="pairs per step on a thread without Python")
ap.add_argument("--module-calls", action="store_true",
                help="the outer Python frames call each other as nn.Module does, through a class's "
                     "__call__ (a C-level entry into the interpreter per level) instead of directly")
ap.add_argument("--thrash", type=int, default=0, metavar="KB",
                help="KiB each operator reads (and writes) before its events: cold caches, as in a real program")
ap.add_argument("--tlb", type=int, default=0, metavar="PAGES",
                help="4 KiB pages each operator reads a word of before its events: the TLB cold, as in a real program")
ap.add_argument("--mark", action="store_true",
                help="bracket each block handed out from Python by stores to a fixed page, per mode (bench_pages.sh)")
ap.add_argument("--maps", default=None, help="write the process's memory map there at the end (bench_pages.sh)")
a = ap.parse_args()

lib = ctypes.CDLL(a.lib)
traced = lib.bb_init() == 1
op = lib.bb_op
op.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_uint64, ctypes.c_uint64]
op.restype = None
native = lib.bb_native
native.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int]
native.restype = ctypes.c_uint64
D = a.depth
if lib.bb_thrash(a.thrash):
    sys.exit("bench_blocks.py: no memory for --thrash")
if lib.bb_tlb(a.tlb):
    sys.exit("bench_blocks.py: no memory for --tlb")
BASE = 0x7e0000000000
state = [BASE]


def alloc(k):
    """One operator: a block after the last one, which it frees."""
    p = state[0]
    state[0] = p + 512
    op(k, D, p + 512, p)


def sub(k):
    """A submodule: its operators sit one Python frame deeper than their neighbours'."""
    alloc(k)


def sub2(k):
    sub(k)


def layer():
    alloc(0)
    alloc(1)
    sub(2)
    alloc(3)
    sub2(4)
    sub(5)
    alloc(6)
    sub2(7)


def nest(d, fn):
    if d <= 1:
        return fn()
    return nest(d - 1, fn)


class Module:
    """Calling an instance enters the interpreter again from C (slot_tp_call), as each
    nn.Module level of a PyTorch model does: its frames form one more group."""

    def __call__(self, d, fn):
        if d <= 1:
            return fn()
        return self(d - 1, fn)


module = Module()


def step():
    for _ in range(a.layers):
        if a.module_calls:
            module(a.pydepth - 2, layer)
        else:
            nest(a.pydepth - 2, layer)


def set_recording(on):
    ctypes.CDLL(None).vramtrace_set_recording(1 if on else 0)


modes = ["on", "paused"] if traced else ["untraced"]
py_ns = {m: [] for m in modes}
nat_ns = {m: [] for m in modes}
pairs = a.layers * 8
for _ in range(a.warmup):
    step()
    if a.native:
        native(a.native, D, 8)
while any(len(v) < a.steps for v in py_ns.values()):
    for m in modes:
        if a.mark and lib.bb_mark(2 if m == "paused" else 1):
            sys.exit("bench_blocks.py: no page for --mark")
        if m == "paused":
            set_recording(False)
        for _ in range(a.block):
            t0 = time.thread_time_ns()
            step()
            py_ns[m].append((time.thread_time_ns() - t0) / pairs)
            if a.native:
                nat_ns[m].append(native(a.native, D, 8) / a.native)
        if m == "paused":
            set_recording(True)
        if a.mark:
            lib.bb_mark(0)
for m in modes:
    line = "mode=%s py_ns_per_pair=%.1f" % (m, statistics.median(py_ns[m]))
    if a.native:
        line += " native_ns_per_pair=%.1f" % statistics.median(nat_ns[m])
    print(line)
if traced:
    line = "cost py_ns_per_pair=%.1f" % (statistics.median(py_ns["on"]) - statistics.median(py_ns["paused"]))
    if a.native:
        line += " native_ns_per_pair=%.1f" % (statistics.median(nat_ns["on"]) - statistics.median(nat_ns["paused"]))
    print(line)
sys.stdout.flush()
if a.maps:
    with open("/proc/self/maps") as f, open(a.maps, "w") as o:
        o.write(f.read())
