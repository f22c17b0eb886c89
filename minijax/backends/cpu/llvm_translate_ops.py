"""Chapter 09 — the kernel language's scalar operations, lowered as Numba lowers them.

Each function takes typed values (:class:`.llvm_translate_types.Scalar`),
types the result by Numba's rules (:mod:`.llvm_translate_types`) and emits
the instructions Numba's lowering emits for the same operation (its
``numba/cpython/numbers.py``, ``mathimpl.py`` and ``npyfuncs.py``), so that
LLVM, given the same instructions and no fast-math flags, computes the
same bits:

- ``+ - *`` on signed integers carry ``nsw`` (Numba's choice, which lets
  LLVM simplify index arithmetic);
- ``//`` and ``%`` follow Python: the quotient is floored, the remainder
  has the divisor's sign. Numba's ``error_model="numpy"`` makes an integer
  division by zero give 0 (no exception) and ``INT_MIN // -1`` give 0; a
  float one by zero gives ``x / 0`` and ``fmod(x, 0)``. The float case is
  CPython's ``float_divmod`` (``fmod``, then a correction and a snap of the
  quotient to an integer), instruction for instruction;
- ``-x`` on a float is ``-0.0 - x`` (Numba's ``negate_real``); ``!=`` on
  floats is the *unordered* compare (True for NaN), the others ordered;
- ``min(a, b)`` is ``b if b < a else a`` and ``max(a, b)`` ``b if b > a
  else a`` (Python's algorithm: the first argument wins ties and NaNs);
- the math functions call what Numba calls: an LLVM intrinsic
  (``llvm.floor.f32``, ``llvm.exp.f32``...) or the C library (``sqrtf``,
  ``tanhf``, ``log1pf``...): :data:`MATH`.
"""
from __future__ import annotations

import numpy as np
from llvmlite import ir

from minijax.backends.cpu.llvm_translate_types import (
    BOOL, FLOAT32, FLOAT64, INT64, Scalar, arith_result, cast, compare_type, float_result,
    is_float, is_int, llvm_type, shift_result, truth, unify)

__all__ = ["binary", "compare", "unary", "math_call", "minmax", "divmod_", "convert", "select",
           "MATH", "fma32"]


def convert(builder: ir.IRBuilder, x: Scalar, dtype: np.dtype) -> Scalar:
    """``x`` as a ``dtype`` value (``np.float32(x)``, an assignment to a typed variable...)."""
    return Scalar(cast(builder, x.value, x.dtype, dtype), dtype)


def _not_translatable(what: str):
    from minijax.backends.cpu.llvm_translate import NotTranslatable
    return NotTranslatable(what)


# =============================================================================
# Binary arithmetic
# =============================================================================
def binary(builder: ir.IRBuilder, op: str, x: Scalar, y: Scalar) -> Scalar:
    """``x <op> y`` for op in ``+ - * / // % ** & | ^ << >>``."""
    if op in ("<<", ">>"):
        return _shift(builder, op, x, y)
    dtype = arith_result(op, x.dtype, y.dtype)
    if op == "**":
        return _power(builder, x, y, dtype)
    a, b = cast(builder, x.value, x.dtype, dtype), cast(builder, y.value, y.dtype, dtype)
    if is_float(dtype):
        if op in ("&", "|", "^"):
            raise _not_translatable(f"bitwise {op} on {dtype}")
        simple = {"+": builder.fadd, "-": builder.fsub, "*": builder.fmul, "/": builder.fdiv}
        if op in simple:
            return Scalar(simple[op](a, b), dtype)
        quotient, remainder = _float_divmod(builder, a, b)
        return Scalar(quotient if op == "//" else remainder, dtype)
    flags = ["nsw"] if dtype.kind == "i" else []
    if op == "+":
        return Scalar(builder.add(a, b, flags=flags), dtype)
    if op == "-":
        return Scalar(builder.sub(a, b, flags=flags), dtype)
    if op == "*":
        return Scalar(builder.mul(a, b, flags=flags), dtype)
    if op in ("&", "|", "^"):
        emit = {"&": builder.and_, "|": builder.or_, "^": builder.xor}[op]
        return Scalar(emit(a, b), dtype)
    if op in ("//", "%"):
        quotient, remainder = _int_divmod(builder, a, b, dtype)
        return Scalar(quotient if op == "//" else remainder, dtype)
    raise _not_translatable(f"operator {op} on {x.dtype} and {y.dtype}")


def _shift(builder, op, x: Scalar, y: Scalar) -> Scalar:
    """``<<``/``>>``: both operands in the left one's 64-bit type; ``>>`` is arithmetic
    for a signed value, logical for an unsigned one (LLVM's ``ashr``/``lshr``)."""
    if not (is_int(x.dtype) and is_int(y.dtype)):
        raise _not_translatable(f"shift of {x.dtype} by {y.dtype}")
    dtype = shift_result(x.dtype)
    a, b = cast(builder, x.value, x.dtype, dtype), cast(builder, y.value, y.dtype, dtype)
    if op == "<<":
        return Scalar(builder.shl(a, b), dtype)
    return Scalar(builder.ashr(a, b) if dtype.kind == "i" else builder.lshr(a, b), dtype)


def _power(builder, x: Scalar, y: Scalar, dtype) -> Scalar:
    """``x ** y`` of two floats: ``llvm.pow`` (an integer exponent takes Numba's
    multiplication loop, not translated)."""
    if not (is_float(x.dtype) and is_float(y.dtype)):
        raise _not_translatable(f"power {x.dtype} ** {y.dtype}")
    a, b = cast(builder, x.value, x.dtype, dtype), cast(builder, y.value, y.dtype, dtype)
    fn = builder.module.declare_intrinsic("llvm.pow", [a.type])
    return Scalar(builder.call(fn, [a, b]), dtype)


def _phi(builder, values_blocks):
    phi = builder.phi(values_blocks[0][0].type)
    for value, block in values_blocks:
        phi.add_incoming(value, block)
    return phi


def _int_divmod(builder, a, b, dtype):
    """Python's floored ``(a // b, a % b)`` of two integers of ``dtype`` (Numba's
    ``_int_divmod_impl``): (0, 0) when ``b`` is 0 and for ``INT_MIN // -1``."""
    zero = ir.Constant(a.type, 0)
    with builder.if_else(builder.icmp_unsigned("==", b, zero), likely=False) as (if_zero, if_not):
        with if_zero:
            zero_block = builder.block
        with if_not:
            if dtype.kind == "u":
                q, r = builder.udiv(a, b), builder.urem(a, b)
            else:
                q, r = _signed_divmod(builder, a, b, dtype)
            nonzero_block = builder.block
    return (_phi(builder, [(zero, zero_block), (q, nonzero_block)]),
            _phi(builder, [(zero, zero_block), (r, nonzero_block)]))


def _signed_divmod(builder, a, b, dtype):
    """CPython's ``i_divmod``: C's truncating division, then the floor correction."""
    zero, one = ir.Constant(a.type, 0), ir.Constant(a.type, 1)
    minval = ir.Constant(a.type, int(np.iinfo(dtype).min))
    overflow = builder.and_(builder.icmp_signed("==", a, minval),
                            builder.icmp_signed("==", b, ir.Constant(a.type, -1)))
    with builder.if_else(overflow, likely=False) as (if_overflow, if_fine):
        with if_overflow:
            overflow_block = builder.block
        with if_fine:
            q, r = builder.sdiv(a, b), builder.srem(a, b)
            signs_differ = builder.icmp_signed("<", builder.xor(b, r), zero)
            fix = builder.and_(builder.icmp_signed("!=", r, zero), signs_differ)
            q = builder.select(fix, builder.sub(q, one), q)
            r = builder.select(fix, builder.add(r, b), r)
            fine_block = builder.block
    return (_phi(builder, [(zero, overflow_block), (q, fine_block)]),
            _phi(builder, [(zero, overflow_block), (r, fine_block)]))


def _floor(builder, value):
    """Numba's ``math.floor`` float -> float: ``floorf`` for float32, ``llvm.floor.f64``."""
    if value.type == ir.FloatType():
        fn = _libm(builder.module, "floorf", value.type, 1)
    else:
        fn = builder.module.declare_intrinsic("llvm.floor", [value.type])
    return builder.call(fn, [value])


def _float_divmod(builder, x, y):
    """Python's ``(x // y, x % y)`` of two floats (Numba's ``real_divmod``, from
    CPython's ``float_divmod``); ``y == 0`` gives ``(x / y, fmod(x, y))``."""
    ty = x.type
    zero, nzero, one, half = (ir.Constant(ty, v) for v in (0.0, -0.0, 1.0, 0.5))
    with builder.if_else(builder.fcmp_ordered("==", y, zero), likely=False) as (if_zero, if_not):
        with if_zero:
            q0, r0 = builder.fdiv(x, y), builder.frem(x, y)
            zero_block = builder.block
        with if_not:
            mod = builder.frem(x, y)
            div = builder.fdiv(builder.fsub(x, mod), y)
            y_neg = builder.fcmp_ordered("<", y, zero)
            mod_neg = builder.fcmp_ordered("<", mod, zero)
            mod_true = builder.fcmp_unordered("!=", mod, zero)
            fix = builder.and_(mod_true, builder.icmp_unsigned("!=", y_neg, mod_neg))
            div = builder.select(fix, builder.fsub(div, one), div)
            mod = builder.select(fix, builder.fadd(mod, y),
                                 builder.select(mod_true, mod, builder.select(y_neg, nzero, zero)))
            div_true = builder.fcmp_ordered("!=", div, zero)
            with builder.if_else(div_true) as (if_div, if_no_div):
                with if_div:
                    floor = _floor(builder, div)
                    snapped = builder.select(
                        builder.fcmp_ordered(">", builder.fsub(div, floor), half),
                        builder.fadd(floor, one), floor)
                    div_block = builder.block
                with if_no_div:
                    squared = builder.fmul(div, div)
                    signed_zero = builder.fdiv(builder.fmul(squared, x), y)
                    no_div_block = builder.block
            q1 = _phi(builder, [(snapped, div_block), (signed_zero, no_div_block)])
            r1 = mod
            nonzero_block = builder.block
    return (_phi(builder, [(q0, zero_block), (q1, nonzero_block)]),
            _phi(builder, [(r0, zero_block), (r1, nonzero_block)]))


def divmod_(builder, x: Scalar, y: Scalar) -> tuple[Scalar, Scalar]:
    """``divmod(x, y)``: both results of ``//`` and ``%`` at once."""
    dtype = arith_result("//", x.dtype, y.dtype)
    a, b = cast(builder, x.value, x.dtype, dtype), cast(builder, y.value, y.dtype, dtype)
    q, r = _float_divmod(builder, a, b) if is_float(dtype) else _int_divmod(builder, a, b, dtype)
    return Scalar(q, dtype), Scalar(r, dtype)


# =============================================================================
# Comparisons, unary operators, select
# =============================================================================
def compare(builder: ir.IRBuilder, op: str, x: Scalar, y: Scalar) -> Scalar:
    """``x <op> y`` for op in ``< <= > >= == !=``, in :func:`compare_type`."""
    dtype = compare_type(x.dtype, y.dtype)
    a, b = cast(builder, x.value, x.dtype, dtype), cast(builder, y.value, y.dtype, dtype)
    if is_float(dtype):
        if op == "!=":
            return Scalar(builder.fcmp_unordered(op, a, b), BOOL)
        return Scalar(builder.fcmp_ordered(op, a, b), BOOL)
    if dtype.kind == "i" and op not in ("==", "!="):
        return Scalar(builder.icmp_signed(op, a, b), BOOL)
    return Scalar(builder.icmp_unsigned(op, a, b), BOOL)


def unary(builder: ir.IRBuilder, op: str, x: Scalar) -> Scalar:
    """``-x``, ``+x``, ``~x``, ``not x``."""
    if op == "not":
        return Scalar(builder.not_(truth(builder, x.value, x.dtype)), BOOL)
    if is_float(x.dtype):
        if op == "-":
            return Scalar(builder.fsub(ir.Constant(x.value.type, -0.0), x.value), x.dtype)
        if op == "+":
            return x
        raise _not_translatable(f"~ on {x.dtype}")
    if x.dtype == BOOL:
        if op == "~":
            return Scalar(builder.not_(x.value), BOOL)
        as_int = cast(builder, x.value, BOOL, INT64)
        return Scalar(builder.neg(as_int) if op == "-" else as_int, INT64)
    dtype = shift_result(x.dtype)  # int64 or uint64: done in x's own width, then widened
    if op == "-":
        value = builder.neg(x.value)
    elif op == "~":
        value = builder.not_(x.value)
    else:
        value = x.value
    return Scalar(cast(builder, value, x.dtype, dtype), dtype)


def select(builder: ir.IRBuilder, condition: ir.Value, x: Scalar, y: Scalar) -> Scalar:
    """``x if condition else y`` of two already computed values, in their unified type."""
    dtype = unify(x.dtype, y.dtype)
    a, b = cast(builder, x.value, x.dtype, dtype), cast(builder, y.value, y.dtype, dtype)
    return Scalar(builder.select(condition, a, b), dtype)


def minmax(builder: ir.IRBuilder, which: str, args: list[Scalar]) -> Scalar:
    """Python's ``min``/``max`` of scalars, folded left to right (Numba's ``do_minmax``):
    the running result is replaced only by a value strictly better."""
    op = "<" if which == "min" else ">"
    acc = args[0]
    for v in args[1:]:
        dtype = unify(acc.dtype, v.dtype)
        a, b = cast(builder, acc.value, acc.dtype, dtype), cast(builder, v.value, v.dtype, dtype)
        better = compare(builder, op, Scalar(b, dtype), Scalar(a, dtype)).value
        acc = Scalar(builder.select(better, b, a), dtype)
    return acc


# =============================================================================
# Math functions: np.* and math.*
# =============================================================================
def _libm(module, name, ty, nargs):
    try:
        return module.get_global(name)
    except KeyError:
        return ir.Function(module, ir.FunctionType(ty, [ty] * nargs), name)


#: name -> (how, float32 function, float64 function, number of arguments), as
#: Numba lowers them: "intrinsic" (LLVM's, named by its base), "libm" (a C function).
MATH = {}
for _names, _how, _f32, _f64 in [
        (("np.floor",), "intrinsic", "llvm.floor", "llvm.floor"),
        (("np.ceil",), "intrinsic", "llvm.ceil", "llvm.ceil"),
        (("np.trunc",), "intrinsic", "llvm.trunc", "llvm.trunc"),
        (("np.rint",), "intrinsic", "llvm.rint", "llvm.rint"),
        (("np.abs", "np.absolute", "np.fabs", "math.fabs", "abs"), "intrinsic", "llvm.fabs", "llvm.fabs"),
        (("np.exp", "math.exp"), "intrinsic", "llvm.exp", "llvm.exp"),
        (("np.exp2",), "intrinsic", "llvm.exp2", "llvm.exp2"),
        (("np.log", "math.log"), "intrinsic", "llvm.log", "llvm.log"),
        (("np.log2",), "intrinsic", "llvm.log2", "llvm.log2"),
        (("np.log10", "math.log10"), "intrinsic", "llvm.log10", "llvm.log10"),
        (("np.sin", "math.sin"), "intrinsic", "llvm.sin", "llvm.sin"),
        (("np.cos", "math.cos"), "intrinsic", "llvm.cos", "llvm.cos"),
        (("np.sqrt", "math.sqrt"), "libm", "sqrtf", "sqrt"),
        (("np.tan", "math.tan"), "libm", "tanf", "tan"),
        (("np.tanh", "math.tanh"), "libm", "tanhf", "tanh"),
        (("np.log1p", "math.log1p"), "libm", "log1pf", "log1p"),
        (("np.expm1", "math.expm1"), "libm", "expm1f", "expm1"),
        (("np.arctan", "math.atan"), "libm", "atanf", "atan"),
        (("np.arcsin", "math.asin"), "libm", "asinf", "asin"),
        (("np.arccos", "math.acos"), "libm", "acosf", "acos"),
        (("np.sinh", "math.sinh"), "libm", "sinhf", "sinh"),
        (("np.cosh", "math.cosh"), "libm", "coshf", "cosh"),
        (("np.arcsinh", "math.asinh"), "libm", "asinhf", "asinh"),
        (("np.arccosh", "math.acosh"), "libm", "acoshf", "acosh"),
        (("np.arctanh", "math.atanh"), "libm", "atanhf", "atanh"),
        (("math.erf",), "libm", "erff", "erf"),
        (("math.erfc",), "libm", "erfcf", "erfc"),
        (("math.lgamma",), "libm", "lgammaf", "lgamma"),
        (("np.arctan2", "math.atan2"), "libm2", "atan2f", "atan2"),
        (("np.nextafter",), "libm2", "numba_nextafterf", "numba_nextafter"),
        (("np.power", "math.pow"), "intrinsic2", "llvm.pow", "llvm.pow")]:
    for _name in _names:
        MATH[_name] = (_how, _f32, _f64)

#: Python's ``math`` functions that return an int64 (float -> float, then ``fptosi``).
_TO_INT = {"math.floor": ("floorf", "llvm.floor"), "math.ceil": ("ceilf", "llvm.ceil"),
           "math.trunc": ("truncf", "llvm.trunc")}


def math_call(builder: ir.IRBuilder, name: str, args: list[Scalar]) -> Scalar:
    """``np.<f>(x...)`` / ``math.<f>(x...)`` of scalars (an integer argument is a float64)."""
    if name in ("abs", "np.abs", "np.absolute") and is_int(args[0].dtype):
        return _int_abs(builder, args[0])
    if name in ("np.isnan", "math.isnan", "np.isfinite", "np.isinf", "math.isinf"):
        return _float_class(builder, name, args[0])
    if name in ("np.sign",):
        return _sign(builder, args[0])
    if name in ("np.fmod",):
        dtype = arith_result("%", args[0].dtype, args[1].dtype)
        a, b = (cast(builder, v.value, v.dtype, dtype) for v in args)
        return Scalar(builder.frem(a, b), dtype) if is_float(dtype) else _int_fmod(builder, a, b, dtype)
    if name in _TO_INT:
        x = args[0] if is_float(args[0].dtype) else convert(builder, args[0], FLOAT64)
        f32, f64 = _TO_INT[name]
        if x.dtype == FLOAT32:
            fn = _libm(builder.module, f32, x.value.type, 1)
        else:
            fn = builder.module.declare_intrinsic(f64, [x.value.type])
        return Scalar(builder.fptosi(builder.call(fn, [x.value]), llvm_type(INT64)), INT64)
    if name not in MATH:
        raise _not_translatable(f"call to {name}")
    how, f32, f64 = MATH[name]
    dtype = args[0].dtype if is_float(args[0].dtype) else FLOAT64
    for a in args[1:]:
        dtype = float_result(dtype, a.dtype)
    values = [cast(builder, a.value, a.dtype, dtype) for a in args]
    ty = llvm_type(dtype)
    if how.startswith("intrinsic"):
        fn = builder.module.declare_intrinsic(f32 if dtype == FLOAT32 else f64, [ty])
    else:
        fn = _libm(builder.module, f32 if dtype == FLOAT32 else f64, ty, len(values))
    return Scalar(builder.call(fn, values), dtype)


def _int_abs(builder, x: Scalar) -> Scalar:
    """``abs`` of an integer keeps its type (unsigned: itself)."""
    if x.dtype == BOOL:
        raise _not_translatable("abs of a bool")
    if x.dtype.kind == "u":
        return x
    negative = builder.icmp_signed("<", x.value, ir.Constant(x.value.type, 0))
    return Scalar(builder.select(negative, builder.neg(x.value), x.value), x.dtype)


def _int_fmod(builder, a, b, dtype) -> Scalar:
    raise _not_translatable(f"np.fmod on {dtype}")


def _float_class(builder, name: str, x: Scalar) -> Scalar:
    """``isnan``: ``x`` unordered with itself; ``isfinite``: ``x - x`` ordered (NaN for
    inf and NaN); ``isinf``: ``|x| == inf``. An integer is finite and not NaN."""
    if not is_float(x.dtype):
        return Scalar(ir.Constant(ir.IntType(1), int(name == "np.isfinite")), BOOL)
    v = x.value
    if name.endswith("isnan"):
        return Scalar(builder.fcmp_unordered("uno", v, v), BOOL)
    if name == "np.isfinite":
        d = builder.fsub(v, v)
        return Scalar(builder.fcmp_ordered("ord", d, d), BOOL)
    fabs = builder.module.declare_intrinsic("llvm.fabs", [v.type])
    return Scalar(builder.fcmp_ordered("==", builder.call(fabs, [v]),
                                       ir.Constant(v.type, float("inf"))), BOOL)


def _sign(builder, x: Scalar) -> Scalar:
    """``np.sign`` of a float: 1, -1, or x itself (0, -0 and NaN)."""
    if not is_float(x.dtype):
        raise _not_translatable(f"np.sign on {x.dtype}")
    v, ty = x.value, x.value.type
    zero = ir.Constant(ty, 0.0)
    negative = builder.select(builder.fcmp_ordered("<", v, zero), ir.Constant(ty, -1.0), v)
    return Scalar(builder.select(builder.fcmp_ordered(">", v, zero), ir.Constant(ty, 1.0),
                                 negative), x.dtype)


def fma32(builder: ir.IRBuilder, args: list[Scalar]) -> Scalar:
    """``fma32(a, b, c)`` (the math helpers' intrinsic): ``llvm.fma.f32`` on float32s."""
    values = [cast(builder, a.value, a.dtype, FLOAT32) for a in args]
    fn = builder.module.declare_intrinsic("llvm.fma", [llvm_type(FLOAT32)])
    return Scalar(builder.call(fn, values), FLOAT32)
