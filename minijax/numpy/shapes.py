"""Chapter 00 — moving data around: reshape, transpose, concatenate, pad...

None of these functions computes on values. Each checks its arguments the way
``jax.numpy`` does (with JAX's error messages), works out the static shapes and
axes, and then calls one or a few lax primitives: ``jnp.reshape`` is a
``reshape``, ``jnp.flip`` a ``rev``, ``jnp.roll`` two slices and a
``concatenate``. Shapes, axes, split points and repeat counts must be concrete
(known while tracing); the arrays themselves may be traced.
"""
from __future__ import annotations

import math
import operator
from typing import Sequence

import numpy as np

from minijax import dtypes, lax
from minijax.abstract_arrays import get_aval
from minijax.lax import _convert_element_type
from minijax.lax.base import canonicalize_axis
from minijax.numpy.creation import _concrete_index, asarray, canonicalize_shape, zeros
from minijax.numpy.util import check_arraylike, promote_dtypes
from minijax.numpy.util import jnp_jit

__all__ = [
    "reshape", "ravel", "transpose", "matrix_transpose", "permute_dims", "swapaxes",
    "moveaxis", "rollaxis", "expand_dims", "squeeze", "concatenate", "concat", "stack",
    "hstack", "vstack", "dstack", "column_stack", "split", "array_split", "hsplit",
    "vsplit", "dsplit", "broadcast_to", "broadcast_arrays", "broadcast_shapes", "tile",
    "repeat", "flip", "fliplr", "flipud", "roll", "pad", "tril", "triu", "diag",
    "diagonal", "atleast_1d", "atleast_2d", "atleast_3d", "shape", "ndim", "size",
]

# NumPy's own functions work on Arrays and tracers (they read ``.shape``).
shape = np.shape
ndim = np.ndim
size = np.size


# --------------------------------------------------------------------------
# Small helpers
# --------------------------------------------------------------------------

def _ensure_arraylike(fun_name: str, *args):
    check_arraylike(fun_name, *args)
    return [asarray(a) for a in args]


def _aval(x):
    return get_aval(x)


def _index_tuple(x) -> tuple[int, ...]:
    """An int or a sequence of ints, as a tuple of ints."""
    try:
        return (operator.index(x),)
    except TypeError:
        return tuple(map(operator.index, x))


def _canonicalize_axes(axes, ndim: int) -> tuple[int, ...]:
    return tuple(canonicalize_axis(a, ndim) for a in axes)


def _slice_axis(x, start: int, stop: int, axis: int, stride: int = 1):
    """``x[..., start:stop:stride, ...]`` along ``axis`` (a ``slice`` primitive)."""
    shp = _aval(x).shape
    starts = [0] * len(shp)
    limits = list(shp)
    strides = [1] * len(shp)
    starts[axis], limits[axis], strides[axis] = start, stop, stride
    return lax.slice(x, starts, limits, strides if stride != 1 else None)


def _strip_weak_type(x):
    aval = _aval(x)
    return _convert_element_type(x, aval.dtype, False) if aval.weak_type else x


# --------------------------------------------------------------------------
# reshape, ravel
# --------------------------------------------------------------------------

def _compute_newshape(aval, newshape) -> tuple[int, ...]:
    """``newshape`` with a ``-1`` entry (at most one) filled in; JAX's errors otherwise."""
    orig = newshape
    try:
        iter(newshape)
    except TypeError:
        newshape = [newshape]
    newshape = canonicalize_shape(newshape)
    neg1s = [i for i, d in enumerate(newshape) if d == -1]
    if len(neg1s) > 1:
        raise TypeError("can only specify one unknown axis size with a `-1` value, "
                        f"got {orig}")
    if neg1s:
        i, = neg1s
        others = math.prod(newshape[:i] + newshape[i + 1:])
        if aval.size % others != 0:
            raise TypeError(f"cannot reshape array of shape {aval.shape} (size {aval.size}) "
                            f"into shape {orig} because the product of specified axis "
                            f"sizes ({others}) does not evenly divide {aval.size}")
        return newshape[:i] + (aval.size // others,) + newshape[i + 1:]
    if aval.size != math.prod(newshape):
        raise TypeError(f"cannot reshape array of shape {aval.shape} (size {aval.size}) "
                        f"into shape {orig} (size {math.prod(newshape)})")
    return newshape


def reshape(a, shape, order: str = "C", *, copy: bool | None = None, out_sharding=None):
    """``a`` with a new shape (one entry may be ``-1``); ``order='F'`` fills column-major.

    >>> reshape(asarray([1, 2, 3, 4]), (2, -1))
    Array([[1, 2],
           [3, 4]], dtype=int32)
    """
    check_arraylike("reshape", a)
    a = asarray(a)
    aval = _aval(a)
    newshape = _compute_newshape(aval, shape)
    if order == "C":
        return lax.reshape(a, newshape, None)
    if order == "F":
        reverse = tuple(range(aval.ndim))[::-1]
        out = lax.reshape(a, newshape[::-1], reverse)
        return lax.transpose(out, tuple(range(len(newshape)))[::-1])
    if order == "A":
        raise NotImplementedError("np.reshape order=A is not implemented.")
    raise ValueError(f"Unexpected value for 'order' argument: {order}.")


def ravel(a, order: str = "C", *, out_sharding=None):
    """``a`` flattened to one dimension (row-major unless ``order='F'``)."""
    a, = _ensure_arraylike("ravel", a)
    if order == "K":
        raise NotImplementedError("Ravel not implemented for order='K'.")
    return reshape(a, (_aval(a).size,), order)


# --------------------------------------------------------------------------
# Permuting axes
# --------------------------------------------------------------------------

def transpose(a, axes: Sequence[int] | None = None):
    """``a`` with its axes permuted (reversed when ``axes`` is None)."""
    a, = _ensure_arraylike("transpose", a)
    nd = _aval(a).ndim
    axes = tuple(range(nd))[::-1] if axes is None else axes
    return lax.transpose(a, _canonicalize_axes(axes, nd))


def permute_dims(a, /, axes: tuple[int, ...]):
    """``transpose`` with a required ``axes`` argument (the array API name)."""
    a, = _ensure_arraylike("permute_dims", a)
    nd = _aval(a).ndim
    return lax.transpose(a, _canonicalize_axes(axes, nd))


def matrix_transpose(x, /):
    """Swap the last two axes of ``x`` (``x.mT``)."""
    x, = _ensure_arraylike("matrix_transpose", x)
    nd = _aval(x).ndim
    if nd < 2:
        raise ValueError(f"x must be at least two-dimensional for matrix_transpose; "
                         f"got ndim={nd}")
    return lax.transpose(x, (*range(nd - 2), nd - 1, nd - 2))


def swapaxes(a, axis1: int, axis2: int):
    """``a`` with axes ``axis1`` and ``axis2`` exchanged."""
    a, = _ensure_arraylike("swapaxes", a)
    perm = np.arange(_aval(a).ndim)  # NumPy's IndexError for an axis out of range
    perm[axis1], perm[axis2] = perm[axis2], perm[axis1]
    return lax.transpose(a, tuple(int(p) for p in perm))


def moveaxis(a, source, destination):
    """``a`` with the axes ``source`` moved to positions ``destination``."""
    a, = _ensure_arraylike("moveaxis", a)
    nd = _aval(a).ndim
    source = _canonicalize_axes(_index_tuple(source), nd)
    destination = _canonicalize_axes(_index_tuple(destination), nd)
    if len(source) != len(destination):
        raise ValueError(f"Inconsistent number of elements: {len(source)} vs "
                         f"{len(destination)}")
    perm = [i for i in range(nd) if i not in source]
    for dest, src in sorted(zip(destination, source)):
        perm.insert(dest, src)
    return lax.transpose(a, tuple(perm))


@jnp_jit("rollaxis", static_argnames=("axis", "start"))
def rollaxis(a, axis: int, start: int = 0):
    """Move ``axis`` so that it lies before position ``start`` (prefer :func:`moveaxis`)."""
    a, = _ensure_arraylike("rollaxis", a)
    nd = _aval(a).ndim
    start = operator.index(start)
    axis = canonicalize_axis(axis, nd)
    if not -nd <= start <= nd:
        raise ValueError(f"start={start} must satisfy {-nd}<=start<={nd}")
    start = start + nd if start < 0 else start
    return moveaxis(a, axis, start - 1 if start > axis else start)


# --------------------------------------------------------------------------
# Adding and removing unit axes
# --------------------------------------------------------------------------

def expand_dims(a, axis):
    """Insert size-1 axes at the positions ``axis`` (an int or a tuple) of the result."""
    a, = _ensure_arraylike("expand_dims", a)
    return lax.expand_dims(a, _index_tuple(axis))


def squeeze(a, axis=None):
    """Remove size-1 axes: all of them, or those in ``axis`` (which must have size 1)."""
    a, = _ensure_arraylike("squeeze", a)
    if axis is None:
        axis = tuple(i for i, d in enumerate(_aval(a).shape) if d == 1)
    return lax.squeeze(a, _index_tuple(axis))


def _atleast(name: str, nd: int, arys):
    check_arraylike(name, *arys)
    out = [_atleast_nd(asarray(x), nd) for x in arys]
    return out[0] if len(out) == 1 else out


def _atleast_nd(x, nd: int):
    rank = _aval(x).ndim
    if rank >= nd:
        return x
    if nd == 3:  # NumPy's atleast_3d puts a 1-d array in the middle: (1, n, 1)
        return lax.expand_dims(x, {0: (0, 1, 2), 1: (0, 2), 2: (2,)}[rank])
    return lax.expand_dims(x, tuple(range(nd - rank)))


@jnp_jit("atleast_1d")
def atleast_1d(*arys):
    """Each argument with at least one dimension (a list if there are several)."""
    return _atleast("atleast_1d", 1, arys)


@jnp_jit("atleast_2d")
def atleast_2d(*arys):
    """Each argument with at least two dimensions (leading unit axes added)."""
    return _atleast("atleast_2d", 2, arys)


@jnp_jit("atleast_3d")
def atleast_3d(*arys):
    """Each argument with at least three dimensions (``(n,)`` becomes ``(1, n, 1)``)."""
    return _atleast("atleast_3d", 3, arys)


# --------------------------------------------------------------------------
# Joining
# --------------------------------------------------------------------------

def _is_array(x) -> bool:
    return isinstance(x, np.ndarray) or hasattr(x, "aval")


def _length(arrays) -> int:
    """``len(arrays)`` for a list, or for an array (or tracer) from its shape."""
    if not _is_array(arrays):
        return len(arrays)
    shp = np.shape(arrays)
    if not shp:
        raise TypeError("len() of unsized object")
    return shp[0]


def _concatenate_array(arr, axis, dtype):
    """``concatenate`` of the rows of one array: a single reshape."""
    arr = asarray(arr, dtype=dtype)
    shp = _aval(arr).shape
    if not shp or shp[0] == 0:
        raise ValueError("Need at least one array to concatenate.")
    if axis is None:
        return lax.reshape(arr, (_aval(arr).size,))
    if len(shp) == 1:
        raise ValueError("Zero-dimensional arrays cannot be concatenated.")
    axis = canonicalize_axis(axis, len(shp) - 1)
    new_shape = shp[1:axis + 1] + (shp[0] * shp[axis + 1],) + shp[axis + 2:]
    dims = (*range(1, axis + 1), 0, *range(axis + 1, len(shp)))
    return lax.reshape(arr, new_shape, dims)


def concatenate(arrays, axis: int | None = 0, dtype=None):
    """Join arrays along an existing ``axis`` (``None``: flatten them first).

    Inputs are promoted to a common dtype:

    >>> concatenate([asarray([1, 2]), asarray([3.5])])
    Array([1. , 2. , 3.5], dtype=float32)
    """
    if _is_array(arrays):
        return _concatenate_array(arrays, axis, dtype)
    arrays = _ensure_arraylike("concatenate", *arrays)
    if not arrays:
        raise ValueError("Need at least one array to concatenate.")
    if axis is None:
        return concatenate([ravel(a) for a in arrays], axis=0, dtype=dtype)
    if _aval(arrays[0]).ndim == 0:
        raise ValueError("Zero-dimensional arrays cannot be concatenated.")
    axis = canonicalize_axis(axis, _aval(arrays[0]).ndim)
    if dtype is None:
        arrays = promote_dtypes(*arrays)
    else:
        arrays = [asarray(a, dtype=dtype) for a in arrays]
    return arrays[0] if len(arrays) == 1 else lax.concatenate(arrays, axis)


def concat(arrays, /, *, axis: int | None = 0):
    """:func:`concatenate` under its array API name."""
    check_arraylike("concat", *arrays)
    return concatenate(arrays, axis=axis)


def stack(arrays, axis: int = 0, out=None, dtype=None):
    """Join arrays of one shape along a new ``axis``.

    >>> stack([asarray([1, 2]), asarray([3, 4])], axis=1)
    Array([[1, 3],
           [2, 4]], dtype=int32)
    """
    if not _length(arrays):
        raise ValueError("Need at least one array to stack.")
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.stack is not supported.")
    if _is_array(arrays):
        axis = canonicalize_axis(axis, np.ndim(arrays))
        return concatenate(expand_dims(arrays, axis + 1), axis=axis, dtype=dtype)
    arrays = _ensure_arraylike("stack", *arrays)
    if dtype is not None:
        arrays = [asarray(a, dtype=dtype) for a in arrays]
    else:
        arrays = promote_dtypes(*arrays)
    return lax.stack(arrays, axis=axis)


def _rows(tup):
    """The rows of an array, or the elements of a list (what ``*stack`` joins)."""
    if _is_array(tup):
        return [lax.squeeze(r, (0,)) for r in split(tup, np.shape(tup)[0])]
    return list(tup)


def vstack(tup, dtype=None):
    """Join arrays row-wise (along axis 0, after making each at least 2-d)."""
    rows = _rows(tup)
    check_arraylike("vstack", *rows)
    return concatenate([atleast_2d(m) for m in rows], axis=0, dtype=dtype)


def hstack(tup, dtype=None):
    """Join arrays column-wise (axis 1; axis 0 for 1-d inputs)."""
    rows = _rows(tup)
    check_arraylike("hstack", *rows)
    arrs = [atleast_1d(m) for m in rows]
    axis = 0 if arrs and _aval(arrs[0]).ndim == 1 else 1
    return concatenate(arrs, axis=axis, dtype=dtype)


def dstack(tup, dtype=None):
    """Join arrays depth-wise (along axis 2, after making each at least 3-d)."""
    rows = _rows(tup)
    check_arraylike("dstack", *rows)
    return concatenate([atleast_3d(m) for m in rows], axis=2, dtype=dtype)


def column_stack(tup):
    """Join 1-d arrays as the columns of a 2-d array (higher-rank inputs as ``hstack``)."""
    rows = _rows(tup)
    check_arraylike("column_stack", *rows)
    arrs = [asarray(a) for a in rows]
    arrs = [transpose(atleast_2d(a)) if _aval(a).ndim < 2 else a for a in arrs]
    return concatenate(arrs, axis=1)


# --------------------------------------------------------------------------
# Splitting
# --------------------------------------------------------------------------

def _split(op: str, ary, indices_or_sections, axis: int = 0):
    ary, = _ensure_arraylike(op, ary)
    axis = _concrete_index(axis)
    n = _aval(ary).shape[axis]
    if isinstance(indices_or_sections, (tuple, list)) or (
            _is_array(indices_or_sections) and np.ndim(indices_or_sections) > 0):
        indices = indices_or_sections
        if hasattr(indices, "aval"):  # must be concrete; a tracer raises its own error
            indices = indices.tolist()
        points = [0] + [operator.index(i) for i in indices] + [n]
        sizes = list(np.diff(points))
    else:
        sections = int(indices_or_sections)
        part, rest = divmod(n, sections)
        if rest == 0:
            sizes = [part] * sections
        elif op == "array_split":
            sizes = [part + 1] * rest + [part] * (sections - rest)
        else:
            raise ValueError(f"array split does not result in an equal division: rest is {rest}")
    return list(lax.split(ary, [np.int64(s) for s in sizes], axis=axis))


def split(ary, indices_or_sections, axis: int = 0):
    """Split ``ary`` into equal sections, or at the given indices, along ``axis``.

    >>> split(asarray([1, 2, 3, 4]), 2)
    [Array([1, 2], dtype=int32), Array([3, 4], dtype=int32)]
    """
    return _split("split", ary, indices_or_sections, axis=axis)


def array_split(ary, indices_or_sections, axis: int = 0):
    """Like :func:`split`, but sections may differ in size by one."""
    return _split("array_split", ary, indices_or_sections, axis=axis)


def vsplit(ary, indices_or_sections):
    """:func:`split` along axis 0."""
    return _split("vsplit", ary, indices_or_sections, axis=0)


def hsplit(ary, indices_or_sections):
    """:func:`split` along axis 1 (axis 0 for 1-d arrays)."""
    a, = _ensure_arraylike("hsplit", ary)
    return _split("hsplit", a, indices_or_sections, axis=0 if _aval(a).ndim == 1 else 1)


def dsplit(ary, indices_or_sections):
    """:func:`split` along axis 2."""
    return _split("dsplit", ary, indices_or_sections, axis=2)


# --------------------------------------------------------------------------
# Broadcasting
# --------------------------------------------------------------------------

def broadcast_shapes(*shapes):
    """The shape that arrays of ``shapes`` broadcast to (NumPy's rule).

    >>> broadcast_shapes((2, 1), (3,))
    (2, 3)
    """
    return lax.broadcast_shapes(*[(s,) if np.ndim(s) == 0 else tuple(s) for s in shapes])


def broadcast_to(array, shape, *, out_sharding=None):
    """``array`` broadcast to ``shape`` (leading axes added, unit axes stretched)."""
    arr, = _ensure_arraylike("broadcast_to", array)
    if not isinstance(shape, tuple) and np.ndim(shape) == 0:
        shape = (shape,)
    shape = canonicalize_shape(shape)
    aval = _aval(arr)
    if aval.shape == shape:
        return arr
    if len(shape) < aval.ndim:
        raise ValueError("Cannot broadcast to shape with fewer dimensions: "
                         f"arr_shape={aval.shape} shape={shape}")
    nlead = len(shape) - aval.ndim
    if not all(d in (1, s) for d, s in zip(aval.shape, shape[nlead:])):
        requested = aval.update(shape=shape).str_short(short_dtypes=False)
        raise ValueError("Incompatible types for broadcasting: input type="
                         f"{aval.str_short(short_dtypes=False)} and requested type={requested}")
    return lax.broadcast_in_dim(arr, shape, tuple(range(nlead, len(shape))))


def broadcast_arrays(*args):
    """The arguments broadcast against each other (a list of arrays of one shape)."""
    arrays = _ensure_arraylike("broadcast_arrays", *args)
    shapes = [_aval(a).shape for a in arrays]
    if not shapes or all(s == shapes[0] for s in shapes):
        return arrays
    result_shape = broadcast_shapes(*shapes)
    return [broadcast_to(a, result_shape) for a in arrays]


# --------------------------------------------------------------------------
# Repeating
# --------------------------------------------------------------------------

def tile(A, reps):
    """``A`` repeated ``reps`` times along each axis (a ``tile`` primitive)."""
    A, = _ensure_arraylike("tile", A)
    reps = _index_tuple(reps)
    nd = _aval(A).ndim
    reps = (1,) * (nd - len(reps)) + reps
    if len(reps) > nd:
        A = lax.expand_dims(A, tuple(range(len(reps) - nd)))
    return lax.tile(A, reps)


def _repeat_indices(repeats: np.ndarray, total: int) -> np.ndarray:
    """Gather indices for ``repeat``, padded or cut to ``total`` exactly as JAX does.

    Element ``i`` starts at the exclusive cumulative sum of ``repeats``; past
    the end, the last started element repeats.
    """
    starts = np.concatenate([[0], np.cumsum(repeats)[:-1]]).astype(np.int64)
    marks = np.zeros(total, np.int64)
    np.add.at(marks, starts[starts < total], 1)
    return np.cumsum(marks) - 1


def _repeat_to_length(a, repeats, axis, total):
    """``repeat`` with ``total_repeat_length``: gather indices built with array ops.

    Element ``i`` starts at the exclusive cumulative sum of ``repeats``: a
    scatter-add marks each start in ``total`` zeros, and the cumulative sum
    of the marks, less one, is the gather index (starts past ``total`` are
    dropped; past the last start, the last element repeats).
    """
    from minijax.numpy import reductions
    from minijax.numpy.creation import zeros as _zeros
    from minijax.numpy.indexing import take
    aval = _aval(a)
    reps = ravel(asarray(repeats))
    if aval.ndim == 0:
        if _aval(reps).shape != (1,):
            raise ValueError("`repeat` with a scalar parameter `a` is only implemented "
                             "for scalar values of the parameter `repeats`.")
        return lax.full((total,), a)
    axis = canonicalize_axis(axis, aval.ndim)
    reps = broadcast_to(reps, (aval.shape[axis],))
    if total == 0:
        out_shape = list(aval.shape)
        out_shape[axis] = 0
        return _zeros(out_shape, aval.dtype)
    if aval.shape[axis] == 0:
        return a
    starts = reductions.cumsum(roll(reps, 1).at[0].set(0))
    marks = _zeros((total,), dtypes.int32).at[starts].add(1)
    return take(a, reductions.cumsum(marks) - 1, axis=axis)


def repeat(a, repeats, axis: int | None = None, *, total_repeat_length: int | None = None,
           out_sharding=None):
    """Repeat each element of ``a`` (along ``axis``, or of the flattened array).

    ``repeats`` is an int or a concrete array with one count per element.

    >>> repeat(asarray([1, 2]), 2)
    Array([1, 1, 2, 2], dtype=int32)
    """
    if isinstance(repeats, (int, np.integer)):
        check_arraylike("repeat", a)
    else:
        check_arraylike("repeat", a, repeats)
    a = asarray(a)
    if axis is None:
        a, axis = ravel(a), 0
    axis = _concrete_index(axis)
    aval = _aval(a)
    if total_repeat_length is not None:  # the output's length is known: repeats may be traced
        return _repeat_to_length(a, repeats, axis, operator.index(total_repeat_length))
    # ``repeats`` must be concrete: a tracer's ``tolist`` raises its ConcretizationTypeError
    reps = np.asarray(repeats.tolist() if hasattr(repeats, "aval") else repeats)
    if reps.ndim == 0 and aval.ndim != 0 and total_repeat_length is None:
        axis = canonicalize_axis(axis, aval.ndim)
        aux_shape = list(aval.shape)
        aux_shape.insert(axis + 1, int(reps))
        dims = [i for i in range(len(aux_shape)) if i != axis + 1]
        out_shape = list(aval.shape)
        out_shape[axis] *= int(reps)
        return reshape(lax.broadcast_in_dim(a, aux_shape, dims), out_shape)
    reps = np.ravel(reps)
    if aval.ndim != 0:
        axis = canonicalize_axis(axis, aval.ndim)
        reps = np.broadcast_to(reps, (aval.shape[axis],))
    total = int(np.sum(reps)) if total_repeat_length is None else total_repeat_length
    if aval.ndim == 0:
        if reps.shape != (1,):
            raise ValueError("`repeat` with a scalar parameter `a` is only implemented "
                             "for scalar values of the parameter `repeats`.")
        return lax.full((total,), a)
    if total == 0:
        out_shape = list(aval.shape)
        out_shape[axis] = 0
        return zeros(out_shape, aval.dtype)
    if aval.shape[axis] == 0:
        return a
    from minijax.numpy.indexing import take
    return take(a, asarray(_repeat_indices(reps, total), dtype=dtypes.int32), axis=axis)


# --------------------------------------------------------------------------
# Reversing and rotating
# --------------------------------------------------------------------------

@jnp_jit("_flip", static_argnames=("axis",))
def flip(m, axis=None):
    """``m`` with the order of elements reversed along ``axis`` (all axes if None)."""
    m, = _ensure_arraylike("flip", m)
    nd = _aval(m).ndim
    axes = tuple(range(nd)) if axis is None else _canonicalize_axes(_index_tuple(axis), nd)
    return lax.rev(m, axes)


def fliplr(m):
    """``m`` reversed along axis 1."""
    return flip(m, 1)


def flipud(m):
    """``m`` reversed along axis 0."""
    return flip(m, 0)


@jnp_jit("_roll_static", static_argnames=("shifts", "axes"))
def _roll_static(a, shifts, axes):
    for ax, s in zip(*np.broadcast_arrays(axes, shifts)):
        n = _aval(a).shape[ax]
        if n == 0:
            continue
        i = int(-s) % n
        a = lax.concatenate([_slice_axis(a, i, n, ax), _slice_axis(a, 0, i, ax)], int(ax))
    return a


@jnp_jit("_roll_dynamic", static_argnames=("axes",))
def _roll_dynamic(a, shift, axes):
    shift_shape = _aval(shift).shape
    b_shape = broadcast_shapes(shift_shape, np.shape(axes))
    if len(b_shape) != 1:
        raise ValueError("'shift' and 'axis' arguments to roll must be scalars or 1D arrays")
    shifts = broadcast_to(shift, b_shape)
    for i, ax in enumerate(np.broadcast_to(axes, b_shape)):
        ax = int(ax)
        n = _aval(a).shape[ax]
        x = lax.convert_element_type(_slice_axis(shifts, i, i + 1, 0), dtypes.int32)
        x = lax.reshape(x, ())
        n_const = asarray(max(n, 1), dtype=dtypes.int32)
        x = lax.rem(lax.add(lax.rem(x, n_const), n_const), n_const)  # floor modulo
        doubled = lax.concatenate([a, a], ax)
        starts = [asarray(0, dtype=dtypes.int32)] * _aval(a).ndim
        starts[ax] = lax.sub(asarray(n, dtype=dtypes.int32), x)
        a = lax.dynamic_slice(doubled, starts, _aval(a).shape)
    return a


def roll(a, shift, axis=None):
    """Shift the elements of ``a`` cyclically by ``shift`` along ``axis``.

    >>> roll(asarray([1, 2, 3]), 1)
    Array([3, 1, 2], dtype=int32)
    """
    arr, = _ensure_arraylike("roll", a)
    if axis is None:
        return reshape(roll(ravel(arr), shift, 0), _aval(arr).shape)
    axes = _canonicalize_axes(_index_tuple(axis), _aval(arr).ndim)
    try:
        shifts = _index_tuple(shift)
    except TypeError:  # a traced (or non-integer) shift
        return _roll_dynamic(arr, asarray(shift), axes)
    return _roll_static(arr, shifts, axes)


# --------------------------------------------------------------------------
# Padding
# --------------------------------------------------------------------------

def _pad_pairs(values, nd: int, name: str):
    """Broadcast ``pad_width``-style ``values`` to ``((before, after),) * nd``."""
    try:
        vals = np.asarray(values)
    except ValueError as e:
        if "inhomogeneous" in str(e):
            raise TypeError(f"`{name}` entries must be the same shape: {values}") from e
        raise
    if vals.shape == (nd, 2):
        return tuple((v[0], v[1]) for v in vals)
    if vals.shape in ((1, 2), (2,)):
        v = vals.reshape(2)
        return ((v[0], v[1]),) * nd
    if vals.shape in ((1,), ()):
        v = vals.reshape(())[()]
        return ((v, v),) * nd
    raise ValueError(f"jnp.pad: {name} with nd={nd} has unsupported shape {vals.shape}. "
                     f"Valid shapes are ({nd}, 2), (1, 2), (2,), (1,), or ().")


def _pad_constant(array, pad_width, constant_values):
    aval = _aval(array)
    cv = _convert_element_type(asarray(constant_values), aval.dtype, aval.weak_type)
    cv_shape = _aval(cv).shape
    if not cv_shape or cv_shape == (1,):
        return lax.pad(array, lax.reshape(cv, ()), [(lo, hi, 0) for lo, hi in pad_width])
    if len(cv_shape) == 1 and cv_shape[-1] != 2:
        raise ValueError("jnp.pad: constant_values has unsupported shape "
                         f"{cv_shape}. If the shape is 1D or 2D, the last dimension "
                         "must be of size 1 or 2.")
    cv = broadcast_to(cv, (aval.ndim, 2))
    for i, (lo, hi) in enumerate(pad_width):
        for j, width in enumerate((lo, hi)):
            if width:
                config = [(0, 0, 0)] * aval.ndim
                config[i] = (width, 0, 0) if j == 0 else (0, width, 0)
                value = lax.reshape(_slice_axis(_slice_axis(cv, i, i + 1, 0), j, j + 1, 1), ())
                array = lax.pad(array, value, config)
    return array


def _check_no_padding(widths, mode: str):
    if widths[0] > 0 or widths[1] > 0:
        raise ValueError(f"Cannot apply '{mode}' padding to empty axis")


def _pad_wrap(array, pad_width):
    for i, (lo, hi) in enumerate(pad_width):
        n = _aval(array).shape[i]
        if n == 0:
            _check_no_padding((lo, hi), "wrap")
            continue
        left_reps, left_rem = divmod(lo, n)
        right_reps, right_rem = divmod(hi, n)
        parts = [_slice_axis(array, n - left_rem, n, i)] if left_rem else []
        parts += [array] * (left_reps + right_reps + 1)
        parts += [_slice_axis(array, 0, right_rem, i)] if right_rem else []
        array = lax.concatenate(parts, i)
    return array


def _pad_edge(array, pad_width):
    for i, (lo, hi) in enumerate(pad_width):
        n = _aval(array).shape[i]
        if n == 0:
            _check_no_padding((lo, hi), "edge")
            continue
        before = repeat(_slice_axis(array, 0, 1, i), lo, axis=i)
        after = repeat(_slice_axis(array, n - 1, n, i), hi, axis=i)
        array = lax.concatenate([before, array, after], i)
    return array


def _reflect_side(array, padding: int, axis: int, mode: str, odd: bool, before: bool,
                  n: int):
    """Pad one side of one axis by mirroring (``reflect`` skips the edge, ``symmetric`` not).

    ``n`` is the axis's size *before* any padding: each mirrored chunk is at
    most that long, even after the other side has been padded.
    """
    offset = 1 if (mode == "reflect" and n > 1) else 0

    def edge_of(x):
        size = _aval(x).shape[axis]
        return _slice_axis(x, 0, 1, axis) if before else _slice_axis(x, size - 1, size, axis)

    edge = edge_of(array)
    while padding > 0:
        cur = min(padding, n - offset)
        padding -= cur
        size = _aval(array).shape[axis]
        start = offset if before else size - cur - offset
        x = flip(_slice_axis(array, start, start + cur, axis), axis)
        if odd:
            x = lax.sub(lax.mul(_convert_element_type(2, _aval(x).dtype), edge), x)
            if n > 1:
                edge = edge_of(x)
        array = lax.concatenate([x, array] if before else [array, x], axis)
    return array


def _pad_symmetric_or_reflect(array, pad_width, mode: str, reflect_type: str):
    for i, (lo, hi) in enumerate(pad_width):
        if _aval(array).shape[i] == 0:
            _check_no_padding((lo, hi), mode)
            continue
        odd = reflect_type == "odd"
        n = _aval(array).shape[i]
        array = _reflect_side(array, lo, i, mode, odd, before=True, n=n)
        array = _reflect_side(array, hi, i, mode, odd, before=False, n=n)
    return array


def _pad_linear_ramp(array, pad_width, end_values):
    from minijax.numpy.creation import linspace
    aval = _aval(array)
    for axis, (lo, hi) in enumerate(pad_width):
        n = _aval(array).shape[axis]
        ramps = []
        for width, end, edge_at in ((lo, end_values[axis][0], 0),
                                    (hi, end_values[axis][1], n - 1)):
            edge = lax.squeeze(_slice_axis(array, edge_at, edge_at + 1, axis), (axis,))
            ramp = linspace(end, edge, width, endpoint=False, dtype=aval.dtype, axis=axis)
            ramps.append(_convert_element_type(ramp, aval.dtype, aval.weak_type))
        array = lax.concatenate([ramps[0], array, flip(ramps[1], axis)], axis)
    return array


def _pad_stats(array, pad_width, stat_length, mode: str):
    """Pad with a statistic (max, min, mean, median) of the whole axis or its ends."""
    from minijax.numpy import reductions, ufuncs
    stat_func = {"maximum": reductions.max, "minimum": reductions.min,
                 "mean": reductions.mean, "median": reductions.median}[mode]
    aval = _aval(array)
    for i, (lo, hi) in enumerate(pad_width):
        if stat_length is None:
            stat_before = stat_after = stat_func(array, axis=i, keepdims=True)
        else:
            n = _aval(array).shape[i]
            len_before, len_after = (int(v) for v in stat_length[i])
            if len_before == 0 or len_after == 0:
                raise ValueError("stat_length of 0 yields no value for padding")
            len_before, len_after = min(len_before, n), min(len_after, n)
            stat_before = stat_func(_slice_axis(array, 0, len_before, i), axis=i,
                                    keepdims=True)
            stat_after = stat_func(_slice_axis(array, n - len_after, n, i), axis=i,
                                   keepdims=True)
        stats = [stat_before, stat_after]
        if dtypes.is_int(aval.dtype):
            stats = [ufuncs.round(x) for x in stats]
        before, after = (repeat(_convert_element_type(x, aval.dtype, aval.weak_type),
                                width, axis=i) for x, width in zip(stats, (lo, hi)))
        array = lax.concatenate([before, array, after], i)
    return array


_PAD_KWARGS = {
    "constant": ["constant_values"], "edge": [], "wrap": [], "empty": [],
    "reflect": ["reflect_type"], "symmetric": ["reflect_type"],
    "linear_ramp": ["end_values"], "maximum": ["stat_length"], "mean": ["stat_length"],
    "median": ["stat_length"], "minimum": ["stat_length"],
}


def _pad_with_function(array, pad_width, func, kwargs):
    """``pad`` with a callable ``mode``: zero-pad, then let ``func`` rewrite every lane."""
    import importlib
    apply_along_axis = importlib.import_module("minijax.numpy").apply_along_axis  # chapter 04's
    pad_width = tuple((int(lo), int(hi)) for lo, hi in pad_width)
    padded = _pad_constant(array, pad_width, 0)
    for axis in range(_aval(padded).ndim):
        padded = apply_along_axis(func, axis, padded, pad_width[axis], axis, kwargs)
    return padded


@jnp_jit("_pad", static_argnames=("pad_width", "mode", "stat_length", "end_values",
                                  "reflect_type"))
def pad(array, pad_width, mode="constant", **kwargs):
    """Pad ``array``: ``pad_width`` is ``n``, ``(before, after)`` or one pair per axis.

    Modes ``'constant'`` (with ``constant_values``), ``'edge'``, ``'wrap'``,
    ``'reflect'``, ``'symmetric'`` (with ``reflect_type``), ``'linear_ramp'``
    (with ``end_values``), ``'maximum'``, ``'minimum'``, ``'mean'``,
    ``'median'`` (with ``stat_length``) and ``'empty'``; or a callable
    ``mode(row, (before, after), axis, kwargs)``, which gets each 1-D lane of
    the zero-padded array in turn (axis by axis, via ``apply_along_axis``,
    which chapter 04 registers) and returns it filled in.

    >>> pad(asarray([1, 2]), 1)
    Array([0, 1, 2, 0], dtype=int32)
    """
    array, = _ensure_arraylike("pad", array)
    nd = _aval(array).ndim
    pad_width = _pad_pairs(pad_width, nd, "pad_width")
    if pad_width and not all(isinstance(p, (int, np.integer)) for pair in pad_width
                             for p in pair):
        raise TypeError("`pad_width` must be of integral type.")
    if callable(mode):
        return _pad_with_function(array, pad_width, mode, kwargs)
    if mode not in _PAD_KWARGS:
        raise NotImplementedError(f"Unimplemented padding mode '{mode}' for np.pad.")
    unsupported = set(kwargs) - set(_PAD_KWARGS[mode])
    if unsupported:
        raise ValueError(f"unsupported keyword arguments for mode '{mode}': {unsupported}")
    if nd == 0:
        return array
    pad_width = tuple((int(lo), int(hi)) for lo, hi in pad_width)
    if any(p < 0 for pair in pad_width for p in pair):
        raise ValueError("index can't contain negative values")
    if mode == "constant":
        return _pad_constant(array, pad_width, kwargs.get("constant_values", 0))
    if mode == "empty":
        return _pad_constant(array, pad_width, 0)
    if mode == "wrap":
        return _pad_wrap(array, pad_width)
    if mode == "edge":
        return _pad_edge(array, pad_width)
    if mode in ("reflect", "symmetric"):
        return _pad_symmetric_or_reflect(array, pad_width, mode,
                                         kwargs.get("reflect_type", "even"))
    if mode == "linear_ramp":
        end_values = _pad_pairs(kwargs.get("end_values", 0), nd, "end_values")
        return _pad_linear_ramp(array, pad_width, end_values)
    stat_length = kwargs.get("stat_length")
    if stat_length is not None:
        stat_length = _pad_pairs(stat_length, nd, "stat_length")
    return _pad_stats(array, pad_width, stat_length, mode)


# --------------------------------------------------------------------------
# Triangles and diagonals
# --------------------------------------------------------------------------

def _triangle(name: str, m, k: int, lower: bool):
    m, = _ensure_arraylike(name, m)
    aval = _aval(m)
    if aval.ndim < 2:
        raise ValueError(f"Argument to jax.numpy.{name} must be at least 2D")
    from minijax.numpy.creation import tri, zeros_like
    n_rows, n_cols = aval.shape[-2:]
    mask = tri(n_rows, n_cols, k=k if lower else k - 1, dtype=bool)
    which = lax.broadcast(mask, aval.shape[:-2])
    zero = zeros_like(m)
    return lax.select(which, m, zero) if lower else lax.select(which, zero, m)


@jnp_jit("tril", static_argnames=("k",))
def tril(m, k: int = 0):
    """``m`` with the elements above the ``k``-th diagonal set to zero."""
    return _triangle("tril", m, k, lower=True)


@jnp_jit("triu", static_argnames=("k",))
def triu(m, k: int = 0):
    """``m`` with the elements below the ``k``-th diagonal set to zero."""
    return _triangle("triu", m, k, lower=False)


@jnp_jit("diagonal", static_argnames=("offset", "axis1", "axis2"))
def diagonal(a, offset: int = 0, axis1: int = 0, axis2: int = 1):
    """The ``offset``-th diagonal of the ``(axis1, axis2)`` planes, as the last axis.

    Computed without a gather: slice the square block holding the diagonal,
    flatten its last two axes, and take every ``(d + 1)``-th element.
    """
    a, = _ensure_arraylike("diagonal", a)
    aval = _aval(a)
    if aval.ndim < 2:
        raise ValueError("diagonal requires an array of at least two dimensions.")
    offset = _concrete_index(offset)
    a = moveaxis(a, (axis1, axis2), (-2, -1))
    n_rows, n_cols = aval.shape[axis1], aval.shape[axis2]
    d = max(0, min(n_rows + min(offset, 0), n_cols - max(offset, 0)))
    row0, col0 = (max(-offset, 0), max(offset, 0)) if d else (0, 0)
    nd = aval.ndim
    block = _slice_axis(_slice_axis(a, row0, row0 + d, nd - 2), col0, col0 + d, nd - 1)
    lead = _aval(block).shape[:-2]
    flat = lax.reshape(block, lead + (d * d,))
    out = _slice_axis(flat, 0, d * d, nd - 2, stride=d + 1) if d else flat
    return _strip_weak_type(out)


@jnp_jit("_diag", static_argnames=("k",))
def diag(v, k: int = 0):
    """The ``k``-th diagonal of a 2-d ``v``, or a 2-d array with 1-d ``v`` on that diagonal."""
    v, = _ensure_arraylike("diag", v)
    k = operator.index(k)
    aval = _aval(v)
    if aval.ndim == 2:
        return diagonal(v, offset=k)
    if aval.ndim != 1:
        raise ValueError("diag input must be 1d or 2d")
    from minijax.numpy.creation import eye
    zero = _convert_element_type(0, aval.dtype, aval.weak_type)
    n = aval.shape[0] + abs(k)
    v = lax.pad(v, zero, ((max(0, -k), max(0, k), 0),))
    column = lax.broadcast_in_dim(v, (n, n), (0,))
    return lax.select(eye(n, k=k, dtype=bool), column, lax.full((n, n), zero))
