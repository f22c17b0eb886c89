"""Chapter 00 — sorting primitives: ``sort`` (variadic, lexicographic) and ``top_k``.

``sort`` sorts several same-shaped operands together along one dimension:
the first ``num_keys`` of them are the keys (compared lexicographically, the
first one primary) and the rest are carried along by the same permutation.
That is how ``jnp.argsort`` works: it sorts ``(x, iota)`` and keeps the second
result. The order is XLA's: -0.0 and 0.0 compare equal, NaNs go last, complex
numbers compare by real then imaginary part. The sort is always stable here
(``is_stable=False`` only *allows* an unstable sort).

``top_k`` returns the ``k`` largest entries along an axis, largest first,
with their int32 indices. Unlike ``sort`` it uses the IEEE total order:
NaN is the largest value, -NaN the smallest and -0.0 < 0.0.
"""
from __future__ import annotations

import operator

import numpy as np

from minijax import dtypes
from minijax.abstract_arrays import get_aval
from minijax.lax.base import canonicalize_axis
from minijax.lax.shapes import multiple_results_primitive

__all__ = ["approx_max_k", "approx_min_k", "sort", "sort_key_val", "top_k"]


# --- sort -------------------------------------------------------------------------------
def _sort_abstract_eval(*avals, dimension, is_stable, num_keys):
    if any(a.shape != avals[0].shape for a in avals[1:]):
        shapes = " ".join(str(a.shape) for a in avals)
        raise TypeError(f"Arguments to sort must have equal shapes, got: {shapes}")
    if not 0 <= dimension < avals[0].ndim:
        raise ValueError(f"axis {dimension} is out of bounds for array of dimension "
                         f"{avals[0].ndim}")
    if not 1 <= num_keys <= len(avals):
        raise ValueError(f"num_keys={num_keys} must be between 1 and "
                         f"len(operand)={len(avals)}")
    return list(avals)


def _sort_keys(x: np.ndarray) -> list[np.ndarray]:
    """The arrays NumPy should compare to order ``x`` as XLA does.

    NumPy already puts NaNs (of either sign) last; -0.0 is mapped to 0.0 so
    that the two compare equal and a stable sort keeps their order.
    """
    if np.issubdtype(x.dtype, np.complexfloating):
        return _sort_keys(x.real) + _sort_keys(x.imag)
    if dtypes.issubdtype(x.dtype, np.floating):
        return [np.where(x == 0, np.zeros((), x.dtype), x)]
    return [x]


def _sort_impl(*operands, dimension, is_stable, num_keys):
    keys = [k for op in operands[:num_keys] for k in _sort_keys(op)]
    perm = np.lexsort(keys[::-1], axis=dimension)  # lexsort's primary key is its last
    return [np.take_along_axis(op, perm, axis=dimension) for op in operands]


sort_p = multiple_results_primitive("sort", _sort_abstract_eval, _sort_impl, kind="sort")


def sort(operand, dimension: int = -1, is_stable: bool = True, num_keys: int = 1):
    """Sort ``operand`` along ``dimension``; NaNs go last, -0.0 equals 0.0.

    ``operand`` may be a sequence of same-shaped arrays: they are sorted
    together, ordered lexicographically by the first ``num_keys``, and a tuple
    is returned.
    """
    if isinstance(operand, (list, tuple)):
        if len(operand) == 0:
            raise TypeError("Sort requires at least one operand")
        if not 1 <= num_keys <= len(operand):
            raise ValueError(f"num_keys={num_keys} must be between 1 and "
                             f"len(operand)={len(operand)}")
        dimension = canonicalize_axis(dimension, get_aval(operand[0]).ndim)
        return tuple(sort_p.bind(*operand, dimension=dimension, is_stable=is_stable,
                                 num_keys=num_keys))
    if num_keys != 1:
        raise ValueError(f"num_keys={num_keys} must equal 1 for a single operand.")
    dimension = canonicalize_axis(dimension, get_aval(operand).ndim)
    return sort_p.bind(operand, dimension=dimension, is_stable=is_stable, num_keys=1)[0]


def sort_key_val(keys, values, dimension: int = -1, is_stable: bool = True):
    """Sort ``keys`` along ``dimension`` and apply the same permutation to ``values``."""
    dimension = canonicalize_axis(dimension, get_aval(keys).ndim)
    k, v = sort_p.bind(keys, values, dimension=dimension, is_stable=is_stable, num_keys=1)
    return k, v


# --- top_k --------------------------------------------------------------------------------
def _top_k_abstract_eval(operand, *, k, axis):
    if np.issubdtype(operand.dtype, np.complexfloating):
        raise ValueError("top_k is not compatible with complex inputs.")
    if k < 0:
        raise ValueError(f"k argument to top_k must be nonnegative, got {k}")
    if operand.ndim == 0:
        raise TypeError(f"top_k operand must have >= 1 dimension, got {operand.shape}")
    if not 0 <= axis < operand.ndim:
        raise ValueError(f"axis argument out of range: axis={axis} for "
                         f"operand.shape={operand.shape}")
    shape = list(operand.shape)
    if shape[axis] < k:
        raise ValueError("k argument to top_k must be no larger than size along axis;"
                         f" got k={k} with shape={shape} and axis={axis}")
    shape[axis] = k
    # As in JAX, both results keep the operand's weak type.
    return [operand.update(shape=tuple(shape)),
            operand.update(shape=tuple(shape), dtype=np.dtype(np.int32))]


def _total_order_key(x: np.ndarray) -> np.ndarray:
    """Integers ordered as IEEE totalOrder orders the floats ``x`` (-NaN < -inf < -0 < 0 < NaN)."""
    if not dtypes.issubdtype(x.dtype, np.floating):
        return x
    bits = x.view(np.dtype(f"i{x.dtype.itemsize}"))
    # Negative floats grow in magnitude as their bits grow: flip all but the sign bit.
    return np.where(bits < 0, bits ^ np.iinfo(bits.dtype).max, bits)


def _top_k_impl(x, *, k, axis):
    n = x.shape[axis]
    # A stable ascending sort of the reversed keys, reversed back, is descending
    # with ties in increasing index order (the first occurrence comes first).
    ascending = np.argsort(np.flip(_total_order_key(x), axis), axis=axis, kind="stable")
    order = np.flip((n - 1) - ascending, axis)
    idx = np.take(order, np.arange(k), axis=axis)
    return [np.take_along_axis(x, idx, axis=axis), idx.astype(np.int32)]


top_k_p = multiple_results_primitive("top_k", _top_k_abstract_eval, _top_k_impl,
                                     kind="sort")


def top_k(operand, k: int, *, axis: int = -1):
    """The ``k`` largest entries of ``operand`` along ``axis`` (largest first) and their indices.

    Returns ``[values, indices]``; indices are int32, and equal values keep
    their original order.
    """
    k = int(k) if not isinstance(k, int) else k
    if k < 0:
        raise ValueError(f"k argument to top_k must be nonnegative, got {k}")
    axis = canonicalize_axis(axis, get_aval(operand).ndim)
    return top_k_p.bind(operand, k=operator.index(k), axis=axis)


def _approx_k(operand, k, reduction_dimension, is_max):
    ndim = get_aval(operand).ndim
    axis = canonicalize_axis(reduction_dimension, ndim)
    if not is_max:
        from minijax.lax.elementwise import neg
        values, indices = top_k(neg(operand), k, axis=axis)
        return [neg(values), indices]
    return top_k(operand, k, axis=axis)


def approx_max_k(operand, k: int, reduction_dimension: int = -1, recall_target: float = 0.95,
                 reduction_input_size_override: int = -1, aggregate_to_topk: bool = True):
    """The ``k`` largest entries along ``reduction_dimension`` and their indices.

    An approximation on TPUs; on the CPU (and here, on every target) XLA computes
    the exact top-k, so ``recall_target`` and the size override change nothing.
    Returns ``[values, indices]``."""
    return _approx_k(operand, k, reduction_dimension, True)


def approx_min_k(operand, k: int, reduction_dimension: int = -1, recall_target: float = 0.95,
                 reduction_input_size_override: int = -1, aggregate_to_topk: bool = True):
    """The ``k`` smallest entries along ``reduction_dimension`` and their indices
    (exact, as :func:`approx_max_k`). Returns ``[values, indices]``."""
    return _approx_k(operand, k, reduction_dimension, False)
