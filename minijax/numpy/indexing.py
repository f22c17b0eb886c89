"""Chapter 00 — NumPy indexing: ``x[idx]``, ``x.at[idx].set(y)``, ``jnp.take``.

NumPy's indexing language (integers, slices, ``None``, ``...``, integer and
boolean arrays, and tuples of these) is translated into the lax primitives of
:mod:`minijax.lax.slicing`, making the same choices as ``jax.numpy`` so that
the same program gives the same jaxpr:

1. **static slice**: only static integers and slices -> ``slice`` (then ``rev``
   for negative steps, ``squeeze`` for integers, ``expand_dims`` for ``None``).
   ``x[1]`` on ``f32[2,3]`` is ``slice`` + ``squeeze[dimensions=(0,)]``;
2. **dynamic slice**: also scalar *array* indices (a traced ``i`` in ``x[i]``)
   and out-of-bound static integers -> ``dynamic_slice``, whose start is
   clamped into range (so ``x[5]`` on a length-2 axis reads the last row);
3. **gather**: everything else (index arrays, strided slices mixed with
   arrays, ``mode="fill"``). Reads are clamped by default (mode
   ``PROMISE_IN_BOUNDS``): ``jnp.arange(5)[jnp.array([7])]`` is ``[4]``.

Updates (``x.at[idx].add(y)``) always use the gather plan transposed into a
``scatter``; their default mode is ``FILL_OR_DROP``, so out-of-bound updates
are dropped. Negative indices count from the end, as in NumPy.

Boolean masks are turned into integer arrays with ``np.where``, which needs
their *value*: a traced mask raises :class:`NonConcreteBooleanIndexError`.
"""
from __future__ import annotations

import enum
import operator
import warnings
from collections.abc import Sequence
from typing import Any, Callable, NamedTuple

import numpy as np

from minijax import dtypes, lax
from minijax.abstract_arrays import get_aval
from minijax.array import Array
from minijax.lax.base import canonicalize_axis
from minijax.lax.slicing import (GatherDimensionNumbers, GatherScatterMode,
                                 ScatterDimensionNumbers)
from minijax.numpy.creation import asarray
from minijax.numpy.util import check_arraylike, promote_dtypes
from minijax.numpy.util import is_traced as _is_traced
from minijax.numpy.util import jnp_jit

__all__ = ["_getitem", "_IndexUpdateHelper", "_IndexUpdateRef", "take", "take_along_axis"]

_INDEX_DTYPE = np.dtype(np.int32)  # JAX's int_dtype_for_shape with x64 disabled


class NonConcreteBooleanIndexError(IndexError):
    """A boolean mask index whose value is unknown (traced): its result shape would be too."""

    def __init__(self, aval):
        super().__init__(
            f"Array boolean indices must be concrete; got {aval.str_short()}\n\n"
            "See https://docs.jax.dev/en/latest/errors.html"
            "#jax.errors.NonConcreteBooleanIndexError")


# =============================================================================
# Small helpers
# =============================================================================
def _concrete_value(x):
    """The NumPy value of ``x`` if it is known now (arrays, concrete tracers), else None."""
    if _is_traced(x):
        value = x.to_concrete_value() if hasattr(x, "to_concrete_value") else None
        return None if value is None else np.asarray(value)
    return np.asarray(x)


def _is_concrete(x) -> bool:
    return not _is_traced(x) or _concrete_value(x) is not None


def _shape(x) -> tuple[int, ...]:
    return get_aval(x).shape if hasattr(x, "aval") else np.shape(x)


def _ndim(x) -> int:
    return len(_shape(x))


def _broadcast_to(x, shape):
    """``jnp.broadcast_to``: leading axes added and size-1 axes stretched, or JAX's error."""
    aval = get_aval(x)
    if aval.shape == tuple(shape):
        return x
    lead = len(shape) - aval.ndim
    if lead < 0:
        raise ValueError("Cannot broadcast to shape with fewer dimensions: "
                         f"arr_shape={aval.shape} shape={tuple(shape)}")
    if not all(d in (1, s) for d, s in zip(aval.shape, shape[lead:])):
        wanted = aval.update(shape=shape, weak_type=False).str_short(short_dtypes=False)
        raise ValueError(f"Incompatible types for broadcasting: input type="
                         f"{aval.strip_weak_type().str_short(short_dtypes=False)} and "
                         f"requested type={wanted}")
    return lax.broadcast_in_dim(x, tuple(shape), tuple(range(lead, len(shape))))


def _broadcast_arrays(*args):
    shapes = [_shape(a) for a in args]
    if all(s == shapes[0] for s in shapes):
        return list(args)
    result_shape = lax.broadcast_shapes(*shapes)
    return [_broadcast_to(a, result_shape) for a in args]


_SCALAR_TYPES = ((np.bool_, bool), (np.integer, int), (np.floating, float),
                 (np.complexfloating, complex))


def _const_like(example, value):
    """``value`` with ``example``'s type (JAX's ``lax._const``).

    A Python scalar for a Python scalar or a weakly typed 0-d array (so that
    ``i + size`` stays weak, as in JAX), else a NumPy constant of its dtype.
    """
    if dtypes.is_python_scalar(example):
        return type(example)(value)
    aval = get_aval(example)
    if aval.weak_type and aval.ndim == 0:
        return next(t for kind, t in _SCALAR_TYPES if np.issubdtype(aval.dtype, kind))(value)
    return np.array(value, aval.dtype)


def _to_index_dtype(i):
    """``i`` cast to int32; a known value is cast now, leaving no equation (JAX folds it)."""
    if not _is_traced(i):
        i = np.asarray(i)
    return lax.convert_element_type(i, _INDEX_DTYPE)


def _normalize_index(index, axis_size: int):
    """Map negative indices into ``[0, axis_size)``: ``select(i < 0, i + size, i)``."""
    if np.issubdtype(dtypes.dtype(index), np.unsignedinteger):
        return index
    size = _const_like(index, axis_size)
    if isinstance(index, (int, np.integer)):
        return lax.add(index, size) if index < 0 else index
    return lax.select(index < 0, lax.add(index, size), index)


# =============================================================================
# Parsing an index against a shape
# =============================================================================
class _Kind(enum.Enum):
    NONE = "none"
    SLICE = "slice"
    ELLIPSIS = "ellipsis"
    INTEGER = "integer"
    BOOLEAN = "boolean"
    ARRAY = "array"


class _Parsed(NamedTuple):
    """One entry of an index, with the axes of the indexed array it consumes."""
    index: Any
    kind: _Kind
    axes: tuple[int, ...]


def _is_integer_index(idx) -> bool:
    return isinstance(idx, (int, np.integer)) and not isinstance(idx, (bool, np.bool_))


def _is_scalar(x) -> bool:
    return np.isscalar(x) or (isinstance(x, (np.ndarray, Array)) and np.ndim(x) == 0)


def _is_boolean_index(idx) -> bool:
    try:
        if get_aval(idx).dtype == np.bool_:
            return True
    except TypeError:
        pass
    return (isinstance(idx, list) and bool(idx)
            and all(_is_scalar(e) and np.asarray(e).dtype == np.bool_ for e in idx))


def _leaves(seq):
    for e in seq:
        if isinstance(e, (list, tuple)):
            yield from _leaves(e)
        else:
            yield e


def _sequence_dtype(seq) -> np.dtype:
    """The dtype ``jnp.asarray(seq)`` would have, without building it."""
    leaves = list(_leaves(seq))
    return dtypes.result_type(*leaves) if leaves else dtypes.default_float_dtype


def _index_kind(idx) -> _Kind:
    if idx is None:
        return _Kind.NONE
    if idx is Ellipsis:
        return _Kind.ELLIPSIS
    if isinstance(idx, slice):
        return _Kind.SLICE
    if _is_integer_index(idx):
        return _Kind.INTEGER
    if _is_boolean_index(idx):
        return _Kind.BOOLEAN
    if isinstance(idx, (np.ndarray, Array)) or _is_traced(idx):
        if np.issubdtype(idx.dtype, np.integer):
            return _Kind.ARRAY
        raise TypeError("Indexer must have integer or boolean type, got indexer with "
                        f"type {idx.dtype}")
    if isinstance(idx, str):
        raise TypeError(f"JAX does not support string indexing; got {idx=}")
    if isinstance(idx, Sequence):
        if not idx:  # an empty list would default to float
            return _Kind.ARRAY
        dt = _sequence_dtype(idx)
        if dt == np.bool_:
            return _Kind.BOOLEAN
        if np.issubdtype(dt, np.integer):
            return _Kind.ARRAY
        raise TypeError(f"Indexer must have integer or boolean type, got indexer with type {dt}")
    if isinstance(idx, (float, complex, np.generic)):
        raise TypeError("Indexer must have integer or boolean type, got indexer with type "
                        f"{np.dtype(type(idx))}")
    raise IndexError("only integers, slices (`:`), ellipsis (`...`), newaxis (`None`) and "
                     f"integer or boolean arrays are valid indices. Got {idx}")


def _should_unpack_list_index(x) -> bool:
    return ((isinstance(x, (np.ndarray, Array)) and np.ndim(x) != 0)
            or isinstance(x, (Sequence, slice)) or x is Ellipsis or x is None)


def _as_index_tuple(idx) -> tuple:
    """``x[i]`` means ``x[(i,)]``; a list is *not* a tuple of indices (JAX's TypeError)."""
    if isinstance(idx, tuple):
        return idx
    if isinstance(idx, Sequence) and not isinstance(idx, str):
        fix = "tuple(seq)" if any(_should_unpack_list_index(i) for i in idx) else "array(seq)"
        raise TypeError("Using a non-tuple sequence for multidimensional indexing is not "
                        f"allowed; use `arr[{fix}]` instead of `arr[seq]`. See "
                        "https://github.com/jax-ml/jax/issues/4564 for more information.")
    return (idx,)


def _parse_indices(idx, shape) -> list[_Parsed]:
    """Classify each entry of ``idx`` and find the axes of ``shape`` it consumes."""
    indices = _as_index_tuple(idx)
    kinds = [_index_kind(i) for i in indices]
    consumed = [0 if k in (_Kind.NONE, _Kind.ELLIPSIS) else
                _ndim(i) if k == _Kind.BOOLEAN else 1 for i, k in zip(indices, kinds)]
    ellipses = [n for n, k in enumerate(kinds) if k == _Kind.ELLIPSIS]
    if len(ellipses) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    total = sum(consumed)
    if total > len(shape):
        raise IndexError(f"Too many indices: array is {len(shape)}-dimensional, but "
                         f"{total} were indexed")
    if ellipses:
        consumed[ellipses[0]] = len(shape) - total
    parsed, axis = [], 0
    for i, k, n in zip(indices, kinds, consumed):
        parsed.append(_Parsed(i, k, tuple(range(axis, axis + n))))
        axis += n
    return parsed


def _expand_ellipses(parsed, shape) -> list[_Parsed]:
    """Replace ``...`` (and the implicit trailing ``...``) by one ``:`` per axis."""
    out = []
    for p in parsed:
        if p.kind == _Kind.ELLIPSIS:
            out += [_Parsed(slice(None), _Kind.SLICE, (a,)) for a in p.axes]
        else:
            out.append(p)
    used = sum(len(p.axes) for p in parsed)
    out += [_Parsed(slice(None), _Kind.SLICE, (a,)) for a in range(used, len(shape))]
    return out


def _validate_slices(parsed) -> None:
    for position, p in enumerate(parsed):
        if p.kind == _Kind.SLICE and not all(
                e is None or _is_concrete(e) for e in (p.index.start, p.index.stop,
                                                       p.index.step)):
            raise IndexError(f"Slice entries must be static integers. Got {p.index} at "
                             f"position {position}")


def _expand_bool_indices(parsed, shape) -> list[_Parsed]:
    """Boolean masks -> the integer arrays of ``np.where(mask)`` (scalar bools stay)."""
    out = []
    for position, p in enumerate(parsed):
        if p.kind != _Kind.BOOLEAN:
            out.append(p)
            continue
        mask = _concrete_value(p.index)
        if mask is None:
            raise NonConcreteBooleanIndexError(get_aval(p.index))
        if mask.ndim == 0:
            out.append(_Parsed(bool(mask), _Kind.BOOLEAN, ()))
            continue
        expected = [shape[a] for a in p.axes]
        if not all(s in (0, e) for s, e in zip(mask.shape, expected)):
            raise IndexError("boolean index did not match shape of indexed array in index "
                             f"{position}: got {mask.shape}, expected {expected}")
        out += [_Parsed(i, _Kind.ARRAY, (a,)) for i, a in zip(np.where(mask), p.axes)]
    return out


# =============================================================================
# Plan 1: static slice
# =============================================================================
class _StaticSlice(NamedTuple):
    start_indices: list
    limit_indices: list
    strides: list | None
    rev_axes: list
    squeeze_axes: list
    newaxis_dims: list


def _check_static_in_bounds(parsed, shape, normalize: bool) -> None:
    for p in parsed:
        if p.kind == _Kind.INTEGER:
            i, (axis,) = operator.index(p.index), p.axes
            normed = i + shape[axis] if normalize and i < 0 else i
            if not 0 <= normed < shape[axis]:
                raise IndexError(f"index {i} out of bounds for axis {axis} with size "
                                 f"{shape[axis]} (normalize_indices={normalize})")


def _newaxis_position(starts, squeezed, newaxes) -> int:
    """Where a ``None`` goes in the result: after the kept axes seen so far."""
    return len(starts) - len(squeezed) + len(newaxes)


def _to_static_slice(parsed, shape, *, mode, normalize) -> _StaticSlice:
    """Plan ``x[idx]`` as one ``slice``; raise if the index needs more than that."""
    mode = GatherScatterMode.from_any(GatherScatterMode.PROMISE_IN_BOUNDS if mode is None
                                      else mode)
    if mode not in (GatherScatterMode.PROMISE_IN_BOUNDS, GatherScatterMode.CLIP):
        raise ValueError("static_slice requires mode='promise_in_bounds' or mode='clip'")
    if mode == GatherScatterMode.PROMISE_IN_BOUNDS:
        _check_static_in_bounds(parsed, shape, normalize)
    _validate_slices(parsed)
    for position, p in enumerate(parsed):
        if p.kind in (_Kind.ARRAY, _Kind.BOOLEAN):
            raise TypeError("static_slice: indices must be static scalars or slices. Got "
                            f"index of type {type(p.index)} at position {position}")
    starts, limits, strides, rev, squeeze, newaxes = [], [], [], [], [], []
    for p in _expand_ellipses(parsed, shape):
        if p.kind == _Kind.NONE:
            newaxes.append(_newaxis_position(starts, squeeze, newaxes))
            continue
        axis, = p.axes
        size = shape[axis]
        if p.kind == _Kind.INTEGER:
            if size == 0:
                raise IndexError(f"index is out of bounds for axis {axis} with size 0")
            i = int(p.index)
            i = i + size if normalize and i < 0 else i
            i = min(max(i, 0), size - 1)
            starts.append(i), limits.append(i + 1), strides.append(1), squeeze.append(axis)
        else:
            start, stop, step = p.index.indices(size)
            if step < 0:  # take the same elements in increasing order, then reverse
                first = min(size, stop + 1 + abs(start - stop - 1) % abs(step))
                starts.append(first), limits.append(max(first, start + 1))
                strides.append(-step), rev.append(axis)
            else:
                starts.append(start), limits.append(max(start, stop)), strides.append(step)
    return _StaticSlice(starts, limits, None if all(s == 1 for s in strides) else strides,
                        rev, squeeze, newaxes)


def _apply_static_slice(arr, plan: _StaticSlice):
    shape = get_aval(arr).shape
    trivial = (plan.strides is None and len(plan.start_indices) == len(shape) and all(
        (s, l) == (0, d) for s, l, d in zip(plan.start_indices, plan.limit_indices, shape)))
    result = arr if trivial else lax.slice(arr, plan.start_indices, plan.limit_indices,
                                           plan.strides)
    return _finish_slice(result, plan.rev_axes, plan.squeeze_axes, plan.newaxis_dims)


def _finish_slice(result, rev_axes, squeeze_axes, newaxis_dims):
    if rev_axes:
        result = lax.rev(result, rev_axes)
    if squeeze_axes:
        result = lax.squeeze(result, squeeze_axes)
    if newaxis_dims:
        result = lax.expand_dims(result, newaxis_dims)
    return result


# =============================================================================
# Plan 2: dynamic slice
# =============================================================================
class _DynamicSlice(NamedTuple):
    start_indices: list
    slice_sizes: list
    rev_axes: list
    squeeze_axes: list
    newaxis_dims: list
    trivial: bool


def _to_dynamic_slice(parsed, shape, *, mode) -> _DynamicSlice:
    """Plan ``x[idx]`` as one ``dynamic_slice``; raise if the index needs a gather."""
    if mode is not None and GatherScatterMode.from_any(mode) not in (
            GatherScatterMode.PROMISE_IN_BOUNDS, GatherScatterMode.CLIP):
        raise ValueError("dynamic_slice requires mode='promise_in_bounds' or mode='clip'")
    for position, p in enumerate(parsed):
        if p.kind == _Kind.SLICE and p.index.step is not None and p.index.step not in (-1, 1):
            raise TypeError(f"dynamic_slice: only unit steps supported in slice. Got "
                            f"{p.index} at position {position}")
        if p.kind == _Kind.ARRAY and (isinstance(p.index, Sequence) or _shape(p.index) != ()):
            raise TypeError("dynamic_slice: only scalar indices allowed. Got index of type "
                            f"{type(p.index)} at position {position}")
        if p.kind == _Kind.BOOLEAN:
            raise TypeError("dynamic_slice: indices must be scalars or slices. Got index of "
                            f"type {type(p.index)} at position {position}")
    starts, sizes, rev, squeeze, newaxes = [], [], [], [], []
    trivial = True
    for p in _expand_ellipses(parsed, shape):
        if p.kind == _Kind.NONE:
            newaxes.append(_newaxis_position(starts, squeeze, newaxes))
            continue
        axis, = p.axes
        size = shape[axis]
        if p.kind in (_Kind.INTEGER, _Kind.ARRAY):
            trivial = False
            if size == 0:
                raise IndexError(f"index is out of bounds for axis {axis} with size 0")
            starts.append(asarray(p.index)), sizes.append(1), squeeze.append(axis)
            continue
        trivial = trivial and p.index == slice(None)
        start, stop, step = p.index.indices(size)
        if step < 0:
            first = stop + 1
            starts.append(first), sizes.append(max(0, start + 1 - first)), rev.append(axis)
        else:
            starts.append(start), sizes.append(max(0, stop - start))
    if len(starts) > 1:  # dynamic_slice wants one index dtype
        starts = [_to_index_dtype(i) for i in starts]
    return _DynamicSlice(starts, sizes, rev, squeeze, newaxes, trivial)


def _apply_dynamic_slice(arr, plan: _DynamicSlice, normalize: bool):
    result = arr if plan.trivial else lax.dynamic_slice(
        arr, plan.start_indices, plan.slice_sizes, allow_negative_indices=normalize)
    return _finish_slice(result, plan.rev_axes, plan.squeeze_axes, plan.newaxis_dims)


# =============================================================================
# Plan 3: gather (and, transposed, scatter)
# =============================================================================
class _GatherPlan(NamedTuple):
    slice_shape: list          # shape of x[idx] (before newaxis/scalar-bool bookkeeping)
    gather_slice_shape: list   # slice_sizes for lax.gather
    gather_indices: Any        # int32 array, index vector last
    dnums: GatherDimensionNumbers
    unique_indices: bool       # true when there are no advanced (array) indices
    indices_are_sorted: bool
    reversed_y_dims: list      # result dims of negative-step slices, to ``rev``
    newaxis_dims: list         # result dims created by ``None``
    scalar_bool_dims: list     # operand dims inserted for scalar boolean indices


def _expand_scalar_bool_indices(parsed, shape):
    """``x[True]`` is ``x[None][arange(1)]``: a size-1 axis indexed by an array."""
    new_shape, out, axis = list(shape), [], 0
    for n, p in enumerate(parsed):
        if p.kind == _Kind.BOOLEAN:
            new_shape.insert(n, 1)
            out.append(_Parsed(np.arange(int(p.index)), _Kind.ARRAY, (axis,)))
            axis += 1
        else:
            out.append(p._replace(axes=tuple(range(axis, axis + len(p.axes)))))
            axis += len(p.axes)
    return out, tuple(new_shape)


def _normalize_indices(parsed, shape) -> list[_Parsed]:
    out = []
    for p in parsed:
        if p.kind in (_Kind.INTEGER, _Kind.ARRAY):
            p = p._replace(index=_normalize_index(p.index, shape[p.axes[0]]))
        out.append(p)
    return out


def _canonicalize_slice(s: slice, size: int):
    """``(start, step, length)`` of ``x[s]`` along an axis of ``size``."""
    s = slice(*(None if e is None else operator.index(e) for e in (s.start, s.stop, s.step)))
    start, stop, step = s.indices(size)
    return start, step, len(range(start, stop, step))


def _to_gather(parsed, shape, normalize: bool) -> _GatherPlan:
    """Plan ``x[idx]`` as a single ``gather`` (XLA's most general read)."""
    _validate_slices(parsed)
    parsed = [p._replace(index=asarray(p.index)) if isinstance(p.index, Sequence) else p
              for p in parsed]
    # NumPy puts the advanced-index dims where the advanced indices are, if they
    # are adjacent, and first otherwise. Integers count as advanced here.
    positions = [n for n, p in enumerate(parsed) if p.kind in (_Kind.ARRAY, _Kind.INTEGER)]
    contiguous = bool(np.all(np.diff(positions) == 1))
    parsed = _expand_ellipses(parsed, shape)
    scalar_bool_dims = [n for n, p in enumerate(parsed) if p.kind == _Kind.BOOLEAN]
    parsed, shape = _expand_scalar_bool_indices(parsed, shape)
    if normalize:
        parsed = _normalize_indices(parsed, shape)

    advanced, idx_adv_axes, x_adv_axes = [], [], []
    if any(p.kind == _Kind.ARRAY and _ndim(p.index) > 0 for p in parsed):
        not_none = [(n, p) for n, p in enumerate(parsed) if p.kind != _Kind.NONE]
        for x_axis, (n, p) in enumerate(not_none):
            if p.kind in (_Kind.ARRAY, _Kind.INTEGER):
                advanced.append(asarray(p.index))
                idx_adv_axes.append(n)
                x_adv_axes.append(x_axis)

    x_axis = y_axis = collapsed_y_axis = 0
    offset_dims, collapsed_dims, start_index_map = [], [], []
    gather_indices, gather_indices_shape = [], []  # (array, first dim) pairs
    slice_shape, gather_slice_shape, newaxis_dims, reversed_y_dims = [], [], [], []
    for n, p in enumerate(parsed):
        if advanced and n == (idx_adv_axes[0] if contiguous else 0):
            arrays = _broadcast_arrays(*advanced)
            adv_shape = list(_shape(arrays[0]))
            first = len(gather_indices_shape)
            gather_indices += [(_to_index_dtype(a), first)
                               for a in arrays]
            gather_indices_shape += adv_shape
            start_index_map += x_adv_axes
            collapsed_dims += x_adv_axes
            slice_shape += adv_shape
            y_axis += len(adv_shape)
            collapsed_y_axis += len(adv_shape)
        if n in idx_adv_axes:
            x_axis += 1
            gather_slice_shape.append(1)
            continue
        if p.kind in (_Kind.INTEGER, _Kind.ARRAY) and _ndim(p.index) == 0:
            if shape[x_axis] == 0:
                raise IndexError(f"index is out of bounds for axis {x_axis} with size 0")
            gather_indices.append((_to_index_dtype(p.index),
                                   len(gather_indices_shape)))
            collapsed_dims.append(x_axis)
            gather_slice_shape.append(1)
            start_index_map.append(x_axis)
            x_axis += 1
        elif p.kind == _Kind.NONE:
            slice_shape.append(1)
            newaxis_dims.append(y_axis)
            y_axis += 1
        elif p.kind == _Kind.SLICE:
            start, step, length = _canonicalize_slice(p.index, shape[x_axis])
            slice_shape.append(length)
            if step == 1:  # a window: no index array needed unless it is partial
                if length != shape[x_axis]:
                    gather_indices.append((_to_index_dtype(start),
                                           len(gather_indices_shape)))
                    start_index_map.append(x_axis)
                gather_slice_shape.append(length)
                offset_dims.append(collapsed_y_axis)
            else:  # a strided slice becomes an index array start + step * iota
                indices = lax.add(np.array(start, _INDEX_DTYPE),
                                  lax.mul(np.array(step, _INDEX_DTYPE),
                                          lax.iota(_INDEX_DTYPE, length)))
                if step < 0:
                    reversed_y_dims.append(collapsed_y_axis)
                    indices = lax.rev(indices, dimensions=(0,))
                gather_slice_shape.append(1)
                gather_indices.append((indices, len(gather_indices_shape)))
                start_index_map.append(x_axis)
                gather_indices_shape.append(length)
                collapsed_dims.append(x_axis)
            collapsed_y_axis += 1
            y_axis += 1
            x_axis += 1
        else:
            raise IndexError(f"Got unsupported indexer at position {n}: {p!r}")

    if not gather_indices:
        indices_array = np.zeros((0,), _INDEX_DTYPE)
    elif len(gather_indices) == 1:
        g, _ = gather_indices[0]
        indices_array = lax.expand_dims(g, (_ndim(g),))
    else:
        last_dim = len(gather_indices_shape)
        gather_indices_shape.append(1)
        indices_array = lax.concatenate(
            [lax.broadcast_in_dim(g, gather_indices_shape, tuple(range(i, i + _ndim(g))))
             for g, i in gather_indices], last_dim)
    dnums = GatherDimensionNumbers(offset_dims=tuple(offset_dims),
                                   collapsed_slice_dims=tuple(sorted(collapsed_dims)),
                                   start_index_map=tuple(start_index_map))
    return _GatherPlan(slice_shape, gather_slice_shape, indices_array, dnums,
                       not advanced, not advanced, reversed_y_dims, newaxis_dims,
                       scalar_bool_dims)


def _check_fill_value(fill_value):
    if fill_value is None:
        return None
    value = _concrete_value(fill_value)
    if value is None:
        raise TypeError("Abstract tracer value encountered where concrete value is "
                        "expected: fill_value argument to indexed get()")
    if value.ndim != 0:
        raise ValueError("fill_value argument to indexed get() must be a scalar")
    return value.item() if isinstance(fill_value, (np.ndarray, Array)) else fill_value


def _gather(arr, parsed, *, indices_are_sorted, unique_indices, mode, fill_value,
            normalize):
    plan = _to_gather(parsed, get_aval(arr).shape, normalize)
    fill_value = _check_fill_value(fill_value)
    y = arr
    if plan.scalar_bool_dims:
        y = lax.expand_dims(y, plan.scalar_bool_dims)
    if 0 in plan.slice_shape:
        return lax.full_like(y, 0, shape=plan.slice_shape)
    if 0 not in _shape(plan.gather_indices):
        y = lax.gather(y, plan.gather_indices, plan.dnums, plan.gather_slice_shape,
                       unique_indices=unique_indices or plan.unique_indices,
                       indices_are_sorted=indices_are_sorted or plan.indices_are_sorted,
                       mode=mode, fill_value=fill_value)
    if plan.reversed_y_dims:
        y = lax.rev(y, plan.reversed_y_dims)
    return lax.expand_dims(y, plan.newaxis_dims)


# =============================================================================
# x[idx]
# =============================================================================
def _rewriting_take(arr, idx, *, indices_are_sorted: bool = False,
                    unique_indices: bool = False, mode=None, fill_value=None,
                    normalize_indices: bool = True):
    """``arr[idx]``: the cheapest of static slice, dynamic slice and gather that works.

    As in JAX, a plan that does not apply raises (TypeError, ValueError or
    IndexError) and the next, more general one is tried; the gather plan
    handles every valid index, so its errors are the user's.
    """
    shape = get_aval(arr).shape
    parsed = _parse_indices(idx, shape)
    try:
        plan = _to_static_slice(parsed, shape, mode=mode, normalize=normalize_indices)
    except (TypeError, ValueError, IndexError):
        pass
    else:
        return _apply_static_slice(arr, plan)
    try:
        plan = _to_dynamic_slice(parsed, shape, mode=mode)
    except (TypeError, ValueError, IndexError):
        pass
    else:
        return _apply_dynamic_slice(arr, plan, normalize_indices)
    return _gather(arr, _expand_bool_indices(parsed, shape),
                   indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
                   mode=mode, fill_value=fill_value, normalize=normalize_indices)


def _getitem(self, item):
    """``x[item]`` with NumPy's indexing rules (out-of-bound reads are clamped)."""
    return _rewriting_take(self, item)


# =============================================================================
# x.at[idx].set(y) and friends
# =============================================================================
def _safe_to_cast(value, dtype) -> bool:
    return dtypes.dtype(value) == dtype or dtypes.result_type(value, dtype) == dtype


def _scatter_update(x, idx, y, scatter_op: Callable, indices_are_sorted: bool,
                    unique_indices: bool, mode=None, normalize_indices: bool = True):
    """The value of ``x`` after ``x[idx] op= y``, computed with one scatter."""
    x = asarray(x)
    x_aval = get_aval(x)
    dtype, weak_type = x_aval.dtype, x_aval.weak_type
    if (isinstance(y, int) and np.issubdtype(dtype, np.integer)
            and np.iinfo(dtype).min <= y <= np.iinfo(dtype).max):
        y = asarray(y, dtype=dtype)
    else:
        y = asarray(y)
    parsed = _expand_bool_indices(_parse_indices(idx, x_aval.shape), x_aval.shape)
    if not _safe_to_cast(y, dtype):
        warnings.warn(
            "scatter inputs have incompatible types: cannot safely cast value from "
            f"dtype={get_aval(y).dtype} to dtype={dtype} with "
            "jax_numpy_dtype_promotion=standard. In future JAX releases this will result "
            "in an error.", FutureWarning)
    plan = _to_gather(parsed, x_aval.shape, normalize_indices)
    if 0 in plan.slice_shape:
        return x
    x, y = promote_dtypes(x, y)
    y = _broadcast_to(y, tuple(plan.slice_shape))
    y = lax.squeeze(y, plan.newaxis_dims)
    if plan.reversed_y_dims:
        y = lax.rev(y, plan.reversed_y_dims)
    if plan.scalar_bool_dims:
        x = lax.expand_dims(x, plan.scalar_bool_dims)
    dnums = ScatterDimensionNumbers(
        update_window_dims=plan.dnums.offset_dims,
        inserted_window_dims=plan.dnums.collapsed_slice_dims,
        scatter_dims_to_operand_dims=plan.dnums.start_index_map,
        operand_batching_dims=plan.dnums.operand_batching_dims,
        scatter_indices_batching_dims=plan.dnums.start_indices_batching_dims)
    out = scatter_op(x, plan.gather_indices, y, dnums,
                     indices_are_sorted=plan.indices_are_sorted or indices_are_sorted,
                     unique_indices=plan.unique_indices or unique_indices, mode=mode)
    if plan.scalar_bool_dims:
        out = lax.squeeze(out, plan.scalar_bool_dims)
    return lax._convert_element_type(out, dtype, weak_type)


class _IndexUpdateHelper:
    """The ``.at`` property: functional versions of in-place updates.

    ============================  ================================
    ``x = x.at[idx].set(y)``      ``x[idx] = y``
    ``x = x.at[idx].add(y)``      ``x[idx] += y``
    ``x = x.at[idx].subtract(y)`` ``x[idx] -= y``
    ``x = x.at[idx].multiply(y)`` ``x[idx] *= y``
    ``x = x.at[idx].divide(y)``   ``x[idx] /= y``
    ``x = x.at[idx].power(y)``    ``x[idx] **= y``
    ``x = x.at[idx].min(y)``      ``x[idx] = minimum(x[idx], y)``
    ``x = x.at[idx].max(y)``      ``x[idx] = maximum(x[idx], y)``
    ``x = x.at[idx].apply(f)``    ``f.at(x, idx)`` (a unary ufunc)
    ``x = x.at[idx].get()``       ``x = x[idx]``
    ============================  ================================

    ``x`` itself is never modified. Unlike NumPy, repeated indices apply every
    update (``add`` accumulates). ``mode`` chooses out-of-bound behaviour:
    updates default to ``"drop"`` (ignored), ``get`` to clamping; ``"clip"``
    clamps, ``"fill"`` (``get``) returns ``fill_value``.
    """
    __slots__ = ("array",)

    def __init__(self, array):
        self.array = array

    def __getitem__(self, index) -> "_IndexUpdateRef":
        return _IndexUpdateRef(self.array, index)

    def __repr__(self) -> str:
        return f"_IndexUpdateHelper({self.array!r})"


def _updater(scatter_name: str, doc: str):
    """An ``.at[idx].<method>(values, ...)`` that scatters with ``lax.<scatter_name>``."""
    def method(self, values, *, indices_are_sorted: bool = False,
               unique_indices: bool = False, mode=None, out_sharding=None,
               wrap_negative_indices: bool = True):
        return _scatter_update(self.array, self.index, values, getattr(lax, scatter_name),
                               indices_are_sorted, unique_indices, mode=mode,
                               normalize_indices=wrap_negative_indices)
    method.__doc__ = doc
    return method


class _IndexUpdateRef:
    """``x.at[idx]``: an array and an index, waiting for an update method."""
    __slots__ = ("array", "index")

    def __init__(self, array, index):
        self.array = array
        self.index = index

    def __repr__(self) -> str:
        return f"_IndexUpdateRef({self.array!r}, {self.index!r})"

    def get(self, *, indices_are_sorted: bool = False, unique_indices: bool = False,
            mode=None, fill_value=None, out_sharding=None,
            wrap_negative_indices: bool = True):
        """Equivalent to ``x[idx]``, with control over out-of-bound indices (``mode``)."""
        return _rewriting_take(self.array, self.index, indices_are_sorted=indices_are_sorted,
                               unique_indices=unique_indices, mode=mode,
                               fill_value=fill_value,
                               normalize_indices=wrap_negative_indices)

    set = _updater("scatter", "Pure equivalent of ``x[idx] = y``.")
    add = _updater("scatter_add", "Pure equivalent of ``x[idx] += y``.")
    subtract = _updater("scatter_sub", "Pure equivalent of ``x[idx] -= y``.")
    multiply = _updater("scatter_mul", "Pure equivalent of ``x[idx] *= y``.")
    mul = multiply
    min = _updater("scatter_min", "Pure equivalent of ``x[idx] = minimum(x[idx], y)``.")
    max = _updater("scatter_max", "Pure equivalent of ``x[idx] = maximum(x[idx], y)``.")

    def divide(self, values, *, indices_are_sorted: bool = False,
               unique_indices: bool = False, mode=None, out_sharding=None,
               wrap_negative_indices: bool = True):
        """Pure equivalent of ``x[idx] /= y`` (``x`` divided by a scattered product)."""
        return self.array / self._divisor(values, indices_are_sorted, unique_indices,
                                          mode, wrap_negative_indices)

    def power(self, values, *, indices_are_sorted: bool = False,
              unique_indices: bool = False, mode=None, out_sharding=None,
              wrap_negative_indices: bool = True):
        """Pure equivalent of ``x[idx] **= y`` (``x`` to a scattered product of powers)."""
        return self.array ** self._divisor(values, indices_are_sorted, unique_indices,
                                           mode, wrap_negative_indices)

    def _divisor(self, values, indices_are_sorted, unique_indices, mode, normalize):
        ones = lax.full_like(self.array, 1)
        return _scatter_update(ones, self.index, values, lax.scatter_mul,
                               indices_are_sorted, unique_indices, mode=mode,
                               normalize_indices=normalize)

    def apply(self, func: Callable, *, indices_are_sorted: bool = False,
              unique_indices: bool = False, mode=None,
              wrap_negative_indices: bool = True):
        """Pure equivalent of ``func.at(x, idx)`` for a unary ufunc ``func``.

        Repeated indices apply ``func`` repeatedly.
        """
        def scatter_apply(x, indices, y, dnums, **kwargs):
            return lax.scatter_apply(x, indices, func, dnums, update_shape=_shape(y),
                                     **kwargs)
        zero = lax._convert_element_type(0, get_aval(self.array).dtype, False)
        return _scatter_update(self.array, self.index, zero, scatter_apply,
                               indices_are_sorted, unique_indices, mode=mode,
                               normalize_indices=wrap_negative_indices)


# =============================================================================
# take, take_along_axis
# =============================================================================
@jnp_jit("_take", static_argnames=("axis", "mode", "unique_indices",
                                   "indices_are_sorted", "fill_value"))
def take(a, indices, axis: int | None = None, out=None, mode: str | None = None,
         unique_indices: bool = False, indices_are_sorted: bool = False, fill_value=None):
    """Take elements from an array (NumPy's ``take``, implemented with ``lax.gather``).

    Unlike NumPy, out-of-bound indices do not raise: the default ``mode="fill"``
    returns ``fill_value`` (NaN for floats) for them; ``"clip"`` clamps and
    ``"wrap"`` wraps. Negative indices count from the end. Without ``axis``
    the flattened array is indexed.

    >>> x = jnp.array([[1., 2., 3.], [4., 5., 6.]])
    >>> jnp.take(x, jnp.array([2, 0]), axis=1)
    Array([[3., 1.],
           [6., 4.]], dtype=float32)
    """
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.take is not supported.")
    check_arraylike("take", a, indices)
    a, indices = asarray(a), asarray(indices)
    a_shape = get_aval(a).shape
    if axis is None:
        a = lax.reshape(a, (int(np.prod(a_shape, dtype=np.int64)),))
        a_shape, axis_idx = get_aval(a).shape, 0
    else:
        axis_idx = canonicalize_axis(operator.index(axis), len(a_shape))
    size = a_shape[axis_idx]
    if mode is None or mode == "fill":
        gather_mode = GatherScatterMode.FILL_OR_DROP
        indices = lax.select(indices < 0, indices + size, indices)
    elif mode == "raise":
        raise NotImplementedError("The 'raise' mode to jnp.take is not supported.")
    elif mode == "wrap":
        indices = indices % _const_like(indices, size)
        gather_mode = GatherScatterMode.PROMISE_IN_BOUNDS
    elif mode == "clip":
        gather_mode = GatherScatterMode.CLIP
    else:
        raise ValueError(f"Invalid mode '{mode}' for np.take")

    idx_shape = _shape(indices)
    slice_sizes = list(a_shape)
    if size == 0:
        if int(np.prod(idx_shape)) != 0:
            raise IndexError("Cannot do a non-empty jnp.take() from an empty axis.")
        return a
    if int(np.prod(idx_shape)) == 0:
        return lax.full_like(a, 0, shape=slice_sizes[:axis_idx] + list(idx_shape)
                             + slice_sizes[axis_idx + 1:])
    slice_sizes[axis_idx] = 1
    index_dims = len(idx_shape)
    dnums = GatherDimensionNumbers(
        offset_dims=tuple(list(range(axis_idx))
                          + list(range(axis_idx + index_dims, len(a_shape) + index_dims - 1))),
        collapsed_slice_dims=(axis_idx,), start_index_map=(axis_idx,))
    return lax.gather(a, lax.expand_dims(indices, (index_dims,)), dimension_numbers=dnums,
                      slice_sizes=tuple(slice_sizes), mode=gather_mode,
                      unique_indices=unique_indices, indices_are_sorted=indices_are_sorted,
                      fill_value=fill_value)


@jnp_jit("take_along_axis", static_argnames=("axis", "mode", "fill_value",
                                             "wrap_negative_indices"))
def take_along_axis(arr, indices, axis: int | None = -1, mode=None, fill_value=None, *,
                    wrap_negative_indices: bool | None = None):
    """Take values from ``arr`` at ``indices`` along ``axis`` (``np.take_along_axis``).

    ``indices`` has ``arr``'s rank and broadcasts against it in the other
    dimensions. Out-of-bound indices give ``fill_value`` (NaN for floats) by
    default; ``mode="clip"`` clamps them.

    >>> x = jnp.array([[5, 3, 4], [2, 7, 6]])
    >>> jnp.take_along_axis(x, jnp.argsort(x, axis=1), axis=1)
    Array([[3, 4, 5],
           [2, 6, 7]], dtype=int32)
    """
    check_arraylike("take_along_axis", arr, indices)
    a, indices = asarray(arr), asarray(indices)
    index_dtype = get_aval(indices).dtype
    idx_shape = _shape(indices)
    if not np.issubdtype(index_dtype, np.integer):
        raise TypeError(f"take_along_axis indices must be of integer type, got {index_dtype}")
    if axis is None:
        if len(idx_shape) != 1:
            raise ValueError(f"take_along_axis indices must be 1D if axis=None, got shape "
                             f"{idx_shape}")
        a = lax.reshape(a, (int(np.prod(_shape(a), dtype=np.int64)),))
        axis = 0
    rank = _ndim(a)
    if rank != len(idx_shape):
        raise ValueError("indices and arr must have the same number of dimensions; "
                         f"{len(idx_shape)} vs. {rank}")
    axis_int = canonicalize_axis(axis, rank)
    if mode == "one_hot":
        raise NotImplementedError("take_along_axis(mode='one_hot') is not supported")

    a_shape = _shape(a)
    axis_size = a_shape[axis_int]
    arr_shape = tuple(1 if i == axis_int else d for i, d in enumerate(a_shape))
    out_shape = lax.broadcast_shapes(idx_shape, arr_shape)
    if axis_size == 0:
        return lax.full(out_shape, 0, get_aval(a).dtype)
    if wrap_negative_indices is None:  # JAX's legacy default
        wrap_negative_indices = mode != "promise_in_bounds"
    if wrap_negative_indices:
        indices = _normalize_index(lax.convert_element_type(indices, _INDEX_DTYPE), axis_size)

    # Dims where indices are 1 take the whole axis of ``a`` (offset dims); dims
    # where ``a`` is 1 are squeezed away; the rest are batch dims of the gather.
    index_dims = [i for i, d in enumerate(idx_shape) if i == axis_int or d != 1]
    gather_indices = lax.reshape(indices, tuple(np.array(out_shape)[index_dims]) + (1,))
    slice_sizes, offset_dims, operand_batching, indices_batching, squeeze = [], [], [], [], []
    new_i = j = 0
    for i in range(rank):
        if i == axis_int:
            slice_sizes.append(1)
            start_index_map = collapsed = (new_i,)
            new_i += 1
            j += 1
        elif idx_shape[i] == 1:
            offset_dims.append(i)
            slice_sizes.append(arr_shape[i])
            new_i += 1
        elif arr_shape[i] == 1:
            squeeze.append(i)
            j += 1
        else:
            slice_sizes.append(0 if arr_shape[i] == 0 else 1)
            operand_batching.append(new_i)
            indices_batching.append(j)
            new_i += 1
            j += 1
    a = lax.squeeze(a, squeeze)
    dnums = GatherDimensionNumbers(
        offset_dims=tuple(offset_dims), collapsed_slice_dims=collapsed,
        start_index_map=start_index_map, operand_batching_dims=tuple(operand_batching),
        start_indices_batching_dims=tuple(indices_batching))
    return lax.gather(a, gather_indices, dnums, tuple(slice_sizes),
                      mode="fill" if mode is None else mode, fill_value=fill_value)
