"""Chapter 09 — how values are spelled in the generated kernel source.

Numba types a Python literal by its Python type: ``2.0`` is a float64 and
``2`` an int64. XLA's semantics keep float32 float32 and make int32
arithmetic wrap, so the kernel writer never leaves a bare literal or an
unconverted integer result: every constant is written with its dtype's
constructor (``np.float32(2.0)``), and integer results are cast back
(Numba computes integers in 64 bits).
"""
from __future__ import annotations

import numpy as np

__all__ = ["np_dtype", "cast", "literal", "kind", "int_views", "is_threefry_key", "data_shape"]


def np_dtype(dtype) -> str:
    """``np.float32``, ``np.int32``, ``np.bool_``: the constructor of a dtype."""
    dtype = np.dtype(dtype)
    return "np.bool_" if dtype == np.bool_ else f"np.{dtype.name}"


def cast(dtype, expr: str) -> str:
    """``expr`` converted to ``dtype`` (not repeated when it already is)."""
    ctor = np_dtype(dtype)
    if expr.startswith(ctor + "(") and _balanced(expr[len(ctor):]):
        return expr
    return f"{ctor}({expr})"


def _balanced(call: str) -> bool:
    """Is ``call`` one parenthesized group, ``(...)``, with nothing after it?"""
    depth = 0
    for k, ch in enumerate(call):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth == 0:
            return k == len(call) - 1
    return False


def literal(val, dtype) -> str:
    """A scalar constant of ``dtype``, written so Numba types it as ``dtype``."""
    dtype = np.dtype(dtype)
    val = np.asarray(val).astype(dtype).item()
    if dtype == np.bool_:
        return repr(bool(val))
    if np.issubdtype(dtype, np.floating):
        return cast(dtype, _float_text(val))
    if np.issubdtype(dtype, np.complexfloating):
        return cast(dtype, f"complex({_float_text(val.real)}, {_float_text(val.imag)})")
    return cast(dtype, repr(int(val)))


def _float_text(val: float) -> str:
    return {"nan": "np.nan", "inf": "np.inf", "-inf": "-np.inf"}.get(repr(val), repr(val))


def kind(dtype) -> str:
    """'f' float, 'i' signed, 'u' unsigned, 'b' bool, 'c' complex."""
    return np.dtype(dtype).kind


def int_views(dtype):
    """The bit width, and the unsigned and signed integer dtypes as wide as ``dtype``."""
    bits = 8 * np.dtype(dtype).itemsize
    return bits, np.dtype(f"uint{bits}"), np.dtype(f"int{bits}")


def is_threefry_key(dtype) -> bool:
    """A typed PRNG key of chapter 13's threefry (stored as two uint32 words).
    Inside a kernel an array of keys is its key data: uint32, one more axis of 2."""
    return (getattr(dtype, "extended", False)
            and np.dtype(dtype).names == ("threefry2x32",))


def data_shape(aval) -> tuple[tuple, str]:
    """The shape and dtype constructor of a value inside a kernel (keys: their key data)."""
    if is_threefry_key(aval.dtype):
        return tuple(aval.shape) + (2,), "np.uint32"
    return tuple(aval.shape), np_dtype(aval.dtype)
