"""Chapter 11 — future buffers: an ``Array`` whose numbers arrive later.

Chapter 00 kept ``Array`` and its storage apart: an ``Array`` knows its
*aval* (shape, dtype, weak type) and asks its :class:`~minijax.buffers.Buffer`
for numbers through three methods, ``result()``, ``is_ready()`` and
``block()``. A :class:`FutureBuffer` answers the same three questions for
numbers that a device queue has not computed yet:

- ``is_ready()`` never waits;
- ``block()`` waits until the computation that makes the buffer has run,
  and raises its error if it failed;
- ``result()`` is ``block()`` and then the NumPy array.

All outputs of one computation share one :class:`Completion`: they become
ready together, at the very same instant, or fail together with the same
error (strict execution: chapter 12's tokens rely on it).

An error is *stored*, never lost: every reader gets a fresh copy of it,
raised ``from`` the original, so the traceback of the worker thread where it
really happened is printed under "The above exception was the direct cause".
"""
from __future__ import annotations

import copy
import threading

from minijax.buffers import Buffer

__all__ = ["Completion", "FutureBuffer", "failed_error"]


class Completion:
    """A one-shot "done" signal, with the error of the computation if it failed.

    It is a lock held while the work is pending: waiting is acquiring it and
    letting it go again. (A ``threading.Event`` would do the same, but costs
    ten times more to create, and one is created per dispatch.)
    """
    __slots__ = ("_lock", "done", "error")

    def __init__(self):
        self._lock = threading.Lock()
        self._lock.acquire()
        self.done = False
        self.error: BaseException | None = None

    def set(self, error: BaseException | None = None) -> None:
        """Mark the work finished (successfully if ``error`` is None). Call once."""
        self.error = error
        self.done = True
        self._lock.release()

    def wait(self) -> None:
        if not self.done:
            self._lock.acquire()
            self._lock.release()


def failed_error(error: BaseException) -> BaseException:
    """The original error behind ``error``, if ``error`` is a re-raised copy."""
    return getattr(error, "_minijax_original", None) or error


def _raise_stored(error: BaseException):
    """Raise a copy of a stored error, chained to the original (``raise ... from``)."""
    try:
        fresh = copy.copy(error)
        fresh.__traceback__ = None
    except Exception:  # an exception class that cannot be copied
        fresh = RuntimeError(f"{type(error).__name__}: {error}")
    fresh._minijax_original = error
    raise fresh from error


class FutureBuffer(Buffer):
    """A buffer filled later by a device queue (see the module docstring)."""
    __slots__ = ("_completion",)

    def __init__(self, device, completion: Completion):
        self._data = None
        self.device = device
        self._completion = completion

    def is_ready(self) -> bool:
        return self._completion.done

    def block(self) -> None:
        done = self._completion
        if not done.done:
            done.wait()
        if done.error is not None:
            _raise_stored(done.error)

    def result(self):
        self.block()
        return self._data

    def __repr__(self):
        state = "ready" if self._completion.done else "pending"
        if self._completion.error is not None:
            state = f"failed: {type(self._completion.error).__name__}"
        return f"<FutureBuffer on {self.device} ({state})>"
