"""Chapter 00 — the machinery every ``lax`` primitive is built from.

Most primitives are defined by three small functions: a *shape rule*, a
*dtype rule* and a *weak-type rule*. :func:`standard_primitive` combines them
into the primitive's abstract-evaluation rule and registers its NumPy impl, so
a new primitive is one call. :func:`unop` and :func:`naryop` go one step
further for elementwise operations, whose shape rule is always "broadcast".

This file also holds the checks shared by many primitives, each raising the
error JAX raises (``TypeError`` with JAX's wording) so that a user who makes a
mistake under minijax reads the same message as under JAX.
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from minijax import dtypes
from minijax.abstract_arrays import ShapedArray
from minijax.primitives import Primitive, abstract_eval_rules, impl_rules

# The jnp function that does promotion for each lax name, for JAX's "Tip:".
_JNP_EQUIVALENTS = {
    "abs": "fabs", "acos": "arccos", "acosh": "arccosh", "add": "add",
    "asin": "arcsin", "asinh": "arcsinh", "atan": "arctan", "atan2": "arctan2",
    "atanh": "arctanh", "bitwise_and": "bitwise_and", "bitwise_not": "bitwise_not",
    "bitwise_or": "bitwise_or", "bitwise_xor": "bitwise_xor", "cbrt": "cbrt",
    "ceil": "ceil", "concatenate": "concatenate", "cos": "cos", "cosh": "cosh",
    "div": "divide", "eq": "equal", "exp": "exp", "expm1": "expm1",
    "floor": "floor", "greater": "greater", "greater_equal": "greater_equal",
    "less": "less", "less_equal": "less_equal", "log": "log",
    "logical_and": "logical_and", "logical_not": "logical_not",
    "logical_or": "logical_or", "logical_xor": "logical_xor", "log1p": "log1p",
    "max": "maximum", "min": "minimum", "mul": "multiply", "ne": "not_equal",
    "neg": "negative", "nextafter": "nextafter", "pow": "float_power",
    "round": "round", "select": "where", "shift_left": "left_shift",
    "shift_right_logical": "right_shift", "shift_right_arithmetic": "right_shift",
    "sign": "sign", "sin": "sin", "sinh": "sinh", "sqrt": "sqrt", "sub": "subtract",
    "tan": "tan", "tanh": "tanh",
}

# dtype families accepted by elementwise primitives
_bool = [dtypes.bool_]
_signed = [dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64]
_unsigned = [dtypes.uint8, dtypes.uint16, dtypes.uint32, dtypes.uint64]
_int = _signed + _unsigned
_float = [dtypes.float16, dtypes.float32, dtypes.float64]
_complex = [dtypes.complex64, dtypes.complex128]
_num = _int + _float + _complex
_any = _bool + _num
_bool_or_int = _bool + _int
_inexact = _float + _complex
_ordered = _bool + _int + _float  # types with a total order (no complex)

DTYPE_FAMILIES = {
    "bool": _bool, "signed": _signed, "unsigned": _unsigned, "int": _int,
    "float": _float, "complex": _complex, "num": _num, "any": _any,
    "bool_or_int": _bool_or_int, "inexact": _inexact, "ordered": _ordered,
}

_family_names = {
    id(_bool): "bool", id(_int): "int", id(_float): "floating",
    id(_inexact): "floating or complex", id(_num): "numeric",
    id(_bool_or_int): "bool or int", id(_ordered): "bool, int or floating",
    id(_any): "any", id(_signed): "signed int", id(_complex): "complex",
}


def standard_primitive(name: str, shape_rule: Callable, dtype_rule: Callable,
                       impl: Callable, weak_type_rule: Callable | None = None
                       ) -> Primitive:
    """Create a primitive whose abstract eval is ``ShapedArray(shape_rule, dtype_rule, weak)``.

    Each rule is called as ``rule(*avals, **params)``. Without a
    ``weak_type_rule`` the output is weakly typed when every input is (the rule
    for elementwise arithmetic on Python scalars).
    """
    prim = Primitive(name)
    weak_type_rule = weak_type_rule or _all_weak

    def abstract_eval(*avals, **params):
        shape = shape_rule(*avals, **params)
        dtype = dtype_rule(*avals, **params)
        weak = weak_type_rule(*avals, **params)
        return ShapedArray(shape, dtype, weak)

    abstract_eval_rules[prim] = abstract_eval
    impl_rules[prim] = impl
    return prim


def _all_weak(*avals, **params) -> bool:
    return bool(avals) and all(a.weak_type for a in avals)


def _first_weak(aval, *avals, **params) -> bool:
    return aval.weak_type


# --- shape rules -------------------------------------------------------------

def broadcast_shapes_or_error(name: str, *shapes: Sequence[int]) -> tuple[int, ...]:
    """The shape of an elementwise op on ``shapes``, as JAX's lax computes it.

    Rank-0 operands broadcast against anything; otherwise ranks must be equal
    and each dimension must agree or be 1.
    """
    shapes = [tuple(s) for s in shapes if len(s)]
    if not shapes:
        return ()
    ranks = {len(s) for s in shapes}
    if len(ranks) != 1:
        raise TypeError(f"{name}: arrays must have the same number of dimensions, got {ranks}")
    out = []
    for ds in zip(*shapes):
        non_1 = [d for d in ds if d != 1]
        if not non_1:
            out.append(1)
        elif all(d == non_1[0] for d in non_1):
            out.append(non_1[0])
        else:
            raise TypeError(f"{name} got incompatible shapes for broadcasting: "
                            f"{', '.join(map(str, shapes))}.")
    return tuple(out)


def broadcasting_shape_rule(name: str):
    def rule(*avals, **params):
        return broadcast_shapes_or_error(name, *(a.shape for a in avals))
    return rule


# --- dtype rules ---------------------------------------------------------------

def check_same_dtypes(name: str, *avals: ShapedArray) -> None:
    """JAX's check that lax operands have one dtype (no implicit promotion in lax)."""
    if len(avals) < 2:
        return
    dt = avals[0].dtype
    if any(a.dtype != dt for a in avals[1:]):
        msg = (f"lax.{name} requires arguments to have the same dtypes, got "
               f"{', '.join(str(a.dtype) for a in avals)}.")
        if name in _JNP_EQUIVALENTS:
            msg += (f" (Tip: jnp.{_JNP_EQUIVALENTS[name]} is a similar function that "
                    "does automatic type promotion on inputs).")
        raise TypeError(msg)


def check_dtype_family(name: str, aval: ShapedArray, accepted: list, position: int = 0):
    if aval.dtype not in accepted:
        family = _family_names.get(id(accepted), ", ".join(str(d) for d in accepted))
        raise TypeError(f"{name} does not accept dtype {aval.dtype}. Accepted dtypes "
                        f"are subtypes of {family}.")


def naryop_dtype_rule(name: str, accepted: Sequence[list], result_dtype=None):
    """Operands must share a dtype from the accepted family (per position).

    ``result_dtype`` overrides the output dtype (comparisons return bool).
    """
    def rule(*avals, **params):
        for i, (aval, acc) in enumerate(zip(avals, accepted)):
            check_dtype_family(name, aval, acc, i)
        check_same_dtypes(name, *avals)
        if result_dtype is not None:
            return np.dtype(result_dtype(avals[0].dtype) if callable(result_dtype)
                            else result_dtype)
        return avals[0].dtype
    return rule


# --- elementwise constructors ---------------------------------------------------

def unop(name: str, impl: Callable, accepted: list, result_dtype=None) -> Primitive:
    """An elementwise primitive of one operand that keeps its shape and weak type."""
    return standard_primitive(
        name, lambda x, **_: x.shape, naryop_dtype_rule(name, [accepted], result_dtype),
        impl, weak_type_rule=_first_weak)


def naryop(name: str, impl: Callable, accepted: Sequence[list], result_dtype=None,
           weak_type_rule: Callable | None = None) -> Primitive:
    """An elementwise primitive of several operands of one dtype, broadcasting like lax.

    Results are weakly typed when all operands are (``lax.add(1., 2.)`` is a
    weak float32), except for comparisons, whose bool result is never weak.
    """
    if weak_type_rule is None and result_dtype is not None:
        weak_type_rule = lambda *a, **p: False
    return standard_primitive(
        name, broadcasting_shape_rule(name), naryop_dtype_rule(name, accepted, result_dtype),
        impl, weak_type_rule=weak_type_rule)


# --- helpers for impl rules -------------------------------------------------------

def broadcast_to_shape(x: np.ndarray, shape) -> np.ndarray:
    return np.broadcast_to(x, shape)


def canonicalize_axis(axis: int, ndim: int) -> int:
    """Turn a possibly negative axis into a non-negative one, or raise JAX's ValueError."""
    axis = int(axis)
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis + ndim if axis < 0 else axis
