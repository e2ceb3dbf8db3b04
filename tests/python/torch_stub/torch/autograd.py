# SPDX-License-Identifier: MIT
# autograd.py - stub of torch.autograd: an engine whose worker thread runs backward and callbacks.
import queue
import threading

from ._tensor import Tensor


class _Engine(object):
    """One worker thread, like autograd's device thread: backward() runs there, then the
    queued callbacks run; run_on_worker runs a function there later."""

    def __init__(self):
        self.jobs = queue.Queue()
        self.callbacks = []
        self.thread = None
        self.running = False

    def _loop(self):
        while True:
            fn, done = self.jobs.get()
            try:
                fn()
            finally:
                done.set()

    def run_on_worker(self, fn):
        if self.thread is None:
            self.thread = threading.Thread(target=self._loop, name="autograd-stub", daemon=True)
            self.thread.start()
        done = threading.Event()
        self.jobs.put((fn, done))
        done.wait()

    def queue_callback(self, fn):
        if not self.running:
            raise RuntimeError("queue_callback can only be called during the backward pass")
        self.callbacks.append(fn)

    def backward(self):
        def run():
            self.running = True
            try:
                for t in reversed(Tensor.tape):
                    for h in t._hooks:
                        h(None)
                    t.grad_fn.backward_fn()
            finally:
                self.running = False
            cbs, self.callbacks = self.callbacks, []
            for cb in cbs:
                cb()
            del Tensor.tape[:]

        self.run_on_worker(run)


class Variable(object):
    _execution_engine = _Engine()


def backward():
    Variable._execution_engine.backward()
