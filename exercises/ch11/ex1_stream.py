"""Exercise 1 of chapter 11: a device stream of your own.

A *stream* is a device's in-order queue of work, served by one worker thread
(``minijax/runtime/streams.py``). Here you write one and plug it in as the
stream of a device: from then on every eager primitive, every jitted call and
every ``device_put`` on that device goes through your queue and your thread.

What the executor asks of a stream (read ``minijax/runtime/executor.py``):

- ``stream.enqueue(item)``: put a :class:`~minijax.runtime.streams.WorkItem`
  at the end of the queue and return at once, without running it;
- ``stream.idle()``: nothing queued and nothing running (the executor runs
  tiny work inline, on the caller's thread, only on an idle stream);
- ``stream.drain_quick()``: may always answer False (written for you).

A ``WorkItem`` has ``fn`` (called with no arguments, it returns one NumPy
array per output), ``inputs`` (buffers; those still being computed are
``FutureBuffer`` s, whose ``_completion`` says when they are done and with
which error), ``outputs`` (the ``FutureBuffer`` s to fill: ``out._data =
value``), ``completion`` (one :class:`~minijax.runtime.futures.Completion`
shared by all the outputs) and ``after`` (completions to wait for first,
for their order only: chapter 12's tokens).

Write:

1. ``Stream.__init__``: a queue (``queue.SimpleQueue``), the two counters
   ``submitted`` and ``finished`` that ``idle()`` reads, and a daemon worker
   thread running ``self._serve``.
2. ``Stream.enqueue(item)``: count it, put it on the queue, return.
3. ``Stream._serve()``: forever: take the next item, ``run_item`` it, count
   it as finished. Set ``running.busy = True`` first (from
   ``minijax.runtime.streams``): a primitive bound *inside* a work item (an
   interpreter evaluating a jaxpr) must run right there, not be queued
   behind the item that binds it.
4. ``run_item(item)``: wait for every completion in ``item.after`` (their
   errors are not this item's); wait for every input that is a future, and
   if one failed, fail the item with *that* error without calling ``fn``;
   else call ``fn`` and store each value in its output. Whatever happens,
   call ``item.completion.set(error)`` exactly once (``None`` on success),
   and never let an exception escape: it would kill the worker, and every
   later item would wait forever. The error is raised later, where a value
   is read (``FutureBuffer.block`` does that part).

Check it: ``make exercise-ch11`` (or ``pytest exercises/ch11/test_ex1_stream.py``).

Hint: ``WorkItem.run`` is chapter 11's answer; try first without reading it.
A ``Completion`` has ``wait()``, ``done`` and ``error``; an output's value
should be a NumPy array (``np.asarray``).
"""
import queue  # noqa: F401  (you will need it)
import threading  # noqa: F401

import numpy as np  # noqa: F401

from minijax.runtime.streams import WorkItem, running  # noqa: F401


def run_item(item: WorkItem) -> None:
    """Wait for ``item``'s inputs, run it, fill its outputs, signal. Never raises."""
    raise NotImplementedError("exercise 1 of chapter 11: run_item")


class Stream:
    """An in-order queue of work items and the worker thread that serves it."""

    def __init__(self, device):
        self.device = device
        raise NotImplementedError("exercise 1 of chapter 11: Stream.__init__")

    def enqueue(self, item: WorkItem) -> None:
        """Put ``item`` at the end of the queue; return at once."""
        raise NotImplementedError("exercise 1 of chapter 11: Stream.enqueue")

    def _serve(self) -> None:
        """The worker thread: run the items one after the other, in order."""
        raise NotImplementedError("exercise 1 of chapter 11: Stream._serve")

    # --- written for you ---------------------------------------------------------------
    def idle(self) -> bool:
        return self.submitted == self.finished

    def drain_quick(self) -> bool:
        return False


def install(device) -> None:
    """Make a :class:`Stream` of yours the stream of ``device`` (``stream_for`` reads
    ``device._stream``); :func:`uninstall` puts chapter 11's back."""
    device._previous_stream = getattr(device, "_stream", None)
    device._stream = Stream(device)


def uninstall(device) -> None:
    device._stream = device._previous_stream
