"""Chapter 09 — the kernel language's scalar types, as Numba types them, and their LLVM types.

The translator (:mod:`.llvm_translate`) gives every scalar value a NumPy
dtype. These are the rules Numba's typing applies to the kernel source
(read from its typing tables; ``tests/ch09_numba/test_llvm_translate.py``
checks them against Numba's own typing context for every pair of dtypes):

- a Python ``int`` literal is an int64 (a uint64 if it only fits there), a
  ``float`` literal a float64, ``True``/``False`` a bool;
- arithmetic on two integers (``+ - * // % & | ^``) is done in 64 bits:
  uint64 when both operands are unsigned, int64 otherwise (a bool counts as
  signed; ``&``, ``|``, ``^`` of two bools stay bool). That is why the kernel
  writer casts every integer result back (``np.int32(a + b)``);
- ``<<`` and ``>>`` take their type from the left operand alone (uint64 for
  an unsigned one, int64 otherwise); ``/`` of two integers is a float64;
- with a float, the result is float64 unless the other operand is float32 or
  an integer of at most 16 bits signed or 8 bits unsigned
  (:func:`float_result`; note uint16 + float32 is float64 here, although
  NumPy would say float32);
- a comparison converts both operands to one type first: NumPy's
  ``promote_types`` for two integers (int8 against uint8 compares as
  int16, int64 against uint64 as float64), the float rule above otherwise;
- a variable assigned values of different types, and the two arms of
  ``a if c else b``, get the *unified* type: NumPy's ``promote_types``.

A bool is an ``i1`` in registers and a byte in memory (a non-zero byte
reads as True); LLVM's integer types carry no sign, so the dtype says
which instruction (``sdiv`` or ``udiv``, ``sext`` or ``zext``...) to use.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from llvmlite import ir

__all__ = ["Scalar", "BOOL", "INT64", "UINT64", "FLOAT32", "FLOAT64", "llvm_type", "memory_type",
           "is_float", "is_int", "is_signed", "float_result", "arith_result", "shift_result",
           "compare_type", "unify", "literal_dtype", "cast", "truth", "from_memory",
           "to_memory"]

BOOL, INT64, UINT64 = np.dtype(np.bool_), np.dtype(np.int64), np.dtype(np.uint64)
FLOAT32, FLOAT64 = np.dtype(np.float32), np.dtype(np.float64)

_I1, _I8 = ir.IntType(1), ir.IntType(8)


@dataclass(frozen=True)
class Scalar:
    """A typed scalar value: an LLVM register value and the dtype Numba gives it."""
    value: ir.Value
    dtype: np.dtype

_FLOATS = {4: ir.FloatType(), 8: ir.DoubleType()}


def llvm_type(dtype: np.dtype) -> ir.Type:
    """The LLVM type of a scalar of ``dtype`` in a register (bool: ``i1``)."""
    if dtype == BOOL:
        return _I1
    if dtype.kind in "iu":
        return ir.IntType(8 * dtype.itemsize)
    if dtype.kind == "f" and dtype.itemsize in _FLOATS:
        return _FLOATS[dtype.itemsize]
    from minijax.backends.cpu.llvm_translate import NotTranslatable
    raise NotTranslatable(f"dtype {dtype}")


def memory_type(dtype: np.dtype) -> ir.Type:
    """The LLVM type of an array element of ``dtype`` (bool: a byte)."""
    return _I8 if dtype == BOOL else llvm_type(dtype)


def is_float(dtype) -> bool:
    return dtype.kind == "f"


def is_int(dtype) -> bool:
    """An integer or a bool (Numba's integer arithmetic takes both)."""
    return dtype.kind in "iub"


def is_signed(dtype) -> bool:
    return dtype.kind in "ib"


#: The integers Numba combines with a float32 into a float32.
_SMALL_INTS = frozenset(np.dtype(t) for t in (np.bool_, np.int8, np.int16, np.uint8))


def float_result(a: np.dtype, b: np.dtype) -> np.dtype:
    """The float type of an operation between ``a`` and ``b``, one of them a float."""
    if FLOAT64 in (a, b):
        return FLOAT64
    other = b if a == FLOAT32 else a
    return FLOAT32 if other == FLOAT32 or other in _SMALL_INTS else FLOAT64


def arith_result(op: str, a: np.dtype, b: np.dtype) -> np.dtype:
    """The result type of ``a <op> b`` (op: '+', '-', '*', '/', '//', '%', '**', '&', '|', '^')."""
    if is_float(a) or is_float(b):
        return float_result(a, b)
    if op == "/":
        return FLOAT64
    if op in "&|^" and a == BOOL and b == BOOL:
        return BOOL
    return UINT64 if a.kind == "u" and b.kind == "u" else INT64


def shift_result(a: np.dtype) -> np.dtype:
    """``a << b`` and ``a >> b``: the left operand's kind, in 64 bits."""
    return UINT64 if a.kind == "u" else INT64


def compare_type(a: np.dtype, b: np.dtype) -> np.dtype:
    """The type both operands of a comparison are converted to."""
    if is_float(a) or is_float(b):
        return float_result(a, b)
    return np.promote_types(a, b)


def unify(a: np.dtype, b: np.dtype) -> np.dtype:
    """The one type of a variable assigned both (Numba's ``unify_types`` for numbers)."""
    return np.promote_types(a, b)


def literal_dtype(value) -> np.dtype:
    """The dtype Numba gives a Python literal."""
    if isinstance(value, bool):
        return BOOL
    if isinstance(value, int):
        return INT64 if value < 2 ** 63 else UINT64
    return FLOAT64


# =============================================================================
# Conversions (Numba's ``context.cast``)
# =============================================================================
def truth(builder: ir.IRBuilder, value: ir.Value, dtype: np.dtype) -> ir.Value:
    """``bool(x)``: ``x != 0`` (a float NaN is True: an unordered compare)."""
    if dtype == BOOL:
        return value
    if is_float(dtype):
        return builder.fcmp_unordered("!=", value, ir.Constant(value.type, 0.0))
    return builder.icmp_unsigned("!=", value, ir.Constant(value.type, 0))


def cast(builder: ir.IRBuilder, value: ir.Value, src: np.dtype, dst: np.dtype) -> ir.Value:
    """``value`` of ``src`` converted to ``dst`` with the instruction Numba uses.

    float -> int is ``fptosi``/``fptoui`` (undefined out of range: the kernel
    writer clamps first where XLA defines the result); a bool becomes a
    number through an int32 (Numba's ``boolean_to_any``).
    """
    if src == dst:
        return value
    if dst == BOOL:
        return truth(builder, value, src)
    if src == BOOL:
        value, src = builder.zext(value, ir.IntType(32)), np.dtype(np.int32)
        if src == dst:
            return value
    to = llvm_type(dst)
    if is_int(src) and is_int(dst):
        if dst.itemsize == src.itemsize:
            return value
        if dst.itemsize < src.itemsize:
            return builder.trunc(value, to)
        return builder.sext(value, to) if src.kind == "i" else builder.zext(value, to)
    if is_int(src):
        return builder.sitofp(value, to) if src.kind == "i" else builder.uitofp(value, to)
    if is_int(dst):
        return builder.fptosi(value, to) if dst.kind == "i" else builder.fptoui(value, to)
    return builder.fpext(value, to) if dst.itemsize > src.itemsize else builder.fptrunc(value, to)


def from_memory(builder: ir.IRBuilder, value: ir.Value, dtype: np.dtype) -> ir.Value:
    """An element loaded from memory as a register value (a bool byte: ``!= 0``)."""
    if dtype == BOOL:
        return builder.icmp_unsigned("!=", value, ir.Constant(_I8, 0))
    return value


def to_memory(builder: ir.IRBuilder, value: ir.Value, dtype: np.dtype) -> ir.Value:
    """A register value as an array element (a bool: the byte 0 or 1)."""
    return builder.zext(value, _I8) if dtype == BOOL else value
