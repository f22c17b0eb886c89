"""Exercise 2 of chapter 11: an asynchronous ``device_put``.

In chapter 00 ``device_put`` copied the data at once. Chapter 11 makes the
copy a piece of work on the device's queue, like any computation: the call
returns an ``Array`` whose buffer is a future, and the copy runs when the
device gets to it. Chapter 00 left a hook for this,
``minijax.transfers.set_transfer_hook(hook)``; chapter 11 fills it with
``executor.transfer``. Here you write your own and install it.

``transfer(source, weak, device)`` is called with ``source`` a NumPy array
(``device_put(np.ones(3))``; a Python scalar arrives as a 0-d NumPy array)
or a minijax ``Array`` (``device_put(x, other_device)``), ``weak`` the weak
type the result must have, and ``device`` the target (``None``: the default
device, ``minijax.devices()[0]``). It returns the new ``Array``. Write it:

1. the result's type: for an ``Array`` source, its aval with the weak type
   set to ``weak`` (``aval.update(weak_type=weak)``); for NumPy data,
   ``ShapedArray(shape, canonicalize_dtype(dtype), weak)`` (float64 becomes
   float32, as in JAX);
2. if this thread is running a work item (``running.busy``), copy now and
   return ``Array(aval, Buffer(copy, device))``: queuing would deadlock;
3. otherwise queue the copy: one ``Completion``, one ``FutureBuffer(device,
   completion)``, and a ``WorkItem("device_put", fn, inputs, [future],
   completion)`` on ``stream_for(device)``, where ``fn`` returns a list of
   one NumPy array of ``aval``'s dtype, and ``inputs`` is the source's
   buffer for an ``Array`` source (the worker waits for it: it may itself be
   a future) and empty for NumPy data. Return ``Array(aval, future)`` at once.

One trap: the caller may write into its NumPy array right after the call
returns. Your copy must show the data *as it was at the call*, so take a
private copy (``np.array(source)``) before you queue.

Check it: ``make exercise-ch11`` (or ``pytest exercises/ch11/test_ex2_device_put.py``).

Hints: ``np.array(x, dtype=...)`` copies and converts; an ``Array`` ``x``'s
buffer is ``x._buffer`` and its numbers (once ready) ``x._value``.
"""
import numpy as np  # noqa: F401

from minijax.abstract_arrays import ShapedArray  # noqa: F401
from minijax.array import Array  # noqa: F401
from minijax.buffers import Buffer  # noqa: F401
from minijax.devices import default_device  # noqa: F401
from minijax.dtypes import canonicalize_dtype  # noqa: F401
from minijax.runtime.futures import Completion, FutureBuffer  # noqa: F401
from minijax.runtime.streams import WorkItem, running, stream_for  # noqa: F401


def transfer(source, weak: bool, device):
    """``device_put``'s hook: ``source`` (NumPy data or an Array) as an Array on ``device``."""
    raise NotImplementedError("exercise 2 of chapter 11: transfer")
