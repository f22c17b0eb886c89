"""Chapter 00 — elementwise primitives: math, comparisons, logic, conversions.

Each primitive is one line built by :func:`unop` or :func:`naryop` from
:mod:`minijax.lax.base`, plus its NumPy impl, followed by its ``lax`` wrapper
with JAX's signature. Semantics follow XLA, not NumPy, where they differ
(integer division truncates toward zero, for example); the impl rules say so
where it matters.

``lax`` does no implicit type promotion: ``lax.add(int32, float32)`` is an
error (``jnp.add`` is the function that promotes). Python scalars are accepted
and are weakly typed, but their dtype must still match.
"""
from __future__ import annotations

import numpy as np

from minijax import dtypes
from minijax.abstract_arrays import get_aval
from minijax.array import array_from_numpy
from minijax.lax.base import (DTYPE_FAMILIES as F, naryop, standard_primitive, unop)

__all__ = ["neg", "add", "sub", "mul", "sin", "cos", "exp", "log",
           "convert_element_type"]

# --- arithmetic ----------------------------------------------------------------
neg_p = unop("neg", np.negative, F["num"])
add_p = naryop("add", np.add, [F["num"], F["num"]])
sub_p = naryop("sub", np.subtract, [F["num"], F["num"]])
mul_p = naryop("mul", np.multiply, [F["num"], F["num"]])


def neg(x):
    r"""Elementwise negation: :math:`-x`."""
    return neg_p.bind(x)


def add(x, y):
    r"""Elementwise addition: :math:`x + y`."""
    return add_p.bind(x, y)


def sub(x, y):
    r"""Elementwise subtraction: :math:`x - y`."""
    return sub_p.bind(x, y)


def mul(x, y):
    r"""Elementwise multiplication: :math:`x \times y`."""
    return mul_p.bind(x, y)


# --- transcendental ------------------------------------------------------------
sin_p = unop("sin", np.sin, F["inexact"])
cos_p = unop("cos", np.cos, F["inexact"])
exp_p = unop("exp", np.exp, F["inexact"])
log_p = unop("log", np.log, F["inexact"])


def sin(x):
    r"""Elementwise sine: :math:`\sin x`."""
    return sin_p.bind(x)


def cos(x):
    r"""Elementwise cosine: :math:`\cos x`."""
    return cos_p.bind(x)


def exp(x):
    r"""Elementwise exponential: :math:`e^x`."""
    return exp_p.bind(x)


def log(x):
    r"""Elementwise natural logarithm: :math:`\log x`."""
    return log_p.bind(x)


# --- conversions -----------------------------------------------------------------
def _convert_impl(x, *, new_dtype, weak_type, sharding=None):
    # XLA converts float -> int by truncation and saturates out-of-range values;
    # NaN becomes 0. NumPy's astype leaves those cases undefined.
    new_dtype = np.dtype(new_dtype)
    if np.issubdtype(new_dtype, np.integer) and np.issubdtype(x.dtype, np.floating):
        info = np.iinfo(new_dtype)
        with np.errstate(invalid="ignore"):
            x = np.clip(np.nan_to_num(np.trunc(x), nan=0.0), info.min, info.max)
    if new_dtype == np.bool_:
        return x != 0
    with np.errstate(invalid="ignore", over="ignore"):
        return x.astype(new_dtype)


convert_element_type_p = standard_primitive(
    "convert_element_type",
    lambda x, **_: x.shape,
    lambda x, *, new_dtype, **_: dtypes.canonicalize_dtype(new_dtype),
    _convert_impl,
    weak_type_rule=lambda x, *, weak_type, **_: weak_type,
)


def convert_element_type(operand, new_dtype):
    """Elementwise cast to ``new_dtype`` (64-bit dtypes become 32-bit)."""
    return _convert_element_type(operand, new_dtype, weak_type=False)


def _convert_element_type(operand, new_dtype=None, weak_type: bool = False):
    """Cast ``operand``; no equation at all when dtype and weak type already match.

    This is the cast ``jax.numpy`` inserts for type promotion. ``weak_type``
    lets it produce a weakly typed result (``int32_array + 2.5`` is a *weak*
    float32, as in JAX). A constant (Python scalar, NumPy value) is converted
    at once, without a primitive.

    """
    aval = get_aval(operand)
    new_dtype = aval.dtype if new_dtype is None else dtypes.canonicalize_dtype(
        dtypes.dtype(new_dtype))
    if dtypes.is_python_scalar(operand) or isinstance(operand, (np.ndarray, np.generic)):
        # A constant: convert it now, in NumPy, as JAX folds it (``2.0:f16[]``).
        value = _convert_impl(np.asarray(operand), new_dtype=new_dtype, weak_type=weak_type)
        return array_from_numpy(value, weak_type=bool(weak_type))
    if aval.dtype == new_dtype and aval.weak_type == bool(weak_type):
        return operand
    return convert_element_type_p.bind(operand, new_dtype=new_dtype,
                                       weak_type=bool(weak_type), sharding=None)
