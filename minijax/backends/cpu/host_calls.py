"""Chapter 09 — calling back into Python from a compiled kernel (for chapter 12's callbacks).

A kernel runs without the GIL, in machine code. To run a Python function in
the middle of it (``debug.print``, ``pure_callback``, ``io_callback``), the
kernel calls ONE C function, ``minijax_host_call(key, argv)``: a ctypes
callback (a *trampoline*) that takes the GIL, looks up what ``key`` stands
for, wraps the kernel's buffers (whose addresses are in ``argv``) as NumPy
arrays without copying, runs the primitive's own impl rule on them (so a
compiled callback does exactly what the interpreter's does: same call, same
checks of the results), and copies the results into the output buffers the
kernel allocated.

The kernel declares the trampoline by *name* (``ExternalFunction``), and this
module gives LLVM the name's address when it is imported, as Numba's own
``numba_xxgemm`` is found: a kernel that calls back can be cached on disk,
since no address is baked into its machine code.

Why not Numba's ``with objmode():`` blocks? They compile a second, object-mode
function per block, cost compile time, and on this Numba version failed to
compile inside loops of our kernels (an LLVM "does not dominate all uses"
error); the trampoline is one C call: about 2 us plus 1 us per buffer.

An exception raised by the Python function cannot cross the C boundary: the
trampoline keeps it (per thread), returns a nonzero status, the kernel raises,
and the executable re-raises the original exception (:func:`take_error`).
"""
from __future__ import annotations

import ctypes
import threading

import llvmlite.binding as llvm
import numpy as np

from minijax.primitives import impl_rules

__all__ = ["SYMBOL", "register_call", "take_error", "calls"]

#: The C name kernels call.
SYMBOL = "minijax_host_call"

#: key -> (primitive, params, input avals, output avals): what a kernel's call means.
calls: list = []
_keys: dict = {}
_lock = threading.Lock()
_errors = threading.local()


def register_call(eqn) -> int:
    """The key a kernel passes to call back ``eqn`` (the same equation, the same key)."""
    entry = (eqn.primitive, eqn.params, tuple(a.aval for a in eqn.invars),
             tuple(v.aval for v in eqn.outvars))
    ident = (eqn.primitive, id(eqn.params.get("callback")), entry[2], entry[3],
             tuple(sorted((k, repr(v)) for k, v in eqn.params.items() if k != "callback")))
    with _lock:
        key = _keys.get(ident)
        if key is None:
            key = _keys[ident] = len(calls)
            calls.append(entry)
        return key


def _array_at(address: int, aval) -> np.ndarray:
    """The kernel's buffer at ``address`` as a NumPy array of ``aval`` (no copy)."""
    dtype, shape = np.dtype(aval.dtype), tuple(aval.shape)
    count = int(np.prod(shape, dtype=np.int64))
    if count == 0:
        return np.empty(shape, dtype)
    buffer = (ctypes.c_char * (count * dtype.itemsize)).from_address(address)
    return np.frombuffer(buffer, dtype=dtype, count=count).reshape(shape)


@ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_int64, ctypes.c_void_p)
def _trampoline(key: int, argv: int) -> int:
    """``minijax_host_call``: run call ``key`` on the buffers listed in ``argv``
    (the inputs, then the outputs to fill). Returns 0, or 1 after an exception."""
    try:
        primitive, params, in_avals, out_avals = calls[key]
        addresses = (ctypes.c_int64 * (len(in_avals) + len(out_avals))).from_address(argv)
        args = [_array_at(a, aval).copy() for a, aval in zip(addresses, in_avals)]
        args = [x if x.shape else x[()] for x in args]
        results = impl_rules[primitive](*args, **params)
        if not primitive.multiple_results:  # (an FFT: one result, not a list of them)
            results = [results]
        for address, aval, value in zip(addresses[len(in_avals):], out_avals, results):
            _array_at(address, aval)[...] = value
        return 0
    except BaseException as e:  # noqa: BLE001  (re-raised by the executable: take_error)
        _errors.pending = e
        return 1


def take_error():
    """The exception a callback raised in this thread's last kernel, if any (once)."""
    error = getattr(_errors, "pending", None)
    _errors.pending = None
    return error


llvm.add_symbol(SYMBOL, ctypes.cast(_trampoline, ctypes.c_void_p).value)
