"""Chapter 11 — streams: one in-order work queue per device, served by a thread.

A *stream* (the word comes from CUDA) is a queue of work items that a device
runs one after the other, in the order they were enqueued. Python puts an
item on the queue and returns at once; a *worker thread* takes items off the
queue and runs them. Numba kernels are compiled with ``nogil=True``, so while
a worker runs one, the Python thread really runs beside it.

A :class:`WorkItem` is "compute these output buffers from these input
buffers". Its inputs may be futures made by earlier items, of this stream or
of another device's: the *worker* waits for them, never the Python thread.
If an input failed, the item does not run; its outputs fail with the same
error. Nothing an item does can kill the worker: every exception is caught
and stored in the item's outputs.

At interpreter exit (``atexit``) every stream is closed: work that has not
started is not run (its futures fail with a clear error, so no reader can
hang), the item that is running is allowed to finish, and the worker threads
(daemons) stop. A child made by ``os.fork()`` starts with fresh streams.
"""
from __future__ import annotations

import atexit
import contextlib
import os
import queue
import threading
import time

import numpy as np

from minijax import profiler
from minijax.runtime.futures import Completion, failed_error

__all__ = ["WorkItem", "Stream", "stream_for", "all_streams", "synchronize",
           "shutdown", "in_runtime", "running", "hold"]

_perf_counter = time.perf_counter


class _RunState(threading.local):
    """Per thread: is this thread running a work item right now?

    A work item may bind primitives itself (the NumPy interpreter backend
    evaluates a jaxpr; a ``cond`` impl runs a branch). Those nested binds
    must run right there, synchronously: queuing them on the stream that is
    busy running their parent would deadlock.
    """
    busy = False


running = _RunState()


def in_runtime() -> bool:
    """True on a thread that is running a work item (a worker, or an inline run)."""
    return running.busy


class WorkItem:
    """Compute ``outputs`` (future buffers) with ``fn()`` once ``inputs`` are ready.

    ``fn`` returns one NumPy array per output. All outputs share ``completion``.
    ``after`` are completions of other work to wait for first, for their order
    only, not their data: an error there is not this item's (chapter 12's
    runtime tokens).
    """
    __slots__ = ("name", "fn", "inputs", "outputs", "completion", "after", "t_enqueue",
                 "quick")

    def __init__(self, name, fn, inputs, outputs, completion, after=(), quick=False):
        self.name = name
        self.fn = fn
        self.inputs = inputs
        self.outputs = outputs
        self.completion = completion
        self.after = after
        self.t_enqueue = 0.0
        #: Known to finish soon: tiny work whose inputs were ready when it was
        #: queued, with nothing else to wait for (see :meth:`Stream.drain_quick`).
        self.quick = quick

    def run(self, device=None) -> None:
        """Wait for the inputs, run, fill the outputs, signal. Never raises."""
        t_start = t_end = _perf_counter()
        for done in self.after:  # ordering only
            done.wait()
        error = _wait_for(self.inputs)  # a failed input: fail the same way
        if error is None:
            try:
                t_start = _perf_counter()
                values = self.fn()
                t_end = _perf_counter()
                for out, value in zip(self.outputs, values):
                    out._data = _read_only(value)
            except BaseException as e:  # stored, never lost, never kills the worker
                error = failed_error(e)
                t_end = _perf_counter()
        self.completion.set(error)
        if profiler.is_tracing():
            profiler.record_device_event(self.name, device, self.t_enqueue, t_start, t_end,
                                         error)


def _wait_for(buffers) -> BaseException | None:
    """Wait until every future among ``buffers`` is done; the first error, if any."""
    for buf in buffers:
        done = getattr(buf, "_completion", None)
        if done is not None:
            done.wait()
            if done.error is not None:
                return done.error
    return None


def _read_only(value) -> np.ndarray:
    if type(value) is not np.ndarray:
        value = np.asarray(value)
    if value.flags.writeable:
        value = value.view()
        value.setflags(write=False)
    return value


class Stream:
    """The in-order queue of one device, and the worker thread that serves it."""

    def __init__(self, device):
        self.device = device
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._submitted = 0   # items enqueued (under _lock)
        self._finished = 0    # items run (by the worker only)
        self._slow_submitted = 0  # of those, the items not marked quick
        self._slow_finished = 0
        self._last: Completion | None = None  # the completion of the last item enqueued
        self._thread: threading.Thread | None = None
        self._closed = False

    def idle(self) -> bool:
        """Nothing queued and nothing running (a snapshot: another thread may enqueue)."""
        return self._submitted == self._finished

    def drain_quick(self) -> bool:
        """If everything pending is quick work, wait until it has run; did it?

        Work runs inline only on an idle stream (nothing may overtake work
        queued before it). A program that once had its work queued (a first
        call, whose cost was not known yet) can then stay queued for good:
        each call finds the previous one still pending and queues behind it,
        and two threads take turns with the GIL for every tiny call. When
        every pending item is marked quick (tiny, its inputs were ready and
        it waits for no token), the caller waits for them instead (they
        finish within microseconds) and the stream is idle again.
        """
        last = self._last
        if last is None or self._slow_submitted != self._slow_finished:
            return False
        last.wait()  # the stream is in order: the last item done is everything done
        return True

    def enqueue(self, item: WorkItem) -> None:
        """Put ``item`` at the end of the queue; returns at once."""
        item.t_enqueue = _perf_counter()
        with self._lock:
            if self._closed:
                item.completion.set(_closed_error())
                return
            self._submitted += 1
            if not item.quick:
                self._slow_submitted += 1
            self._last = item.completion
            if self._thread is None:
                self._start_worker()
            self._queue.put(item)

    def _start_worker(self) -> None:
        self._thread = threading.Thread(target=self._serve, daemon=True,
                                        name=f"minijax-stream-{self.device}")
        self._thread.start()

    def _serve(self) -> None:
        running.busy = True
        while True:
            item = self._queue.get()
            if item is None:  # the shutdown sentinel
                return
            if self._closed:
                item.completion.set(_closed_error())
            else:
                item.run(self.device)
            if not item.quick:
                self._slow_finished += 1
            self._finished += 1

    def synchronize(self) -> None:
        """Wait until everything enqueued so far has run."""
        done = Completion()
        self.enqueue(WorkItem("synchronize", tuple, (), (), done))
        done.wait()

    def close(self, timeout: float | None = None) -> None:
        """Stop serving: drop work that has not started, let the running item finish."""
        with self._lock:
            self._closed = True
            thread = self._thread
            if thread is not None:
                self._queue.put(None)
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)

    def __repr__(self):
        return (f"<Stream of {self.device}: {self._submitted - self._finished} "
                "item(s) pending>")


def _closed_error() -> RuntimeError:
    return RuntimeError("minijax's runtime was shut down (the interpreter is exiting) "
                        "before this computation ran.")


_streams: dict = {}
_streams_lock = threading.Lock()


def stream_for(device) -> Stream:
    """The stream of ``device`` (made on first use, kept on the device object)."""
    stream = getattr(device, "_stream", None)
    if stream is None:
        with _streams_lock:
            stream = _streams.get(device)
            if stream is None:
                stream = _streams[device] = Stream(device)
            device._stream = stream
    return stream


@contextlib.contextmanager
def hold(device=None):
    """``with hold(device):`` the device runs nothing until the block ends.

    A teaching (and testing) tool: it puts a work item at the end of the
    device's queue that waits for the block to end, so everything dispatched
    inside the block stays pending, visibly.
    """
    from minijax.devices import default_device
    gate = threading.Event()
    stream_for(device or default_device()).enqueue(
        WorkItem("hold", lambda: gate.wait() and (), (), (), Completion()))
    try:
        yield
    finally:
        gate.set()


def all_streams() -> list[Stream]:
    return list(_streams.values())


def synchronize() -> None:
    """Wait until every device has run everything enqueued so far."""
    for stream in all_streams():
        stream.synchronize()


def shutdown(timeout: float = 10.0) -> None:
    """Close every stream (called at interpreter exit)."""
    for stream in all_streams():
        stream.close(timeout)


def _forget_streams_in_child() -> None:
    """After ``os.fork()`` the child has none of the parent's worker threads: start afresh."""
    global _streams_lock
    for device in list(_streams):
        device._stream = None
    _streams.clear()
    _streams_lock = threading.Lock()


atexit.register(shutdown)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_streams_in_child)
