"""Chapter 00 — reduction primitives: sums, extrema, logical folds, arg-extrema, scans.

A reduction folds the ``axes`` of its operand away with an associative
operation and its identity (``0`` for ``+``, ``-inf`` for ``max``...). Each
family shares one shape rule and one NumPy impl built by a helper:

- ``reduce_sum``, ``reduce_prod``, ``reduce_max``, ``reduce_min`` (numbers;
  max/min also accept bool, and propagate NaN as XLA does);
- ``reduce_and``, ``reduce_or``, ``reduce_xor`` (bool or int, bitwise);
- ``argmax``, ``argmin`` (one axis, first index on ties, NaN counts as the
  extremum);
- the cumulative ``cumsum``, ``cumprod``, ``cummax``, ``cummin`` and
  ``cumlogsumexp`` (same shape as the operand, optionally from the end).

An empty reduction gives the identity: ``reduce_max`` of nothing is ``-inf``
(or the dtype's smallest integer). ``lax.reduce`` with a general computation
needs tracing (a later chapter); here it accepts only the monoid cases and
forwards them to the matching primitive, as JAX itself does.
"""
from __future__ import annotations

import operator
from typing import Callable, Sequence

import numpy as np

from minijax import dtypes
from minijax.abstract_arrays import get_aval
from minijax.lax import elementwise as _ew
from minijax.lax.base import BOOL_OR_INT, NUM, ORDERED, standard_primitive
from minijax.lax.shapes import _same_dtype, _same_weak, check_user_dtype

__all__ = ["reduce_sum", "reduce_prod", "reduce_max", "reduce_min", "reduce_and",
           "reduce_or", "reduce_xor", "argmax", "argmin", "cumsum", "cumprod", "cummax",
           "cummin", "cumlogsumexp", "reduce"]


def _strip_weak(*avals, **_):
    return False


# --- identities of the monoids ---------------------------------------------------------
def _max_identity(dtype) -> np.ndarray:
    """The smallest value of ``dtype``: the identity of ``max``."""
    dtype = np.dtype(dtype)
    if dtypes.issubdtype(dtype, np.inexact):  # (float8_e4m3fn & co. have no inf)
        return np.array(-np.inf if dtypes.supports_inf(dtype) else dtypes.finfo(dtype).min, dtype)
    if np.issubdtype(dtype, np.integer):
        return np.array(np.iinfo(dtype).min, dtype)
    return np.array(False)


def _min_identity(dtype) -> np.ndarray:
    """The largest value of ``dtype``: the identity of ``min``."""
    dtype = np.dtype(dtype)
    if dtypes.issubdtype(dtype, np.inexact):
        return np.array(np.inf if dtypes.supports_inf(dtype) else dtypes.finfo(dtype).max, dtype)
    if np.issubdtype(dtype, np.integer):
        return np.array(np.iinfo(dtype).max, dtype)
    return np.array(True)


def _all_bits_identity(dtype) -> np.ndarray:
    """All bits set (``-1``, or ``True``): the identity of bitwise ``and``."""
    return np.array(-1).astype(dtype)


def _zero_identity(dtype) -> np.ndarray:
    return np.array(0, dtype)


# --- reduce_sum / prod / max / min ----------------------------------------------------
def _reduce_op_shape_rule(operand, *, axes, **_):
    if len(axes) != len(set(axes)):
        raise ValueError(f"duplicate value in 'axes' of reduction: {axes}")
    if not all(0 <= a < operand.ndim for a in axes):
        raise ValueError(f"reduction axes {axes} contains out-of-bounds indices for "
                         f"{operand.str_short(short_dtypes=False)}.")
    return tuple(d for i, d in enumerate(operand.shape) if i not in set(axes))


def _number_dtype_rule(name: str):
    def rule(operand, **_):
        if operand.dtype not in NUM:
            raise TypeError(f"{name} does not accept dtype {operand.dtype.name}. Accepted "
                            "dtypes are subtypes of number.")
        return operand.dtype
    return rule


def _accumulating_in_float32(reduce: Callable) -> Callable:
    """``reduce`` (np.sum, np.prod) in the dtype of ``x``, except that a bfloat16 or
    float8 sum accumulates in float32 and is rounded once at the end, as XLA's
    CPU backend does (NumPy would round after every addition)."""
    def impl(x, *, axes, **_):
        if dtypes.is_narrow_float(x.dtype):
            return reduce(x, axis=axes, dtype=np.float32).astype(x.dtype)
        return reduce(x, axis=axes, dtype=x.dtype)
    return impl


reduce_sum_p = standard_primitive(
    "reduce_sum", _reduce_op_shape_rule, _number_dtype_rule("reduce_sum"),
    _accumulating_in_float32(np.sum), kind="reduction", linear_in=(0,))
reduce_prod_p = standard_primitive(
    "reduce_prod", _reduce_op_shape_rule, _number_dtype_rule("reduce_prod"),
    _accumulating_in_float32(np.prod), kind="reduction")
# np.max/np.min propagate NaN, as XLA's max/min do; ``initial`` covers empty axes.
reduce_max_p = standard_primitive(
    "reduce_max", _reduce_op_shape_rule, _same_dtype,
    lambda x, *, axes: np.max(x, axis=axes, initial=_max_identity(x.dtype)),
    kind="reduction")
reduce_min_p = standard_primitive(
    "reduce_min", _reduce_op_shape_rule, _same_dtype,
    lambda x, *, axes: np.min(x, axis=axes, initial=_min_identity(x.dtype)),
    kind="reduction")


def reduce_sum(operand, axes: Sequence[int], *, out_sharding=None):
    """Sum of ``operand`` over ``axes`` (no upcast: int8 sums wrap around in int8)."""
    return reduce_sum_p.bind(operand, axes=_axes_tuple(axes), out_sharding=out_sharding)


def reduce_prod(operand, axes: Sequence[int]):
    """Product of ``operand`` over ``axes``, in its own dtype."""
    return reduce_prod_p.bind(operand, axes=_axes_tuple(axes))


def reduce_max(operand, axes: Sequence[int]):
    """Maximum of ``operand`` over ``axes``; NaN propagates, an empty reduction gives -inf."""
    return reduce_max_p.bind(operand, axes=_axes_tuple(axes))


def reduce_min(operand, axes: Sequence[int]):
    """Minimum of ``operand`` over ``axes``; NaN propagates, an empty reduction gives +inf."""
    return reduce_min_p.bind(operand, axes=_axes_tuple(axes))


def _axes_tuple(axes) -> tuple[int, ...]:
    return tuple(operator.index(a) for a in axes)


# --- reduce_and / or / xor -------------------------------------------------------------
def _reduce_logical_shape_rule(operand, *, axes):
    if operand.dtype not in BOOL_OR_INT:
        raise TypeError("logical reduction requires operand dtype bool or int, got "
                        f"{operand.dtype}.")
    if any(a < 0 for a in axes) or len(set(axes)) != len(axes):
        return _reduce_op_shape_rule(operand, axes=axes)
    return tuple(int(d) for d in np.delete(np.array(operand.shape, dtype=np.int64), axes))


def _bitwise_reduce_impl(ufunc, identity: Callable):
    def impl(x, *, axes):
        return ufunc.reduce(x, axis=axes, dtype=x.dtype, initial=identity(x.dtype)[()])
    return impl


def _logical_reduction(name, ufunc, identity):
    return standard_primitive(name, _reduce_logical_shape_rule, _same_dtype,
                              _bitwise_reduce_impl(ufunc, identity), _strip_weak,
                              kind="reduction")


reduce_and_p = _logical_reduction("reduce_and", np.bitwise_and, _all_bits_identity)
reduce_or_p = _logical_reduction("reduce_or", np.bitwise_or, _zero_identity)
reduce_xor_p = _logical_reduction("reduce_xor", np.bitwise_xor, _zero_identity)


def reduce_and(operand, axes: Sequence[int]):
    """Bitwise AND (logical AND for bool) of ``operand`` over ``axes``."""
    return reduce_and_p.bind(operand, axes=_axes_tuple(axes))


def reduce_or(operand, axes: Sequence[int]):
    """Bitwise OR (logical OR for bool) of ``operand`` over ``axes``."""
    return reduce_or_p.bind(operand, axes=_axes_tuple(axes))


def reduce_xor(operand, axes: Sequence[int]):
    """Bitwise XOR (parity for bool) of ``operand`` over ``axes``."""
    return reduce_xor_p.bind(operand, axes=_axes_tuple(axes))


# --- argmax / argmin -------------------------------------------------------------------
def _argminmax_shape_rule(operand, *, axes, index_dtype):
    axis, = axes
    if not 0 <= axis < operand.ndim:
        raise ValueError(f"Invalid axis {axis} for operand shape {operand.shape}")
    if operand.shape[axis] < 1:
        raise ValueError("argmin and argmax require non-empty reduced dimension. "
                         f"operand.shape={operand.shape} axis={axis}")
    return operand.shape[:axis] + operand.shape[axis + 1:]


def _argminmax_dtype_rule(comparison: str):
    def rule(operand, *, axes, index_dtype):
        if not np.issubdtype(index_dtype, np.integer):
            raise TypeError("index_dtype must be an integer type, but got "
                            f"{np.dtype(index_dtype).name}")
        if operand.dtype not in ORDERED:
            raise TypeError(f"{comparison} does not accept dtype {operand.dtype} at position 0. "
                            "Accepted dtypes at position 0 are subtypes of integer, "
                            "floating, bool.")
        return np.dtype(index_dtype)
    return rule


# NumPy's argmax/argmin agree with XLA's: the first index wins ties, and the
# first NaN wins over everything.
argmax_p = standard_primitive(
    "argmax", _argminmax_shape_rule, _argminmax_dtype_rule("gt"),
    lambda x, *, axes, index_dtype: np.argmax(x, axis=axes[0]), _strip_weak,
    kind="reduction")
argmin_p = standard_primitive(
    "argmin", _argminmax_shape_rule, _argminmax_dtype_rule("lt"),
    lambda x, *, axes, index_dtype: np.argmin(x, axis=axes[0]), _strip_weak,
    kind="reduction")


def argmax(operand, axis: int, index_dtype):
    """Index of the maximum of ``operand`` along ``axis`` (first one on ties; NaN wins)."""
    index_dtype = check_user_dtype(index_dtype, "argmax")
    return argmax_p.bind(operand, axes=(operator.index(axis),), index_dtype=index_dtype)


def argmin(operand, axis: int, index_dtype):
    """Index of the minimum of ``operand`` along ``axis`` (first one on ties; NaN wins)."""
    index_dtype = check_user_dtype(index_dtype, "argmin")
    return argmin_p.bind(operand, axes=(operator.index(axis),), index_dtype=index_dtype)


# --- cumulative reductions ----------------------------------------------------------------
def _cumred_shape_rule(x, *, axis, reverse):
    if axis < 0:
        raise ValueError("XLA operations do not allow negative axes")
    if axis >= x.ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of shape {x.shape}")
    return x.shape


def _cumulative_impl(accumulate: Callable):
    def impl(x, *, axis, reverse):
        if reverse:
            return np.flip(accumulate(np.flip(x, axis), axis), axis)
        return accumulate(x, axis)
    return impl


def _cumulative_primitive(name: str, accumulate: Callable, **attributes):
    return standard_primitive(name, _cumred_shape_rule, _number_dtype_rule(name),
                              _cumulative_impl(accumulate), _same_weak,
                              kind="cumulative", **attributes)


def _logaddexp_accumulate(x, axis):
    work = x if dtypes.issubdtype(x.dtype, np.floating) else x.astype(np.float32)
    return np.logaddexp.accumulate(work, axis=axis)


cumsum_p = _cumulative_primitive("cumsum", lambda x, a: np.cumsum(x, a, dtype=x.dtype),
                                 linear_in=(0,))
cumprod_p = _cumulative_primitive("cumprod", lambda x, a: np.cumprod(x, a, dtype=x.dtype))
cummax_p = _cumulative_primitive("cummax", lambda x, a: np.maximum.accumulate(x, axis=a))
cummin_p = _cumulative_primitive("cummin", lambda x, a: np.minimum.accumulate(x, axis=a))
cumlogsumexp_p = _cumulative_primitive("cumlogsumexp", _logaddexp_accumulate)


def _cumulative_wrapper(prim, what: str):
    def wrapper(operand, axis: int = 0, reverse: bool = False):
        return prim.bind(operand, axis=int(axis), reverse=bool(reverse))
    wrapper.__name__ = wrapper.__qualname__ = prim.name
    wrapper.__doc__ = (f"Computes a cumulative {what} along ``axis`` (from the end if "
                       "``reverse``).")
    return wrapper


cumsum = _cumulative_wrapper(cumsum_p, "sum")
cumprod = _cumulative_wrapper(cumprod_p, "product")
cummax = _cumulative_wrapper(cummax_p, "maximum")
cummin = _cumulative_wrapper(cummin_p, "minimum")
cumlogsumexp = _cumulative_wrapper(cumlogsumexp_p, "logsumexp")


# --- lax.reduce (monoid cases only) ------------------------------------------------------
def _flatten_one_level(x):
    """``(kind, leaves)``: a list or tuple gives its items, anything else is one leaf."""
    if isinstance(x, (list, tuple)):
        return type(x), list(x)
    return None, [x]


def _treedef_str(kind, n: int) -> str:
    if kind is None:
        return "PyTreeDef(*)"
    stars = ", ".join(["*"] * n)
    return f"PyTreeDef(({stars},))" if kind is tuple and n == 1 else (
        f"PyTreeDef(({stars}))" if kind is tuple else f"PyTreeDef([{stars}])")


def _concrete_value(x):
    """The NumPy value of ``x``, or None for a tracer whose value is unknown."""
    to_concrete = getattr(x, "to_concrete_value", None)
    if to_concrete is not None:
        x = to_concrete()
        if x is None:
            return None
    return np.asarray(x)


# (name of the lax function, its reducer, identity for a given dtype, integer/bool only)
_MONOIDS = [
    ("add", reduce_sum, _zero_identity, False),
    ("mul", reduce_prod, lambda dt: np.array(1, dt), False),
    ("max", reduce_max, _max_identity, False),
    ("min", reduce_min, _min_identity, False),
    ("bitwise_or", reduce_or, _zero_identity, True),
    ("bitwise_and", reduce_and, _all_bits_identity, True),
    ("bitwise_xor", reduce_xor, _zero_identity, True),
]


def _monoid_reducer(computation, init_value):
    """The reduce_* function equivalent to folding with ``computation`` from ``init_value``."""
    value = _concrete_value(init_value)
    if value is None or value.shape != ():
        return None
    dtype = dtypes.dtype(init_value, canonicalize=True)
    for name, reducer, identity, needs_intlike in _MONOIDS:
        if computation is getattr(_ew, name, None):
            if needs_intlike and dtype not in BOOL_OR_INT:
                return None
            return reducer if np.equal(value, identity(dtype)) else None
    return None


def _check_bitwise_dtype(computation, operand):
    """JAX's TypeError for folding a non-integer operand with a bitwise operation."""
    for name in ("bitwise_and", "bitwise_or", "bitwise_xor"):
        if computation is getattr(_ew, name, None):
            dtype = get_aval(operand).dtype
            if dtype not in BOOL_OR_INT:
                raise TypeError(f"{name[len('bitwise_'):]} does not accept dtype {dtype} at "
                                "position 0. Accepted dtypes at position 0 are subtypes of "
                                "integer, bool.")


def reduce(operands, init_values, computation: Callable, dimensions: Sequence[int],
           out_sharding=None):
    """Fold ``operands`` over ``dimensions`` with ``computation``, starting from ``init_values``.

    minijax supports the monoid cases JAX itself turns into a specific
    primitive: ``computation`` one of ``lax.add``, ``lax.mul``, ``lax.max``,
    ``lax.min``, ``lax.bitwise_and/or/xor`` and ``init_values`` its identity
    (``0.``, ``1.``, ``-inf``...). Other computations raise NotImplementedError.
    """
    op_kind, flat_operands = _flatten_one_level(operands)
    init_kind, flat_inits = _flatten_one_level(init_values)
    if op_kind is not init_kind or len(flat_operands) != len(flat_inits):
        raise ValueError("Operands must have the same tree structure as init_values: "
                         f"{_treedef_str(op_kind, len(flat_operands))} vs. "
                         f"{_treedef_str(init_kind, len(flat_inits))}")
    reducer = _monoid_reducer(computation, flat_inits[0]) if len(flat_inits) == 1 else None
    if reducer is None and len(flat_operands) == 1:
        _check_bitwise_dtype(computation, flat_operands[0])
    if reducer is None:
        name = getattr(computation, "__name__", repr(computation))
        raise NotImplementedError(
            "minijax's lax.reduce only supports a single operand reduced with lax.add, "
            "lax.mul, lax.max, lax.min, lax.bitwise_and, lax.bitwise_or or "
            "lax.bitwise_xor starting from that operation's identity (0, 1, -inf, inf, "
            f"...); got computation {name} with init_values {init_values!r}. Use "
            "lax.reduce_sum/reduce_prod/reduce_max/... or lax.scan instead.")
    operand, init = flat_operands[0], flat_inits[0]
    weak_type = dtypes.is_weakly_typed(operand) and dtypes.is_weakly_typed(init)
    out = reducer(operand, dimensions)
    return _ew._convert_element_type(out, weak_type=weak_type)
