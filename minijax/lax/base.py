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

import operator
from typing import Callable, Sequence

import numpy as np

from minijax import dtypes
from minijax.abstract_arrays import ShapedArray, get_aval
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

def const(example, value):
    """``value`` in ``example``'s dtype, as JAX's ``lax._const``: a Python scalar for a
    weakly typed scalar ``example`` (so results stay weak), else a NumPy scalar array."""
    scalar = dtypes.weak_scalar_const(example, value)
    return np.array(value, get_aval(example).dtype) if scalar is None else scalar


def standard_primitive(name: str, shape_rule: Callable, dtype_rule: Callable,
                       impl: Callable, weak_type_rule: Callable | None = None,
                       **attributes) -> Primitive:
    """Create a primitive whose abstract eval is ``ShapedArray(shape_rule, dtype_rule, weak)``.

    Each rule is called as ``rule(*avals, **params)``. Without a
    ``weak_type_rule`` the output is weakly typed when every input is (the rule
    for elementwise arithmetic on Python scalars). ``attributes`` say what kind
    of primitive it is (``kind="reduction", linear_in=(0,)``): they are
    :class:`~minijax.primitives.Primitive`'s keyword arguments.
    """
    prim = Primitive(name, **attributes)
    prim.cache_abstract_eval = True  # the three rules below are pure functions
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


# --- dtype families, named as JAX names them in its errors ------------------------
# JAX prints each family by iterating over a set of NumPy abstract types; the
# orders below are the ones JAX 0.10 prints.
class Family:
    """The dtypes a primitive accepts at one position: NumPy types and JAX's wording."""

    def __init__(self, *types):
        self.types = types
        self.names = ", ".join(t.__name__ for t in types)
        self._memo: dict = {}  # dtype -> bool: this check runs on every eager op

    def __contains__(self, dtype) -> bool:
        hit = self._memo.get(dtype)
        if hit is None:
            hit = self._memo[dtype] = any(dtypes.issubdtype(dtype, t) for t in self.types)
        return hit


INT = Family(np.integer)
FLOAT = Family(np.floating)
COMPLEX = Family(np.complexfloating)
INEXACT = Family(np.floating, np.complexfloating)
NUM = Family(np.integer, np.floating, np.complexfloating)
INT_OR_FLOAT = Family(np.integer, np.floating)
BOOL_OR_INT = Family(np.integer, np.bool_)
ORDERED = Family(np.integer, np.floating, np.bool_)
ANY = Family(np.integer, np.bool_, np.floating, np.complexfloating)
SIGNED_OR_INEXACT = Family(np.floating, np.complexfloating, np.signedinteger)
COMPLEX_PARTS = Family(np.float32, np.float64)
COMPLEX_OR_PARTS = Family(np.float32, np.complexfloating, np.float64)


def check_family(name: str, aval: ShapedArray, family: Family, position=None):
    """Raise JAX's TypeError when ``aval``'s dtype is not in ``family``."""
    if aval.dtype in family:
        return
    if position is None:
        raise TypeError(f"{name} does not accept dtype {aval.dtype}. Accepted dtypes "
                        f"are subtypes of {family.names}.")
    raise TypeError(f"{name} does not accept dtype {aval.dtype} at position {position}. "
                    f"Accepted dtypes at position {position} are subtypes of "
                    f"{family.names}.")


# --- primitive constructors ---------------------------------------------------------
def numpy_impl(fn, params=()):
    """An impl rule calling ``fn`` with the ``params`` it needs, NumPy warnings off.

    IEEE results such as ``log(0) = -inf`` or ``0/0 = nan`` are values, not
    errors, in JAX, so NumPy must not warn about them either.
    """
    def impl(*args, **all_params):
        return call_ignoring_fp_errors(
            fn, *args, **{k: all_params[k] for k in params if k in all_params})
    return impl


def call_ignoring_fp_errors(fn, /, *args, **kwargs):
    """``fn(*args, **kwargs)`` under ``np.errstate(all="ignore")``, but cheaper.

    ``with np.errstate(...)`` costs ~4us, a fifth of an eager ``add``: it
    builds a new error state on every entry. NumPy 2 keeps that state in a
    context variable, so we build the "ignore all" state once and just set the
    variable (a private NumPy detail: without it we fall back to ``np.errstate``).
    """
    if _errstate_var is None:
        with np.errstate(all="ignore"):
            return fn(*args, **kwargs)
    token = _errstate_var.set(_IGNORE_ALL)
    try:
        return fn(*args, **kwargs)
    finally:
        _errstate_var.reset(token)


try:
    from numpy._core._ufunc_config import _extobj_contextvar as _errstate_var
    with np.errstate(all="ignore"):
        _IGNORE_ALL = _errstate_var.get()
except (ImportError, AttributeError):
    _errstate_var = _IGNORE_ALL = None


def same_shape(x, **_):
    return x.shape


def unop(name: str, fn, family: Family, result_dtype=None, params=(), **attributes):
    """An elementwise primitive of one operand; it keeps the operand's shape and weak type.

    ``attributes`` are :class:`~minijax.primitives.Primitive`'s keyword
    arguments besides ``kind`` (always ``"elementwise"``): ``transcendental``,
    ``linear_in``...
    """
    def dtype_rule(x, **_):
        check_family(name, x, family)
        return x.dtype if result_dtype is None else np.dtype(result_dtype(x.dtype))
    return standard_primitive(name, same_shape, dtype_rule, numpy_impl(fn, params),
                              weak_type_rule=lambda x, **_: x.weak_type,
                              kind="elementwise", **attributes)


def naryop(name: str, fn, families, result_dtype=None, same_dtypes: bool = True,
            params=(), **attributes):
    """An elementwise primitive of several operands broadcasting as lax does.

    Operands must share one dtype (unless ``same_dtypes`` is false), taken
    from the family of their position; ``result_dtype(*avals, **params)``
    overrides the output dtype (comparisons return bool). The result is weak
    when every operand is. ``attributes`` as for :func:`unop`.
    """
    def dtype_rule(*avals, out_dtype=None, **_):
        for i, (aval, family) in enumerate(zip(avals, families)):
            check_family(name, aval, family, i)
        if same_dtypes and out_dtype is None:
            check_same_dtypes(name, *avals)
        if out_dtype is not None:
            return dtypes.canonicalize_dtype(dtypes.dtype(out_dtype))
        return avals[0].dtype if result_dtype is None else np.dtype(result_dtype(*avals))
    return standard_primitive(name, broadcasting_shape_rule(name), dtype_rule,
                              numpy_impl(fn, params), kind="elementwise", **attributes)


# --- shapes and axes given by users ---------------------------------------------------
def canonicalize_shape(shape, context: str = "") -> tuple[int, ...]:
    """A shape as a tuple of Python ints (an int ``n`` means ``(n,)``), or JAX's TypeError.

    Accepts ints, sequences of ints and 0/1-d integer arrays; anything else
    (floats, ``None``, a traced value) raises the error JAX raises.
    """
    if not isinstance(shape, (tuple, list)) and np.ndim(shape) == 0:
        shape = (shape,)
    try:
        return tuple(operator.index(d) for d in shape)
    except TypeError:
        msg = f"Shapes must be 1D sequences of concrete values of integer type, got {shape}."
        raise TypeError(f"{msg} {context}." if context else msg) from None


def check_shapelike(fun_name: str, arg_name: str, obj) -> None:
    """JAX's check that ``obj`` is a 1-D sequence of non-negative integers."""
    if not isinstance(obj, (tuple, list, np.ndarray)):
        raise TypeError(f"{fun_name} {arg_name} must be of type tuple/list/ndarray, "
                        f"got {type(obj)}.")
    if not len(obj):
        return
    ndim = np.ndim(np.array(obj, dtype=object))
    if ndim != 1:
        raise TypeError(f"{fun_name} {arg_name} must be 1-dimensional, got {ndim}.")
    try:
        [operator.index(d) for d in obj]
    except TypeError as err:
        raise TypeError(f"{fun_name} {arg_name} must have every element be an integer "
                        f"type, got {tuple(map(type, obj))}.") from err
    if not all(d >= 0 for d in obj):
        raise TypeError(f"{fun_name} {arg_name} must have every element be nonnegative, "
                        f"got {obj}.")


# --- helpers for impl rules -------------------------------------------------------

def canonicalize_axis(axis: int, ndim: int) -> int:
    """Turn a possibly negative axis into a non-negative one, or raise JAX's ValueError."""
    axis = int(axis)
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis + ndim if axis < 0 else axis
