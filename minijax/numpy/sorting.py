"""Chapter 00 — sorting: ``jnp.sort``, ``jnp.argsort`` and relatives.

Everything here is one lax primitive, ``sort``, which sorts several operands
together along one dimension by the first ``num_keys`` of them. ``argsort``
sorts an ``iota`` alongside the keys and keeps it; ``lexsort`` uses several
keys; ``descending`` reverses (``rev``) before and after, so that equal
elements keep their original order. NaNs sort to the end, as in NumPy.
"""
from __future__ import annotations

import operator

from minijax import dtypes, lax
from minijax.abstract_arrays import get_aval
from minijax.lax.base import canonicalize_axis
from minijax.numpy.creation import _user_dtype, asarray
from minijax.numpy.shapes import _slice_axis
from minijax.numpy.util import check_arraylike, promote_dtypes
from minijax.numpy.util import jnp_jit

__all__ = ["sort", "argsort", "lexsort", "searchsorted", "partition", "argpartition",
           "sort_complex"]


def _sort_input(name: str, a, axis, kind, order):
    """Check arguments; return the array (flattened if ``axis`` is None) and the axis."""
    check_arraylike(name, a)
    arr = asarray(a)
    if kind is not None:
        raise TypeError(f"'kind' argument to {name} is not supported. Use stable=True "
                        "or stable=False to specify sort stability.")
    if order is not None:
        raise TypeError(f"'order' argument to {name} is not supported.")
    if axis is None:
        arr = lax.reshape(arr, (get_aval(arr).size,))
        axis = 0
    return arr, canonicalize_axis(axis, get_aval(arr).ndim)


@jnp_jit("sort", static_argnames=("axis", "kind", "order", "stable", "descending"))
def sort(a, axis: int | None = -1, *, kind=None, order=None, stable: bool = True,
         descending: bool = False):
    """A sorted copy of ``a`` along ``axis`` (the flattened array if None).

    >>> sort(asarray([3, 1, 2]))
    Array([1, 2, 3], dtype=int32)
    """
    arr, dim = _sort_input("sort", a, axis, kind, order)
    result = lax.sort(arr, dimension=dim, is_stable=stable)
    return lax.rev(result, (dim,)) if descending else result


@jnp_jit("argsort", static_argnames=("axis", "kind", "order", "stable", "descending", "dtype"))
def argsort(a, axis: int | None = -1, *, kind=None, order=None, stable: bool = True,
            descending: bool = False, dtype=None):
    """The indices that sort ``a`` along ``axis`` (int32 unless ``dtype`` is given).

    >>> argsort(asarray([3., 1., 2.]))
    Array([1, 2, 0], dtype=int32)
    """
    arr, dim = _sort_input("argsort", a, axis, kind, order)
    idx_dtype = dtypes.default_int_dtype if dtype is None else _user_dtype(dtype, "argsort")
    iota = lax.broadcasted_iota(idx_dtype, get_aval(arr).shape, dim)
    if descending and stable:  # reverse first so that ties keep their order
        arr, iota = lax.rev(arr, (dim,)), lax.rev(iota, (dim,))
    _, indices = lax.sort_key_val(arr, iota, dimension=dim, is_stable=stable)
    return lax.rev(indices, (dim,)) if descending else indices


@jnp_jit("lexsort", static_argnames=("axis",))
def lexsort(keys, axis: int = -1):
    """Indices that sort by several keys: the *last* key is the primary one.

    >>> lexsort([asarray([1, 1, 0]), asarray([2, 1, 1])])
    Array([2, 1, 0], dtype=int32)
    """
    keys = tuple(keys)
    check_arraylike("lexsort", *keys)
    keys = [asarray(k) for k in keys]
    if not keys:
        raise TypeError("need sequence of keys with len > 0 in lexsort")
    shapes = {get_aval(k).shape for k in keys}
    if len(shapes) > 1:
        raise ValueError("all keys need to be the same shape")
    shape, = shapes
    if not shape:
        return lax.full((), 0, dtypes.default_int_dtype)
    axis = canonicalize_axis(axis, len(shape))
    iota = lax.broadcasted_iota(dtypes.default_int_dtype, shape, axis)
    return lax.sort((*keys[::-1], iota), dimension=axis, num_keys=len(keys))[-1]


@jnp_jit("searchsorted", static_argnames=("side", "method"))
def searchsorted(a, v, side: str = "left", sorter=None, *, method: str = "scan"):
    """Where to insert ``v`` into the sorted 1-d ``a`` to keep it sorted.

    Computed by comparing every ``v`` with every ``a`` and counting (JAX's
    ``method='compare_all'``); every ``method`` gives the same result.

    >>> searchsorted(asarray([1, 2, 2, 3]), asarray([2, 5]))
    Array([1, 4], dtype=int32)
    """
    if sorter is None:
        check_arraylike("searchsorted", a, v)
    else:
        check_arraylike("searchsorted", a, v, sorter)
    if side not in ("left", "right"):
        raise ValueError(f"invalid argument side={side!r}, expected 'left' or 'right'")
    if method not in ("scan", "scan_unrolled", "sort", "compare_all"):
        raise ValueError(f"invalid argument method={method!r}, expected one of "
                         "['compare_all', 'scan', 'scan_unrolled', 'sort']")
    a, v = promote_dtypes(asarray(a), asarray(v))
    if get_aval(a).ndim != 1:
        raise ValueError("a should be 1-dimensional")
    if sorter is not None:
        from minijax.numpy.indexing import take
        a = take(a, asarray(sorter))
    from minijax.numpy.reductions import sum as _sum
    v_shape, n = get_aval(v).shape, get_aval(a).shape[0]
    a_b = lax.broadcast_in_dim(a, v_shape + (n,), (len(v_shape),))
    v_b = lax.broadcast_in_dim(v, v_shape + (n,), tuple(range(len(v_shape))))
    before = _total_lt(a_b, v_b) if side == "left" else lax.bitwise_not(_total_lt(v_b, a_b))
    return _sum(before, axis=-1, dtype=dtypes.int32)


def _total_lt(x, y):
    """``x < y`` in the order ``sort`` uses: NaN above every number (a NaN query goes last)."""
    if not dtypes.is_float(get_aval(x).dtype):
        return lax.lt(x, y)
    return lax.bitwise_or(lax.lt(x, y), lax.bitwise_and(lax.ne(y, y), lax.eq(x, x)))


def _check_partition(name: str, a, kth, axis):
    check_arraylike(name, a)
    arr = asarray(a)
    if dtypes.is_complex(get_aval(arr).dtype):
        raise NotImplementedError(f"jnp.{name} for complex dtype is not implemented.")
    axis = canonicalize_axis(axis, get_aval(arr).ndim)
    kth = canonicalize_axis(operator.index(kth), get_aval(arr).shape[axis])
    return arr, kth, axis


@jnp_jit("partition", static_argnames=("kth", "axis"))
def partition(a, kth: int, axis: int = -1):
    """``a`` rearranged so that element ``kth`` is where sorting would put it.

    As in JAX, the ``kth + 1`` smallest values come first in ascending order,
    then the others in *descending* order.

    >>> partition(asarray([5, 1, 4, 2, 3]), 2)
    Array([1, 2, 3, 5, 4], dtype=int32)
    """
    arr, kth, axis = _check_partition("partition", a, kth, axis)
    n = get_aval(arr).shape[axis]
    s = sort(arr, axis=axis)
    top = lax.rev(_slice_axis(s, kth + 1, n, axis), (axis,))
    return lax.concatenate([_slice_axis(s, 0, kth + 1, axis), top], axis)


@jnp_jit("argpartition", static_argnames=("kth", "axis"))
def argpartition(a, kth: int, axis: int = -1):
    """Indices that :func:`partition` ``a``: those of the ``kth + 1`` smallest values
    (ascending), then the remaining indices in increasing order, as in JAX."""
    arr, kth, axis = _check_partition("argpartition", a, kth, axis)
    n = get_aval(arr).shape[axis]
    order = argsort(arr, axis=axis)
    rest = lax.sort(_slice_axis(order, kth + 1, n, axis), dimension=axis)
    return lax.concatenate([_slice_axis(order, 0, kth + 1, axis), rest], axis)


@jnp_jit("sort_complex")
def sort_complex(a):
    """``a`` sorted (lexicographically by real then imaginary part), as a complex array."""
    check_arraylike("sort_complex", a)
    result = lax.sort(asarray(a))
    dt = get_aval(result).dtype
    return lax.convert_element_type(
        result, dt if dtypes.is_complex(dt) else dtypes.complex64)
