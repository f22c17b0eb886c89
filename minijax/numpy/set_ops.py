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

import numpy as np

from minijax import dtypes
from minijax.numpy import creation as _c, reductions as _r, shapes as _s, sorting as _so
from minijax.numpy import ufuncs as _u
from minijax.numpy.indexing import take
from minijax.numpy.util import check_arraylike
from minijax.numpy.util import is_traced as _is_traced

__all__ = [
    "nonzero", "argwhere", "flatnonzero", "unique", "unique_values",
    "unique_counts", "unique_inverse", "unique_all", "isin", "union1d",
    "intersect1d", "setdiff1d", "extract",
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

def unique(ar, return_index=False, return_inverse=False, return_counts=False,
           axis=None, *, equal_nan=True, size=None, fill_value=None, sorted=True):
    """The sorted distinct values of ``ravel(ar)`` (``axis=None`` only here).

    Sort, mark each element that differs from its predecessor, and keep the
    marked ones. Under tracing pass ``size``; spare slots hold ``fill_value``
    (default: the smallest value).
    """
    check_arraylike("unique", ar)
    if axis is not None:
        raise NotImplementedError("minijax: jnp.unique supports axis=None only")
    ar = _s.ravel(_c.asarray(ar))
    n = ar.shape[0]
    perm = _so.argsort(ar)
    aux = ar[perm]
    is_new = _s.concatenate([_c.ones(min(n, 1), bool), aux[1:] != aux[:-1]])
    if equal_nan and dtypes.issubdtype(ar.dtype, np.inexact) and n:
        both_nan = _s.concatenate([_c.zeros(1, bool), _u.isnan(aux[1:]) & _u.isnan(aux[:-1])])
        is_new = is_new & ~both_nan
    if size is None and _is_traced(ar):
        _require_concrete(
            ar, "The error arose for the first argument of jnp.unique(). To make "
                "jnp.unique() compatible with JIT and other transforms, you can specify "
                "a concrete value for the size argument, which will determine the "
                "output size.")
    size = _static_size(is_new, size, "")
    starts = _true_positions(is_new, size)
    valid = starts < n
    safe = _u.where(valid, starts, 0)
    fill = aux[0] if fill_value is None and n else (fill_value if fill_value is not None else 0)
    values = _u.where(valid, aux[safe] if n else _c.zeros(size, ar.dtype),
                      _c.asarray(fill).astype(ar.dtype))
    out = [values]
    if return_index:
        # spare slots repeat the first index (slot 0), as JAX's do
        out.append((perm[safe] if n else safe).astype(dtypes.default_int_dtype))
    if return_inverse:
        group = _r.cumsum(is_new.astype(dtypes.default_int_dtype)) - 1
        inv = _c.zeros(n, dtypes.default_int_dtype).at[perm].set(group)
        out.append(inv)
    if return_counts:
        ends = _s.concatenate([starts[1:], _c.asarray([n])]) if size else starts
        ends = _u.minimum(ends, n)
        out.append(_u.where(valid, ends - safe, 0).astype(dtypes.default_int_dtype))
    return out[0] if len(out) == 1 else tuple(out)


def unique_values(x, /, *, size=None, fill_value=None):
    """The distinct values of ``x`` (Array API)."""
    return unique(x, size=size, fill_value=fill_value)


def unique_counts(x, /, *, size=None, fill_value=None):
    """``(values, counts)`` of the distinct values of ``x``."""
    return unique(x, return_counts=True, size=size, fill_value=fill_value)


def unique_inverse(x, /, *, size=None, fill_value=None):
    """``(values, inverse_indices)``; the inverse has the shape of ``x``."""
    values, inv = unique(x, return_inverse=True, size=size, fill_value=fill_value)
    return values, inv.reshape(np.shape(x) if not hasattr(x, "shape") else x.shape)


def unique_all(x, /, *, size=None, fill_value=None):
    """``(values, indices, inverse_indices, counts)`` of the distinct values of ``x``."""
    values, idx, inv, counts = unique(x, True, True, True, size=size, fill_value=fill_value)
    return values, idx, inv.reshape(x.shape if hasattr(x, "shape") else np.shape(x)), counts


# --- membership and set operations -------------------------------------------

def isin(element, test_elements, assume_unique=False, invert=False, *, method="auto"):
    """Whether each element of ``element`` occurs in ``test_elements`` (same shape)."""
    element, test = _c.asarray(element), _s.ravel(_c.asarray(test_elements))
    hits = _r.any(_s.expand_dims(element, -1) == test, axis=-1)
    return ~hits if invert else hits


def union1d(ar1, ar2, *, size=None, fill_value=None):
    """The sorted distinct values present in either array."""
    return unique(_s.concatenate([_s.ravel(ar1), _s.ravel(ar2)]), size=size,
                  fill_value=fill_value)


def setdiff1d(ar1, ar2, assume_unique=False, *, size=None, fill_value=None):
    """The sorted distinct values of ``ar1`` that are not in ``ar2``."""
    ar1 = _s.ravel(_c.asarray(ar1))
    keep = _c.ones(ar1.shape, bool)
    if not assume_unique and size is None:
        ar1 = unique(ar1)
        keep = _c.ones(ar1.shape, bool)
    elif not assume_unique:  # traceable: fixed-size unique, spare slots have count 0
        ar1, counts = unique(ar1, return_counts=True, size=ar1.shape[0])
        keep = counts > 0
    keep = keep & ~isin(ar1, ar2)
    return extract(keep, ar1, size=size, fill_value=0 if fill_value is None else fill_value)


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False, *, size=None,
                fill_value=None):
    """The sorted distinct values present in both arrays (and, optionally, where)."""
    a1, a2 = _s.ravel(_c.asarray(ar1)), _s.ravel(_c.asarray(ar2))
    u1, i1 = unique(a1, return_index=True)
    u2, i2 = unique(a2, return_index=True)
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
