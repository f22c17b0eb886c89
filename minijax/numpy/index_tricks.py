"""Chapter 00 — index helpers: ``mgrid``, ``r_``, ``ix_``, ``tril_indices``...

These build *index arrays* (or slices) from shapes and ranges known in
Python, so all of them work on concrete sizes; the arrays they return can
then index traced arrays. ``unravel_index``/``ravel_multi_index`` convert
between flat and per-dimension indices with ``//``, ``%`` and a dot with
the strides.
"""
from __future__ import annotations

import operator

import numpy as np

from minijax import dtypes
from minijax.numpy import creation as _c, shapes as _s, ufuncs as _u
from minijax.numpy.set_ops import nonzero
from minijax.numpy.util import check_arraylike

__all__ = [
    "tril_indices", "triu_indices", "tril_indices_from", "triu_indices_from",
    "diag_indices", "diag_indices_from", "diagflat", "fill_diagonal", "indices",
    "ix_", "unravel_index", "ravel_multi_index", "mgrid", "ogrid", "r_", "c_",
    "s_", "index_exp", "mask_indices",
]

_int = dtypes.default_int_dtype


def _from_numpy(arrays):
    return tuple(_c.asarray(a.astype(_int)) for a in arrays)


def tril_indices(n, k=0, m=None):
    """Row and column indices of the lower triangle of an ``(n, m)`` array."""
    return _from_numpy(np.tril_indices(operator.index(n), operator.index(k), m))


def triu_indices(n, k=0, m=None):
    """Row and column indices of the upper triangle of an ``(n, m)`` array."""
    return _from_numpy(np.triu_indices(operator.index(n), operator.index(k), m))


def _check_2d(name, arr):
    if len(np.shape(arr)) != 2:
        raise ValueError(f"{name} requires a 2-dimensional array; got "
                         f"arr.shape={tuple(np.shape(arr))}")
    return np.shape(arr)


def tril_indices_from(arr, k=0):
    """:func:`tril_indices` for the shape of the 2-D ``arr``."""
    n, m = _check_2d("tril_indices_from", arr)
    return tril_indices(n, k, m)


def triu_indices_from(arr, k=0):
    """:func:`triu_indices` for the shape of the 2-D ``arr``."""
    n, m = _check_2d("triu_indices_from", arr)
    return triu_indices(n, k, m)


def diag_indices(n, ndim=2):
    """``ndim`` copies of ``arange(n)``: the indices of the main diagonal."""
    n, ndim = operator.index(n), operator.index(ndim)
    if n < 0:
        raise ValueError(f"n argument to diag_indices must be nonnegative, got {n}")
    if ndim < 0:
        raise ValueError(f"ndim argument to diag_indices must be nonnegative, got {ndim}")
    return (_c.arange(n),) * ndim


def diag_indices_from(arr):
    """:func:`diag_indices` of an array whose dimensions are all equal."""
    shape = np.shape(arr)
    if len(shape) < 2:
        raise ValueError("input array must be at least 2-d")
    if len(set(shape)) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    return diag_indices(shape[0], len(shape))


def diagflat(v, k=0):
    """A 2-D array with ``ravel(v)`` on diagonal ``k``."""
    v = _s.ravel(_c.asarray(v))
    n = v.shape[0] + abs(k)
    rows = _c.arange(v.shape[0]) + max(-k, 0)
    cols = _c.arange(v.shape[0]) + max(k, 0)
    return _c.zeros((n, n), v.dtype).at[rows, cols].set(v)


def fill_diagonal(a, val, wrap=False, *, inplace=True):
    """A copy of ``a`` with its main diagonal set to ``val`` (``inplace=False`` required)."""
    if inplace:
        raise NotImplementedError("JAX arrays are immutable, must use inplace=False")
    if wrap:
        raise NotImplementedError("wrap=True is not implemented, must use wrap=False")
    a = _c.asarray(a)
    if a.ndim < 2:
        raise ValueError("array must be at least 2-d")
    if a.ndim > 2 and len(set(a.shape)) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    n = min(a.shape)
    val = _s.ravel(_c.asarray(val).astype(a.dtype))
    val = _s.tile(val, -(-n // max(val.shape[0], 1)))[:n]  # repeat val as NumPy does
    return a.at[(_c.arange(n),) * a.ndim].set(val)


def indices(dimensions, dtype=None, sparse=False):
    """Grids of indices: ``out[i][...]`` is the ``i``-th coordinate."""
    dtype = _int if dtype is None else dtype
    dims = tuple(operator.index(d) for d in dimensions)
    out = []
    for i, d in enumerate(dims):
        shape = tuple(d if j == i else 1 for j in range(len(dims)))
        idx = _c.arange(d, dtype=dtype).reshape(shape)
        out.append(idx if sparse else _s.broadcast_to(idx, dims))
    return tuple(out) if sparse else (_s.stack(out) if out else _c.zeros((0,), dtype))


def ix_(*args):
    """Open mesh from 1-D sequences: each reshaped to broadcast along its own axis."""
    n = len(args)
    out = []
    for i, a in enumerate(args):
        a = _c.asarray(a)
        if a.ndim != 1:
            raise ValueError(f"Arguments to jax.numpy.ix_ must be 1-dimensional, got shape "
                             f"{a.shape}")
        out.append(a.reshape(tuple(-1 if j == i else 1 for j in range(n))))
    return tuple(out)


def unravel_index(indices, shape):
    """Per-dimension indices of flat ``indices`` into ``shape`` (negatives wrap, clipped)."""
    check_arraylike("unravel_index", indices)
    indices = _c.asarray(indices)
    shape = tuple(operator.index(d) for d in np.atleast_1d(shape))
    total = int(np.prod(shape))
    flat = _u.clip(_u.where(indices < 0, indices + total, indices), 0, max(total - 1, 0))
    out = []
    for d in reversed(shape):
        out.append(flat % d)
        flat = flat // d
    return tuple(reversed(out))


def ravel_multi_index(multi_index, dims, mode="raise", order="C"):
    """Flat indices from per-dimension ``multi_index`` (``mode``: raise, wrap, clip)."""
    dims = tuple(operator.index(d) for d in dims)
    if len(multi_index) != len(dims):
        raise ValueError(f"ravel_multi_index: {len(multi_index)} indices for "
                         f"{len(dims)} dimensions")
    idx = [_c.asarray(i) for i in multi_index]
    if mode == "raise":
        for i, d in zip(idx, dims):
            v = np.asarray(i)  # must be concrete, as in JAX
            if np.any((v < 0) | (v >= d)):
                raise ValueError("invalid entry in coordinates array")
    elif mode == "wrap":
        idx = [i % d for i, d in zip(idx, dims)]
    elif mode == "clip":
        idx = [_u.clip(i, 0, d - 1) for i, d in zip(idx, dims)]
    else:
        raise ValueError(f"invalid mode={mode!r}. Expected 'raise', 'wrap', or 'clip'")
    strides = np.cumprod((dims[1:] + (1,))[::-1])[::-1] if order == "C" else \
        np.cumprod((1,) + dims[:-1])
    result = idx[0] * int(strides[0])
    for i, s in zip(idx[1:], strides[1:]):
        result = result + i * int(s)
    return result


# --- the index-expression objects: mgrid[...], r_[...], s_[...] --------------

def _slice_to_array(s: slice):
    """``start:stop:step`` as ``arange``, or ``linspace`` when ``step`` is ``Nj``."""
    start = 0 if s.start is None else s.start
    step = 1 if s.step is None else s.step
    if isinstance(step, complex):
        return _c.linspace(start, s.stop, int(abs(step)), endpoint=True)
    return _c.arange(start, s.stop, step)


class _Grid:
    def __init__(self, sparse: bool):
        self.sparse = sparse

    def __getitem__(self, key):
        if isinstance(key, slice):
            return _slice_to_array(key)
        arrays = [_slice_to_array(k) for k in key]
        grids = _c.meshgrid(*_promote(arrays), indexing="ij", sparse=self.sparse)
        return list(grids) if self.sparse else _s.stack(grids)  # a list, as JAX 0.10.2 gives


def _promote(arrays):
    dtype = dtypes.result_type(*arrays)
    return [a.astype(dtype) for a in arrays]


class _Concat:
    """``r_``/``c_``: concatenate slices, scalars and arrays along an axis."""

    def __init__(self, axis: int, ndmin: int, trans1d: int):
        self.axis, self.ndmin, self.trans1d = axis, ndmin, trans1d

    def __getitem__(self, key):
        key = key if isinstance(key, tuple) else (key,)
        axis, ndmin, trans1d = self.axis, self.ndmin, self.trans1d
        matrix = -1  # the 'r'/'c' directives: make a 1-D result a row / a column
        if key and isinstance(key[0], str):
            directive, key = key[0], key[1:]
            if directive in ("r", "c"):
                matrix = 0 if directive == "r" else 1
            else:
                try:
                    spec = [int(x) for x in directive.split(",")[:3]]
                except ValueError:
                    raise ValueError(f"could not understand directive {directive!r}") from None
                axis, ndmin, trans1d = spec + [axis, ndmin, trans1d][len(spec):]
        items = []
        for item in key:
            if isinstance(item, str):
                raise ValueError("string directive must be placed at the beginning")
            arr = _slice_to_array(item) if isinstance(item, slice) else _c.asarray(item)
            if arr.ndim < ndmin:
                arr = _s.atleast_1d(arr) if ndmin == 1 else self._lift(arr, ndmin, trans1d)
            items.append(arr)
        out = _s.concatenate(items, axis=axis)
        if matrix != -1 and out.ndim == 1:
            out = _s.expand_dims(out, matrix)
        return out

    @staticmethod
    def _lift(arr, ndmin, trans1d):
        shape = (1,) * (ndmin - arr.ndim) + arr.shape
        arr = arr.reshape(shape)
        if trans1d != -1 and len(shape) > 1:
            arr = _s.moveaxis(arr, -1, trans1d)
        return arr


class _IndexExpression:
    """``s_[...]`` and ``index_exp[...]``: the index expression itself."""

    def __init__(self, maketuple: bool):
        self.maketuple = maketuple

    def __getitem__(self, item):
        if self.maketuple and not isinstance(item, tuple):
            return (item,)
        return item


mgrid = _Grid(sparse=False)
ogrid = _Grid(sparse=True)
r_ = _Concat(axis=0, ndmin=1, trans1d=-1)
c_ = _Concat(axis=-1, ndmin=2, trans1d=0)
s_ = _IndexExpression(maketuple=False)
index_exp = _IndexExpression(maketuple=True)


def mask_indices(n: int, mask_func, k: int = 0, *, size=None):
    """The ``(rows, cols)`` where ``mask_func(ones((n, n)), k)`` is nonzero, e.g.
    ``mask_indices(3, jnp.triu)`` gives the upper triangle; under tracing pass ``size``."""
    rows, cols = nonzero(mask_func(_c.ones((n, n)), k), size=size)
    return rows, cols
