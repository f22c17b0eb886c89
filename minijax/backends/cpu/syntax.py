"""Chapter 09 — how values are spelled in the generated kernel source.

Numba types a Python literal by its Python type: ``2.0`` is a float64 and
``2`` an int64. XLA's semantics keep float32 float32 and make int32
arithmetic wrap, so the kernel writer never leaves a bare literal or an
unconverted integer result: every constant is written with its dtype's
constructor (``np.float32(2.0)``), and integer results are cast back
(Numba computes integers in 64 bits).

**float16.** Numba has no float16 scalar type on the CPU. XLA's CPU backend
computes a float16 operation in float32 and rounds the result to float16,
one operation at a time (and so does NumPy); so does a kernel: a float16
value lives in a float32 variable holding a float16 number exactly (its
*compute* dtype, :func:`compute_dtype`), each operation's result is rounded
to float16 (``_round_f16``), and in memory it is its 16 bits (its *storage*
dtype, ``uint16``: :func:`data_shape`), converted on every read and write
(``_h2f``, ``_f2h``). For +, -, *, / and sqrt, rounding the float32 result
again to float16 gives the correctly rounded float16 result: float32 has
more than twice float16's 11 bits of precision.

**bfloat16** is handled the same way (it is float32 with the low 16 bits
cut off, so its helpers are one shift each: ``_bf2f``, ``_f2bf``,
``_round_bf16``): :func:`is_half` covers both 16-bit floats, and
:func:`half_helpers` names each one's three helpers. The 8-, 6- and 4-bit
floats are not lowered (the target refuses their dtype; their kernels run
on the interpreter).
"""
from __future__ import annotations

import numpy as np

from minijax.narrow_floats import DTYPES as _NARROW_FLOATS

BFLOAT16 = _NARROW_FLOATS.get("bfloat16")  # (None without ml_dtypes)

__all__ = ["np_dtype", "cast", "literal", "kind", "int_views", "is_threefry_key", "data_shape",
           "is_half", "half_helpers", "compute_dtype"]


def np_dtype(dtype) -> str:
    """``np.float32``, ``np.int32``, ``np.bool_``: the constructor of a dtype's
    values in a kernel (float16's is float32: see the module docstring)."""
    dtype = compute_dtype(dtype)
    return "np.bool_" if dtype == np.bool_ else f"np.{dtype.name}"


_HALVES = frozenset([np.dtype(np.float16), *([BFLOAT16] if BFLOAT16 is not None else [])])


def is_half(dtype) -> bool:
    """float16 or bfloat16: computed in float32, stored as uint16 (see the module docstring)."""
    return isinstance(dtype, np.dtype) and dtype in _HALVES  # (on every call: kept cheap)


def half_helpers(dtype) -> tuple[str, str, str]:
    """The helpers of a 16-bit float ``dtype``: (float32 -> bits, bits -> float32,
    round a float32 to the nearest value of ``dtype``)."""
    if np.dtype(dtype) == np.float16:
        return "_f2h", "_h2f", "_round_f16"
    return "_f2bf", "_bf2f", "_round_bf16"


def compute_dtype(dtype) -> np.dtype:
    """The dtype a kernel computes a value of ``dtype`` in (float16, bfloat16: float32)."""
    dtype = np.dtype(dtype)
    return np.dtype(np.float32) if is_half(dtype) else dtype


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
    if np.issubdtype(dtype, np.floating) or is_half(dtype):
        return cast(dtype, _float_text(float(val)))
    if np.issubdtype(dtype, np.complexfloating):
        return cast(dtype, f"complex({_float_text(val.real)}, {_float_text(val.imag)})")
    return cast(dtype, repr(int(val)))


def _float_text(val: float) -> str:
    return {"nan": "np.nan", "inf": "np.inf", "-inf": "-np.inf"}.get(repr(val), repr(val))


def kind(dtype) -> str:
    """'f' float (bfloat16 too), 'i' signed, 'u' unsigned, 'b' bool, 'c' complex."""
    return "f" if is_half(dtype) else np.dtype(dtype).kind


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
    """The shape and dtype constructor of an array in a kernel's memory (keys: their
    key data; float16 and bfloat16: their bits, uint16)."""
    if is_threefry_key(aval.dtype):
        return tuple(aval.shape) + (2,), "np.uint32"
    if is_half(aval.dtype):
        return tuple(aval.shape), "np.uint16"
    return tuple(aval.shape), np_dtype(aval.dtype)
