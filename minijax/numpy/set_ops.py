"""Chapter 00 — value-dependent shapes: ``nonzero``, ``unique`` and the set operations.

The output *shape* of ``nonzero`` or ``unique`` depends on the *values* of
the input, which a tracer does not know. JAX's answer, copied here:

- on a concrete array, compute the size from the values, then run the same
  fixed-size code everyone else runs;
- under tracing, the caller must pass a static ``size`` (and optionally a
  ``fill_value`` for the unused slots); without one, the tracer raises its
  ``ConcretizationTypeError``.

The fixed-size code only needs ``cumsum`` and ``searchsorted``: the k-th true
element of a mask sits where the running count first reaches ``k + 1``.
"""
from __future__ import annotations

import operator
from typing import NamedTuple

import numpy as np

from minijax import dtypes
from minijax.array import Array
from minijax.lax.base import canonicalize_axis
from minijax.numpy import creation as _c, reductions as _r, shapes as _s, sorting as _so
from minijax.numpy import ufuncs as _u
from minijax.numpy.indexing import take
from minijax.numpy.util import check_arraylike, promote_dtypes
from minijax.numpy.util import is_traced as _is_traced

__all__ = [
    "nonzero", "argwhere", "flatnonzero", "unique", "unique_values",
    "unique_counts", "unique_inverse", "unique_all", "isin", "union1d",
    "intersect1d", "setdiff1d", "setxor1d", "extract",
]


def _require_concrete(tracer, context: str) -> None:
    """Raise the tracer's own ``ConcretizationTypeError``, with JAX's ``context``.

    (The error class belongs to chapter 01; asking the tracer for its value
    produces it, and we re-raise it with the explanation JAX gives.)
    """
    if _is_traced(tracer) and tracer.to_concrete_value() is None:
        try:
            tracer.tolist()
        except Exception as err:  # ConcretizationTypeError
            raise type(err)(tracer, context) from None


def _static_size(x, size, context: str) -> int:
    """``size`` if given, else the concrete count of true entries of ``x``."""
    if size is not None:
        return operator.index(size)
    count = _r.count_nonzero(x)
    _require_concrete(count, context)
    return int(count)


def _true_positions(mask, size: int):
    """Flat positions of the first ``size`` true entries of a 1-D ``mask``;
    slots past the last true entry hold ``mask.size`` (an out-of-range marker)."""
    counts = _r.cumsum(mask.astype(dtypes.default_int_dtype))
    wanted = _c.arange(1, size + 1)
    return _so.searchsorted(counts, wanted, side="left").astype(dtypes.default_int_dtype)


def nonzero(a, *, size=None, fill_value=None):
    """Indices of the nonzero elements, one int32 array per dimension.

    Under tracing, ``size`` must be given; missing slots hold ``fill_value``
    (default 0; a scalar or one value per dimension).
    """
    check_arraylike("nonzero", a)
    a = _c.asarray(a)
    if a.ndim == 0:
        raise ValueError("Calling nonzero on 0d arrays is not allowed. "
                         "Use jnp.atleast_1d(scalar).nonzero() instead.")
    mask = _u.not_equal(a, 0).ravel() if a.dtype != np.bool_ else a.ravel()
    size = _static_size(mask, size, "The size argument of jnp.nonzero must be statically "
                        "specified to use jnp.nonzero within JAX transformations.")
    flat = _true_positions(mask, size)
    valid = flat < mask.shape[0]
    flat = _u.where(valid, flat, 0)
    idx = unravel(flat, a.shape)
    fills = (0,) * a.ndim if fill_value is None else fill_value
    if np.ndim(fills) == 0:
        fills = (fills,) * a.ndim
    if len(fills) != a.ndim:
        raise ValueError(f"fill_value must be a scalar or a tuple of length {a.ndim}; "
                         f"got {fill_value}")
    return tuple(_u.where(valid, i, _c.asarray(f).astype(i.dtype)) for i, f in zip(idx, fills))


def unravel(flat, shape):
    """Split int32 flat indices into one index array per dimension of ``shape``."""
    out = []
    for dim in reversed(shape):
        out.append(flat % dim if dim else flat)
        flat = flat // dim if dim else flat
    return tuple(reversed(out))


def argwhere(a, *, size=None, fill_value=None):
    """Indices of nonzero elements, as an ``(N, ndim)`` array."""
    a = _c.asarray(a)
    if a.ndim == 0:
        return _s.stack(nonzero(_s.atleast_1d(a), size=size, fill_value=fill_value), 1)[:, :0]
    return _s.stack(nonzero(a, size=size, fill_value=fill_value), 1)


def flatnonzero(a, *, size=None, fill_value=None):
    """Indices of nonzero elements of ``ravel(a)``."""
    return nonzero(_s.ravel(a), size=size, fill_value=fill_value)[0]


def extract(condition, arr, *, size=None, fill_value=0):
    """Elements of ``ravel(arr)`` where ``ravel(condition)`` is true."""
    arr = _s.ravel(_c.asarray(arr))
    cond = _s.ravel(_c.asarray(condition))
    if size is None:
        return arr[flatnonzero(cond)]
    (idx,) = nonzero(cond, size=size, fill_value=arr.shape[0])
    return take(arr, idx, mode="fill", fill_value=fill_value)


# --- unique ------------------------------------------------------------------

class _UniqueAllResult(NamedTuple):
    """What :func:`unique_all` returns (the Array API's named tuple)."""
    values: Array
    indices: Array
    inverse_indices: Array
    counts: Array


class _UniqueCountsResult(NamedTuple):
    """What :func:`unique_counts` returns."""
    values: Array
    counts: Array


class _UniqueInverseResult(NamedTuple):
    """What :func:`unique_inverse` returns."""
    values: Array
    inverse_indices: Array


_UNIQUE_SIZE_HINT = (
    "To make jnp.unique() compatible with JIT and other transforms, you can specify "
    "a concrete value for the size argument, which will determine the output size.")


def _sorted_rows(rows, equal_nan: bool):
    """Sort the rows of a 2-D ``rows`` lexicographically; mark each row that differs
    from the one before it (the first of each group of equal rows).

    Returns ``(sorted_rows, is_new, perm)`` with ``sorted_rows = rows[perm]``.
    """
    n, m = rows.shape
    if m == 1:
        perm = _so.argsort(rows[:, 0])
    else:  # lexsort's *last* key is the primary one: column 0
        perm = _so.lexsort([rows[:, j] for j in reversed(range(m))])
    aux = rows[perm]
    differs = aux[1:] != aux[:-1]
    if equal_nan and dtypes.issubdtype(rows.dtype, np.inexact):  # NaN equals NaN here
        differs = differs & ~(_u.isnan(aux[1:]) & _u.isnan(aux[:-1]))
    is_new = _s.concatenate([_c.ones(min(n, 1), bool), _r.any(differs, axis=1)])
    return aux, is_new, perm


def unique(ar, return_index=False, return_inverse=False, return_counts=False,
           axis=None, *, equal_nan=True, size=None, fill_value=None, sorted=True):
    """The sorted distinct values of ``ar`` (``axis=None``: of ``ravel(ar)``), or its
    distinct slices along ``axis``.

    Both cases are one algorithm on a 2-D array of rows (one row per slice;
    one column when ``axis=None``): sort the rows lexicographically, mark each
    row that differs from its predecessor, keep the marked ones. Under
    tracing pass ``size``; spare slots hold ``fill_value`` (default: the
    smallest row), their index is the first unique's and their count 0.
    ``sorted`` is accepted and ignored, as in JAX (the result is always sorted).
    """
    del sorted
    check_arraylike("unique", ar)
    ar = _c.asarray(ar)
    if size is None:
        _require_concrete(ar, "The error arose for the first argument of jnp.unique(). "
                              + _UNIQUE_SIZE_HINT)
    else:
        size = operator.index(size)
    in_shape, flattened = ar.shape, axis is None
    if flattened:
        ar, axis = _s.ravel(ar), 0
    axis = canonicalize_axis(axis, ar.ndim)
    n = ar.shape[axis]
    if n == 0 and size and fill_value is None:
        raise ValueError("jnp.unique: for zero-sized input with nonzero size argument, "
                         "fill_value must be specified")
    slices = _s.moveaxis(ar, axis, 0)
    rest = slices.shape[1:]
    rows = slices.reshape(n, int(np.prod(rest, dtype=int)))
    if rows.shape[1] == 0:  # slices of size 0 are all equal: one unique slice
        rows = _c.zeros((n, 1), ar.dtype)
    aux, is_new, perm = _sorted_rows(rows, equal_nan)
    size = _static_size(is_new, size, "")
    starts = _true_positions(is_new, size)
    valid = starts < n
    safe = _u.where(valid, starts, 0)
    slices_sorted = slices[perm] if n else slices
    values = slices_sorted[safe] if n else _c.zeros((size, *rest), ar.dtype)
    if fill_value is not None:
        keep = valid.reshape((size,) + (1,) * len(rest))
        values = _u.where(keep, values, _c.asarray(fill_value).astype(ar.dtype))
    out = [_s.moveaxis(values, 0, axis)]
    if return_index:
        out.append((perm[safe] if n else safe).astype(dtypes.default_int_dtype))
    if return_inverse:
        group = _r.cumsum(is_new.astype(dtypes.default_int_dtype)) - 1
        inv = _c.zeros(n, dtypes.default_int_dtype).at[perm].set(group)
        out.append(inv.reshape(in_shape) if flattened else inv)  # NumPy 2's shape
    if return_counts:
        ends = _u.minimum(_true_positions(is_new, size + 1)[1:], n)  # the next group's start
        out.append(_u.where(valid, ends - safe, 0).astype(dtypes.default_int_dtype))
    return out[0] if len(out) == 1 else tuple(out)


def unique_values(x, /, *, size=None, fill_value=None):
    """The distinct values of ``x`` (Array API)."""
    return unique(x, size=size, fill_value=fill_value)


def unique_counts(x, /, *, size=None, fill_value=None):
    """``(values, counts)`` of the distinct values of ``x``, as a named tuple."""
    return _UniqueCountsResult(*unique(x, return_counts=True, size=size,
                                       fill_value=fill_value))


def unique_inverse(x, /, *, size=None, fill_value=None):
    """``(values, inverse_indices)``; the inverse has the shape of ``x``."""
    values, inv = unique(x, return_inverse=True, size=size, fill_value=fill_value)
    return _UniqueInverseResult(values, inv.reshape(np.shape(x)))


def unique_all(x, /, *, size=None, fill_value=None):
    """``(values, indices, inverse_indices, counts)`` of the distinct values of ``x``."""
    values, idx, inv, counts = unique(x, True, True, True, size=size, fill_value=fill_value)
    return _UniqueAllResult(values, idx, inv.reshape(np.shape(x)), counts)


# --- membership and set operations -------------------------------------------

def isin(element, test_elements, assume_unique=False, invert=False, *, method="auto"):
    """Whether each element of ``element`` occurs in ``test_elements`` (same shape)."""
    element, test = _c.asarray(element), _s.ravel(_c.asarray(test_elements))
    hits = _r.any(_s.expand_dims(element, -1) == test, axis=-1)
    return ~hits if invert else hits


def union1d(ar1, ar2, *, size=None, fill_value=None):
    """The sorted distinct values present in either array."""
    check_arraylike("union1d", ar1, ar2)
    if size is None:
        _require_concrete(ar1, "The error arose in union1d()")
        _require_concrete(ar2, "The error arose in union1d()")
    return unique(_s.concatenate([_s.ravel(ar1), _s.ravel(ar2)]), size=size,
                  fill_value=fill_value)


def setdiff1d(ar1, ar2, assume_unique=False, *, size=None, fill_value=None):
    """The sorted distinct values of ``ar1`` that are not in ``ar2``; with ``size``,
    spare slots hold ``fill_value`` (default 0, and it may be traced)."""
    check_arraylike("setdiff1d", ar1, ar2)
    if size is None:
        _require_concrete(ar1, "The error arose in setdiff1d()")
    ar1 = _s.ravel(_c.asarray(ar1))
    fill = _c.asarray(0 if fill_value is None else fill_value).astype(ar1.dtype)
    if ar1.shape[0] == 0:
        return _c.full((size or 0,), fill, ar1.dtype)
    keep = _c.ones(ar1.shape, bool)
    if not assume_unique and size is None:
        ar1 = unique(ar1)
        keep = _c.ones(ar1.shape, bool)
    elif not assume_unique:  # traceable: fixed-size unique, spare slots have count 0
        ar1, counts = unique(ar1, return_counts=True, size=ar1.shape[0])
        keep = counts > 0
    keep = keep & ~isin(ar1, ar2)
    if size is None:
        return ar1[keep]
    (slot,) = nonzero(keep, size=size, fill_value=ar1.shape[0])
    return _u.where(slot < ar1.shape[0], take(ar1, slot, mode="fill", fill_value=0), fill)


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False, *, size=None,
                fill_value=None):
    """The sorted distinct values present in both arrays (and, optionally, where:
    the first index of each in ``ar1`` and in ``ar2``).

    With ``size`` it is traceable: spare slots hold ``fill_value`` (default: the
    smallest common value, or 0 when there is none) and the spare indices are
    ``len(ar1)`` and ``len(ar2)``.
    """
    check_arraylike("intersect1d", ar1, ar2)
    a1, a2 = promote_dtypes(_s.ravel(_c.asarray(ar1)), _s.ravel(_c.asarray(ar2)))
    if size is not None:
        return _intersect1d_fixed_size(a1, a2, operator.index(size), fill_value,
                                       assume_unique, return_indices)
    u1, i1 = unique(a1, return_index=True) if not assume_unique else (a1, _c.arange(a1.shape[0]))
    u2, i2 = unique(a2, return_index=True) if not assume_unique else (a2, _c.arange(a2.shape[0]))
    both = _s.concatenate([u1, u2])
    order = _so.argsort(both)
    aux = both[order]
    dup = aux[1:] == aux[:-1]
    values = extract(dup, aux[:-1])
    if not return_indices:
        return values
    first = order[:-1][dup]
    second = order[1:][dup] - u1.shape[0]
    return values, i1[first], i2[second]


def _intersect1d_fixed_size(a1, a2, size, fill_value, assume_unique, return_indices):
    """``intersect1d`` with a static output ``size``: compare the distinct values of
    ``a1`` with those of ``a2`` (an ``n1 x n2`` table of equalities), keep the hits."""
    n1, n2 = a1.shape[0], a2.shape[0]
    if assume_unique:
        u1, i1, ok1 = a1, _c.arange(n1), _c.ones(n1, bool)
        u2, i2, ok2 = a2, _c.arange(n2), _c.ones(n2, bool)
    else:  # fixed-size unique: spare slots have count 0
        u1, i1, c1 = unique(a1, return_index=True, return_counts=True, size=n1) if n1 else (
            a1, _c.arange(0), _c.arange(0))
        u2, i2, c2 = unique(a2, return_index=True, return_counts=True, size=n2) if n2 else (
            a2, _c.arange(0), _c.arange(0))
        ok1, ok2 = c1 > 0, c2 > 0
    equal = (u1[:, None] == u2[None, :]) & ok1[:, None] & ok2[None, :]
    hit = _r.any(equal, axis=1)
    (slot,) = nonzero(hit, size=size, fill_value=n1)
    found = slot < n1
    values = take(u1, slot, mode="fill", fill_value=0)
    if fill_value is None:  # the smallest common value (0 if none), as JAX fills
        smallest = _r.min(_u.where(found, values, _r.max(values))) if size else 0
        values = _u.where(found, values, smallest)
    else:
        values = _u.where(found, values, _c.asarray(fill_value).astype(values.dtype))
    if not return_indices:
        return values
    where_in_2 = _r.argmax(take(equal, slot, axis=0, mode="fill", fill_value=False), axis=1)
    idx1 = _u.where(found, take(i1, slot, mode="fill", fill_value=0), n1)
    idx2 = _u.where(found, i2[where_in_2] if n2 else 0, n2)
    return values, idx1.astype(dtypes.default_int_dtype), idx2.astype(dtypes.default_int_dtype)


def setxor1d(ar1, ar2, assume_unique=False, *, size=None, fill_value=None):
    """The sorted values that are in exactly one of the two arrays.

    Sort the distinct values of both together: a value in only one array has
    no equal neighbour. With ``size``, spare slots hold ``fill_value``
    (default: the smallest value found).
    """
    check_arraylike("setxor1d", ar1, ar2)
    a1, a2 = promote_dtypes(_s.ravel(_c.asarray(ar1)), _s.ravel(_c.asarray(ar2)))
    if size is None:
        if not assume_unique:
            a1, a2 = unique(a1), unique(a2)
        ok1, ok2 = _c.ones(a1.shape[0], bool), _c.ones(a2.shape[0], bool)
    elif not assume_unique:  # fixed-size unique: a spare slot has count 0
        a1, c1 = unique(a1, return_counts=True, size=a1.shape[0])
        a2, c2 = unique(a2, return_counts=True, size=a2.shape[0])
        ok1, ok2 = c1 > 0, c2 > 0
    else:
        ok1, ok2 = _c.ones(a1.shape[0], bool), _c.ones(a2.shape[0], bool)
    both, ok = _s.concatenate([a1, a2]), _s.concatenate([ok1, ok2])
    if both.shape[0] == 0:
        return both if size is None else _c.full(size, 0 if fill_value is None else fill_value,
                                                 both.dtype)
    order = _so.lexsort([both, ~ok])  # valid entries first, each part sorted
    aux, ok = both[order], ok[order]
    same_as_next = _s.concatenate([(aux[1:] == aux[:-1]) & ok[1:], _c.zeros(1, bool)])
    same_as_prev = _s.concatenate([_c.zeros(1, bool), same_as_next[:-1]])
    alone = ok & ~same_as_next & ~same_as_prev
    if size is None:
        return aux[alone]
    (slot,) = nonzero(alone, size=size, fill_value=aux.shape[0])
    found = slot < aux.shape[0]
    values = take(aux, slot, mode="fill", fill_value=0)
    if fill_value is None:  # the smallest value found
        fill = _r.min(_u.where(found, values, _r.max(aux)))
    else:
        fill = _c.asarray(fill_value).astype(aux.dtype)
    return _u.where(found, values, fill)
