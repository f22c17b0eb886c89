"""Chapter 00 — slicing primitives: slice, dynamic_slice, gather and scatter.

Everything NumPy indexing can do (``x[1:3]``, ``x[i]``, ``x[idx_array]``,
``x.at[idx].add(y)``) is built by :mod:`minijax.numpy.indexing` from the
primitives of this file, exactly as ``jax.numpy`` builds it from XLA's:

- ``slice``: a static window with static strides;
- ``dynamic_slice`` / ``dynamic_update_slice``: a window of static size at a
  *traced* position. Positions are clamped so that the window stays inside the
  array (XLA's rule), which is why ``x[i]`` never fails for a large ``i``;
- ``gather``: many windows at once, one per row of an index array; XLA's most
  general read, described by :class:`GatherDimensionNumbers`;
- ``scatter`` and its combining variants (``scatter-add`` ...): the matching
  write. Windows that would fall outside the operand are dropped.

Out-of-bound handling of gather and scatter is chosen by
:class:`GatherScatterMode`. The impl rules below are NumPy: the general gather
and scatter are vectorized with NumPy advanced indexing (one index array per
operand dimension, broadcast over the batch of windows).
"""
from __future__ import annotations

import builtins
import enum
import operator
from typing import Callable, NamedTuple, Sequence

import numpy as np

from minijax import dtypes
from minijax.abstract_arrays import ShapedArray, get_aval
from minijax.array import array_from_numpy
from minijax.lax import elementwise as _ew
from minijax.lax import shapes as _shapes
from minijax.lax.base import (canonicalize_shape, check_same_dtypes, check_shapelike,
                              standard_primitive)
from minijax.primitives import abstract_eval_rules

__all__ = ["slice", "slice_in_dim", "index_in_dim",
           "dynamic_slice", "dynamic_slice_in_dim", "dynamic_index_in_dim",
           "dynamic_update_slice", "dynamic_update_slice_in_dim",
           "dynamic_update_index_in_dim",
           "GatherDimensionNumbers", "GatherScatterMode", "gather",
           "ScatterDimensionNumbers", "scatter", "scatter_add", "scatter_sub",
           "scatter_mul", "scatter_min", "scatter_max", "scatter_apply"]

_slice = builtins.slice  # this module defines ``slice``


def _first_weak(aval, *avals, **params) -> bool:
    return aval.weak_type


def _ndim(x) -> int:
    return get_aval(x).ndim


# =============================================================================
# slice
# =============================================================================
def _slice_shape_rule(operand, *, start_indices, limit_indices, strides):
    check_shapelike("slice", "start_indices", start_indices)
    check_shapelike("slice", "limit_indices", limit_indices)
    if operand.ndim != len(start_indices):
        raise TypeError("slice start_indices must have length equal to the number of "
                        f"dimensions of the operand, got indices {start_indices} for "
                        f"operand shape {operand.shape}.")
    if len(start_indices) != len(limit_indices):
        raise TypeError("slice limit_indices must have the same length as start_indices, "
                        f"got start_indices {start_indices} and limit_indices "
                        f"{limit_indices}.")
    if not all(l <= d for l, d in zip(limit_indices, operand.shape)):
        raise TypeError("slice limit_indices must be less than or equal to operand "
                        f"shape, got limit_indices {limit_indices} for operand shape "
                        f"{operand.shape}.")
    if not all(l >= s for s, l in zip(start_indices, limit_indices)):
        raise TypeError("slice limit_indices must be greater than or equal to "
                        f"start_indices, got start_indices {start_indices} and "
                        f"limit_indices {limit_indices}.")
    diff = tuple(int(l) - int(s) for s, l in zip(start_indices, limit_indices))
    if strides is None or tuple(strides) == (1,) * operand.ndim:
        return diff
    check_shapelike("slice", "strides", strides)
    if len(strides) != operand.ndim:
        raise TypeError("slice strides must have length equal to the number of "
                        f"dimensions of the operand, got strides {strides} for operand "
                        f"shape {operand.shape}.")
    if not all(s > 0 for s in strides):
        raise TypeError(f"slice strides must be positive, got {strides}")
    return tuple(0 if d == 0 else (d - 1) // int(s) + 1 for d, s in zip(diff, strides))


def _slice_impl(x, *, start_indices, limit_indices, strides):
    strides = strides or (1,) * x.ndim
    return x[tuple(map(_slice, start_indices, limit_indices, strides))]


slice_p = standard_primitive("slice", _slice_shape_rule, lambda x, **_: x.dtype,
                             _slice_impl, _first_weak, kind="data_movement", linear_in=(0,))


def slice(operand, start_indices: Sequence[int], limit_indices: Sequence[int],
          strides: Sequence[int] | None = None):
    """Wraps XLA's Slice operator: ``operand[start:limit:stride]`` in every dimension.

    >>> x = jnp.arange(12).reshape(3, 4)
    >>> lax.slice(x, (1, 0), (3, 2))
    Array([[4, 5],
           [8, 9]], dtype=int32)
    """
    return slice_p.bind(operand, start_indices=tuple(start_indices),
                        limit_indices=tuple(limit_indices),
                        strides=None if strides is None else tuple(strides))


def slice_in_dim(operand, start_index: int | None, limit_index: int | None,
                 stride: int = 1, axis: int = 0):
    """:func:`slice` along one ``axis``: ``operand[..., start_index:limit_index:stride]``.

    Negative indices count from the end; ``None`` means the start (or the end).
    """
    aval = get_aval(operand)
    start_indices, limit_indices = [0] * aval.ndim, list(aval.shape)
    strides = [1] * aval.ndim
    axis = int(axis)
    size = aval.shape[axis]
    start = operator.index(start_index) if start_index is not None else 0
    limit = operator.index(limit_index) if limit_index is not None else size
    start_indices[axis] = start + size if start < 0 else start
    limit_indices[axis] = limit + size if limit < 0 else limit
    strides[axis] = operator.index(stride)
    return slice(operand, start_indices, limit_indices, strides)


def index_in_dim(operand, index: int, axis: int = 0, keepdims: bool = True):
    """Static integer indexing along ``axis`` (a :func:`slice`, then a squeeze)."""
    index, axis = operator.index(index), int(axis)
    size = get_aval(operand).shape[axis]
    wrapped = index + size if index < 0 else index
    if not 0 <= wrapped < size:
        raise IndexError(f"index {index} is out of bounds for axis {axis} with size {size}")
    result = slice_in_dim(operand, wrapped, wrapped + 1, 1, axis)
    return result if keepdims else _shapes.squeeze(result, (axis,))


# =============================================================================
# dynamic_slice / dynamic_update_slice
# =============================================================================
def _check_start_indices(name: str, operand, start_indices) -> None:
    if len(start_indices) != operand.ndim:
        raise TypeError(f"{name} start_indices must have length equal to the rank of "
                        f"operand, got indices {tuple(start_indices)} for operand shape "
                        f"{operand.shape}.")
    if any(i.ndim != 0 for i in start_indices):
        raise TypeError(f"start_indices arguments to {name} must be scalars, "
                        f" got indices {tuple(start_indices)}")


def _check_index_dtypes(name: str, start_indices, sep: str) -> None:
    if any(i.dtype != start_indices[0].dtype or not np.issubdtype(i.dtype, np.integer)
           for i in start_indices):
        raise TypeError(f"index arguments to {name} must be integers of the same "
                        f"type, got{sep} {', '.join(i.dtype.name for i in start_indices)}")


def _dynamic_slice_shape_rule(operand, *start_indices, slice_sizes):
    if len(slice_sizes) != operand.ndim:
        raise TypeError("dynamic_slice slice_sizes must have length equal to the rank of "
                        f"operand, got slice_sizes {slice_sizes} for operand shape "
                        f"{operand.shape}.")
    if not all(d >= s for d, s in zip(operand.shape, slice_sizes)):
        raise TypeError("slice slice_sizes must be less than or equal to operand shape, "
                        f"got slice_sizes {slice_sizes} for operand shape {operand.shape}.")
    if not all(s >= 0 for s in slice_sizes):
        raise TypeError("slice slice_sizes must be greater than or equal to zero, "
                        f"got slice_sizes of {slice_sizes}.")
    _check_start_indices("dynamic_slice", operand, start_indices)
    return tuple(slice_sizes)


def _dynamic_slice_dtype_rule(operand, *start_indices, slice_sizes):
    _check_index_dtypes("dynamic_slice", start_indices, ":")
    return operand.dtype


def _clamped_window(shape, starts, sizes) -> tuple:
    """The window ``[start, start + size)`` per dimension, start clamped as XLA does."""
    return tuple(_slice(s, s + z) for s, z in (
        (int(np.clip(int(i), 0, d - z)), z) for i, d, z in zip(starts, shape, sizes)))


def _dynamic_slice_impl(x, *start_indices, slice_sizes):
    return x[_clamped_window(x.shape, start_indices, slice_sizes)]


dynamic_slice_p = standard_primitive("dynamic_slice", _dynamic_slice_shape_rule,
                                     _dynamic_slice_dtype_rule, _dynamic_slice_impl,
                                     _first_weak, kind="data_movement", linear_in=(0,))


def _dynamic_update_slice_shape_rule(operand, update, *start_indices):
    if operand.ndim != update.ndim:
        raise TypeError("dynamic_update_slice update must have the same rank as operand, "
                        f"got update shape {update.shape} for operand shape "
                        f"{operand.shape}.")
    if not all(d >= u for d, u in zip(operand.shape, update.shape)):
        raise TypeError("dynamic_update_slice update shape must be smaller than operand "
                        f"shape, got update shape {update.shape} for operand shape "
                        f"{operand.shape}.")
    _check_start_indices("dynamic_update_slice", operand, start_indices)
    return operand.shape


def _dynamic_update_slice_dtype_rule(operand, update, *start_indices):
    check_same_dtypes("dynamic_update_slice", operand, update)
    _check_index_dtypes("dynamic_update_slice", start_indices, "")
    return operand.dtype


def _dynamic_update_slice_impl(x, update, *start_indices):
    out = x.copy()
    out[_clamped_window(x.shape, start_indices, update.shape)] = update
    return out


dynamic_update_slice_p = standard_primitive(
    "dynamic_update_slice", _dynamic_update_slice_shape_rule,
    _dynamic_update_slice_dtype_rule, _dynamic_update_slice_impl,
    kind="data_movement", linear_in=(0, 1))


def _dynamic_slice_indices(operand, start_indices, allow_negative_indices):
    """Turn negative start indices into positions from the end, as JAX does.

    Static Python/NumPy integers are wrapped now (and become int32 constants);
    array indices get ``select(i < 0, i + size, i)``. Unsigned indices cannot
    be negative and are left alone.
    """
    shape = get_aval(operand).shape
    if len(start_indices) != len(shape):
        raise ValueError("Length of slice indices must match number of operand dimensions "
                         f"({len(start_indices)} vs {shape})")
    if isinstance(start_indices, np.ndarray):
        start_indices = list(start_indices)
    elif not isinstance(start_indices, (list, tuple)):
        if _ndim(start_indices) != 1:
            raise ValueError(f"Slice indices must be a 1D sequence, got "
                             f"{get_aval(start_indices).shape}")
        start_indices = [index_in_dim(start_indices, i, keepdims=False)
                         for i in range(len(shape))]
    if isinstance(allow_negative_indices, bool):
        allow_negative_indices = [allow_negative_indices] * len(shape)
    result = []
    for i, d, allow_negative in zip(start_indices, shape, allow_negative_indices):
        dt = dtypes.dtype(i)
        if not np.issubdtype(dt, np.signedinteger):
            # unsigned: cannot be negative; not an integer: the dtype rule says so
            result.append(i if hasattr(i, "aval") else _ew.convert_element_type(i, dt))
        elif isinstance(i, (int, np.integer)):
            if i < 0 and not allow_negative:
                raise ValueError(f"Index {i} is out of bounds for dimension {d} if "
                                 "allow_negative_indices=False")
            result.append(_ew.convert_element_type(i + d if i < 0 else i, dt))
        elif allow_negative:
            size = _ew.convert_element_type(d, dt)
            result.append(_ew.select_n(i < 0, i, i + size))
        else:
            result.append(i)
    return result


def dynamic_slice(operand, start_indices, slice_sizes, *,
                  allow_negative_indices: bool | Sequence[bool] = True):
    """Wraps XLA's DynamicSlice: a window of static ``slice_sizes`` at a traced position.

    Negative start indices count from the end. A window that would overrun the
    array is moved back inside it (the start index is clamped):

    >>> x = jnp.arange(12).reshape(3, 4)
    >>> lax.dynamic_slice(x, (1, 1), (2, 4))
    Array([[ 4,  5,  6,  7],
           [ 8,  9, 10, 11]], dtype=int32)
    """
    start_indices = _dynamic_slice_indices(operand, start_indices, allow_negative_indices)
    sizes = canonicalize_shape(slice_sizes)
    return dynamic_slice_p.bind(operand, *start_indices, slice_sizes=sizes)


def dynamic_update_slice(operand, update, start_indices, *,
                         allow_negative_indices: bool | Sequence[bool] = True):
    """Wraps XLA's DynamicUpdateSlice: write ``update`` into ``operand`` at ``start_indices``.

    As in :func:`dynamic_slice`, the start is clamped so that ``update`` fits.

    >>> lax.dynamic_update_slice(jnp.zeros(6), jnp.ones(3), (5,))
    Array([0., 0., 0., 1., 1., 1.], dtype=float32)
    """
    start_indices = _dynamic_slice_indices(operand, start_indices, allow_negative_indices)
    return dynamic_update_slice_p.bind(operand, update, *start_indices)


def _zero_index_like(index):
    """A 0 of the index's type: a Python int for a Python int, else a NumPy scalar array."""
    if dtypes.is_python_scalar(index):
        return 0
    return np.array(0, dtypes.dtype(index))


def dynamic_slice_in_dim(operand, start_index, slice_size: int, axis: int = 0, *,
                         allow_negative_indices: bool = True):
    """:func:`dynamic_slice` along one ``axis``: ``operand[..., start:start + slice_size]``."""
    aval = get_aval(operand)
    axis = int(axis)
    start_indices = [_zero_index_like(start_index)] * aval.ndim
    start_indices[axis] = start_index
    slice_sizes = list(aval.shape)
    slice_sizes[axis] = operator.index(slice_size)
    allow_negative = [False] * aval.ndim
    allow_negative[axis] = allow_negative_indices
    return dynamic_slice(operand, start_indices, slice_sizes,
                         allow_negative_indices=allow_negative)


def dynamic_index_in_dim(operand, index, axis: int = 0, keepdims: bool = True, *,
                         allow_negative_indices: bool = True):
    """:func:`dynamic_slice` of size 1 along ``axis``: ``operand[..., index]``."""
    result = dynamic_slice_in_dim(operand, index, 1, axis,
                                  allow_negative_indices=allow_negative_indices)
    return result if keepdims else _shapes.squeeze(result, (axis,))


def dynamic_update_slice_in_dim(operand, update, start_index, axis: int, *,
                                allow_negative_indices: bool = True):
    """:func:`dynamic_update_slice` whose position varies along ``axis`` only."""
    axis = int(axis)
    ndim = _ndim(operand)
    start_indices = [_zero_index_like(start_index)] * ndim
    start_indices[axis] = start_index
    allow_negative = [False] * ndim
    allow_negative[axis] = allow_negative_indices
    return dynamic_update_slice(operand, update, start_indices,
                                allow_negative_indices=allow_negative)


def dynamic_update_index_in_dim(operand, update, index, axis: int, *,
                                allow_negative_indices: bool = True):
    """Write ``update`` at position ``index`` of ``axis`` (a size-1 update slice).

    ``update`` may lack the ``axis`` dimension; it is then inserted.
    """
    axis = int(axis)
    if _ndim(update) != _ndim(operand):
        assert _ndim(update) + 1 == _ndim(operand)
        update = _shapes.expand_dims(update, (axis,))
    return dynamic_update_slice_in_dim(operand, update, index, axis,
                                       allow_negative_indices=allow_negative_indices)


# =============================================================================
# gather / scatter: shared vocabulary
# =============================================================================
class GatherDimensionNumbers(NamedTuple):
    """How the dimensions of ``operand``, ``start_indices`` and the output relate in a gather.

    offset_dims: output dimensions that hold the (non-collapsed) window dims.
    collapsed_slice_dims: operand dims of window size 1 dropped from the output.
    start_index_map: for each entry of an index vector, the operand dim it indexes.
    operand_batching_dims / start_indices_batching_dims: paired batch dims.

    As in JAX, the index vector is always the *last* dimension of ``start_indices``.
    """
    offset_dims: tuple[int, ...]
    collapsed_slice_dims: tuple[int, ...]
    start_index_map: tuple[int, ...]
    operand_batching_dims: tuple[int, ...] = ()
    start_indices_batching_dims: tuple[int, ...] = ()


class ScatterDimensionNumbers(NamedTuple):
    """The scatter mirror of :class:`GatherDimensionNumbers`.

    update_window_dims: dims of ``updates`` that are window dims.
    inserted_window_dims: operand dims of window size 1 absent from ``updates``.
    scatter_dims_to_operand_dims: for each entry of an index vector, its operand dim.
    operand_batching_dims / scatter_indices_batching_dims: paired batch dims.
    """
    update_window_dims: Sequence[int]
    inserted_window_dims: Sequence[int]
    scatter_dims_to_operand_dims: Sequence[int]
    operand_batching_dims: Sequence[int] = ()
    scatter_indices_batching_dims: Sequence[int] = ()


class GatherScatterMode(enum.Enum):
    """How a gather or scatter treats out-of-bounds indices.

    CLIP: clamp indices so that the whole window is in range.
    FILL_OR_DROP: a gathered window that is partly out of bounds is filled with
      ``fill_value``; a scattered one is discarded.
    PROMISE_IN_BOUNDS: the user promises indices are in bounds; in practice
      gathers clamp and scatters drop.
    ONE_HOT: used by ``jnp.take_along_axis(mode="one_hot")`` only.
    """
    CLIP = enum.auto()
    FILL_OR_DROP = enum.auto()
    PROMISE_IN_BOUNDS = enum.auto()
    ONE_HOT = enum.auto()

    @staticmethod
    def from_any(s: "str | GatherScatterMode | None") -> "GatherScatterMode":
        """Parse a mode name (``"clip"``, ``"fill"``/``"drop"``/``None``, ...)."""
        if isinstance(s, GatherScatterMode):
            return s
        if s == "clip":
            return GatherScatterMode.CLIP
        if s is None or s == "fill" or s == "drop":
            return GatherScatterMode.FILL_OR_DROP
        if s == "promise_in_bounds":
            return GatherScatterMode.PROMISE_IN_BOUNDS
        if s == "one_hot":
            return GatherScatterMode.ONE_HOT
        raise ValueError(f'Unknown gather mode "{s}"')


# --- dimension-number checks (XLA's ShapeInference, with JAX's messages) -------------
def _is_sorted(dims, op_name, name):
    if any(dims[i] < dims[i - 1] for i in range(1, len(dims))):
        raise TypeError(f"{name} in {op_name} op must be sorted; got {dims}")


def _dims_in_range(dims, rank, op_name, name):
    for dim in dims:
        if dim < 0 or dim >= rank:
            raise TypeError(f"Invalid {name} set in {op_name} op; valid range is "
                            f"[0, {rank}); got: {dim}.")


def _no_duplicate_dims(dims, op_name, name):
    if len(set(dims)) != len(dims):
        raise TypeError(f"{name} in {op_name} op must not repeat; got: {dims}.")


def _disjoint_dims(dims1, dims2, op_name, name1, name2):
    if not set(dims1).isdisjoint(dims2):
        raise TypeError(f"{name1} and {name2} in {op_name} op must be disjoint; "
                        f"got: {dims1} and {dims2}.")


def _check_sorted_unique_in_range(dims, rank, op_name, name):
    _is_sorted(dims, op_name, name)
    _dims_in_range(dims, rank, op_name, name)
    _no_duplicate_dims(dims, op_name, name)


def _check_index_map(index_map, operand, indices, op_name, name, map_name):
    if len(index_map) != indices.shape[-1]:
        raise TypeError(f"{op_name.capitalize()} op has {len(index_map)} elements in "
                        f"{map_name} and the bound of dimension index_vector_dim="
                        f"{indices.ndim - 1} of indices is {indices.shape[-1]}. These two "
                        "numbers must be equal" + ("." if op_name == "gather" else ""))
    for i, d in enumerate(index_map):
        if d < 0 or d >= operand.ndim:
            raise TypeError(f"Invalid {name}; domain is [0, {operand.ndim}), "
                            f"got: {i}->{d}.")
    _no_duplicate_dims(index_map, op_name, map_name)


def _check_batching_dims(op_name, operand, indices, operand_batching_dims,
                         indices_batching_dims, indices_name):
    _check_sorted_unique_in_range(operand_batching_dims, operand.ndim, op_name,
                                  "operand_batching_dims")
    _no_duplicate_dims(indices_batching_dims, op_name, indices_name)
    _dims_in_range(indices_batching_dims, indices.ndim, op_name, indices_name)
    if indices.ndim - 1 in indices_batching_dims:
        raise TypeError(f"{op_name.capitalize()} op cannot have the index vector dimension "
                        f"as a batching dimension; got {indices_batching_dims}.")
    if len(operand_batching_dims) != len(indices_batching_dims):
        raise TypeError(f"{op_name.capitalize()} op requires equal numbers of "
                        f"operand_batching_dims and {indices_name}, got "
                        f"{operand_batching_dims} and {indices_batching_dims}.")
    operand_batch = tuple(operand.shape[i] for i in operand_batching_dims)
    indices_batch = tuple(indices.shape[i] for i in indices_batching_dims)
    if operand_batch != indices_batch:
        raise TypeError(f"{op_name.capitalize()} op requires operand batching dimensions "
                        "and indices batching dimensions to have the same shape, got "
                        f"{operand_batch} and {indices_batch}.")


def _check_integer_indices(indices):
    if not np.issubdtype(indices.dtype, np.integer):
        raise ValueError("indices must have an integer type")


# --- the NumPy engine shared by gather and scatter ------------------------------------
def _window_starts(operand_shape, indices, index_map, operand_batching_dims,
                   indices_batching_dims) -> np.ndarray:
    """Start of every window: an int64 array of shape ``indices.shape[:-1] + (rank,)``."""
    batch_shape = indices.shape[:-1]
    starts = np.zeros(batch_shape + (len(operand_shape),), np.int64)
    for k, d in enumerate(index_map):
        starts[..., d] = indices[..., k]
    for od, idim in zip(operand_batching_dims, indices_batching_dims):
        position = [-1 if j == idim else 1 for j in range(len(batch_shape))]
        starts[..., od] = np.arange(batch_shape[idim]).reshape(position)
    return starts


def _window_index(starts: np.ndarray, window_shape) -> tuple:
    """NumPy advanced index selecting, for each start, the window of ``window_shape``.

    It indexes ``operand[None]`` (a leading unit axis keeps the batch dims even
    for a rank-0 operand) and gives shape ``starts.shape[:-1] + window_shape``.
    """
    nb, rank = starts.ndim - 1, len(window_shape)
    index = [np.zeros(starts.shape[:-1] + (1,) * rank, np.intp)]
    for d, size in enumerate(window_shape):
        offsets = np.arange(size).reshape([size if j == d else 1 for j in range(rank)])
        index.append(starts[..., d].reshape(starts.shape[:-1] + (1,) * rank)
                     + offsets.reshape((1,) * nb + offsets.shape))
    return tuple(index)


def _in_bounds(starts, operand_shape, window_shape) -> np.ndarray:
    upper = np.array(operand_shape, np.int64) - np.array(window_shape, np.int64)
    return np.all((starts >= 0) & (starts <= upper), axis=-1)


def _clip_starts(starts, operand_shape, window_shape) -> np.ndarray:
    upper = np.array(operand_shape, np.int64) - np.array(window_shape, np.int64)
    return np.clip(starts, 0, np.maximum(upper, 0))


# =============================================================================
# gather
# =============================================================================
def _gather_shape_rule(operand, indices, *, dimension_numbers, slice_sizes,
                       unique_indices, indices_are_sorted, mode, fill_value):
    dn = dimension_numbers
    offset_dims, collapsed = tuple(dn.offset_dims), tuple(dn.collapsed_slice_dims)
    obatch = tuple(dn.operand_batching_dims)
    if indices.ndim < 1:
        raise TypeError("Gather index leaf dimension must be within [0, rank(indices) + "
                        f"1). rank(indices) is {indices.ndim} and gather index leaf "
                        f"dimension is {indices.ndim - 1}.")
    _is_sorted(offset_dims, "gather", "offset_dims")
    _no_duplicate_dims(offset_dims, "gather", "offset_dims")
    out_rank = len(offset_dims) + indices.ndim - 1
    for i, d in enumerate(offset_dims):
        if d < 0 or d >= out_rank:
            raise TypeError(f"Offset dimension {i} in gather op is out of bounds; got {d}, "
                            f"but should have been in [0, {out_rank})")
    _check_index_map(dn.start_index_map, operand, indices, "gather",
                     "start_index_map", "start_index_map")
    _check_sorted_unique_in_range(collapsed, operand.ndim, "gather", "collapsed_slice_dims")
    _check_batching_dims("gather", operand, indices, obatch,
                         dn.start_indices_batching_dims, "start_indices_batching_dims")
    _disjoint_dims(collapsed, obatch, "gather", "collapsed_slice_dims",
                   "operand_batching_dims")
    _disjoint_dims(dn.start_index_map, obatch, "gather", "start_index_map",
                   "operand_batching_dims")
    if operand.ndim != len(slice_sizes):
        raise TypeError("Gather op must have one slice size for every input dimension; "
                        f"got: len(slice_sizes)={len(slice_sizes)}, input_shape.rank="
                        f"{operand.ndim}")
    if len(slice_sizes) != len(offset_dims) + len(collapsed) + len(obatch):
        raise TypeError("All components of the offset index in a gather op must either be "
                        "a offset dimension or explicitly collapsed/batching; got "
                        f"len(slice_sizes)={len(slice_sizes)}, output_slice_sizes="
                        f"{offset_dims}, collapsed_slice_dims={collapsed}, "
                        f"operand_batching_dims={obatch}.")
    for i, (size, dim) in enumerate(zip(slice_sizes, operand.shape)):
        if 0 not in indices.shape and not 0 <= size <= dim:
            raise TypeError(f"Slice size at index {i} in gather op is out of range, must "
                            f"be within [0, {dim} + 1), got {size}.")
    for i, d in enumerate(collapsed):
        if slice_sizes[d] != 1:
            raise TypeError("Gather op can only collapse slice dims with bound 1, but "
                            f"bound is {slice_sizes[d]} for index {d} at position {i}.")
    for i, d in enumerate(obatch):
        if slice_sizes[d] > 1:
            raise TypeError("Gather op can only have operand batching dims with bound "
                            f"0/1, but bound is {slice_sizes[d]} for index {d} at "
                            f"position {i}.")
    window = iter(s for i, s in enumerate(slice_sizes)
                  if i not in collapsed and i not in obatch)
    batch = iter(indices.shape[:-1])
    return tuple(next(window) if i in offset_dims else next(batch) for i in range(out_rank))


def _gather_dtype_rule(operand, indices, **_):
    _check_integer_indices(indices)
    return operand.dtype


def _gather_impl(operand, indices, *, dimension_numbers, slice_sizes, unique_indices,
                 indices_are_sorted, mode, fill_value):
    if mode == GatherScatterMode.ONE_HOT:
        raise NotImplementedError("gather does not support mode ONE_HOT")
    dn = dimension_numbers
    starts = _window_starts(operand.shape, indices, dn.start_index_map,
                            dn.operand_batching_dims, dn.start_indices_batching_dims)
    valid = _in_bounds(starts, operand.shape, slice_sizes)
    starts = _clip_starts(starts, operand.shape, slice_sizes)
    windows = operand[None][_window_index(starts, slice_sizes)]  # batch + slice_sizes
    nb, rank = indices.ndim - 1, operand.ndim
    if mode == GatherScatterMode.FILL_OR_DROP:
        fill = np.array(fill_value).astype(operand.dtype)
        windows = np.where(valid.reshape(valid.shape + (1,) * rank), windows, fill)
    dropped = set(dn.collapsed_slice_dims) | set(dn.operand_batching_dims)
    kept = tuple(s for d, s in enumerate(slice_sizes) if d not in dropped)
    windows = windows.reshape(indices.shape[:-1] + kept)
    # batch dims first, window dims last -> window dims go to offset_dims
    batch_axes = iter(range(nb))
    perm = [nb + dn.offset_dims.index(i) if i in dn.offset_dims else next(batch_axes)
            for i in range(nb + len(kept))]
    return windows.transpose(perm)


gather_p = standard_primitive("gather", _gather_shape_rule, _gather_dtype_rule,
                              _gather_impl, _first_weak,
                              kind="data_movement", linear_in=(0,))


def _default_fill_value(dtype):
    if dtypes.issubdtype(dtype, np.inexact):
        return np.nan
    if np.issubdtype(dtype, np.signedinteger):
        return int(np.iinfo(dtype).min)
    if np.issubdtype(dtype, np.unsignedinteger):
        return int(np.iinfo(dtype).max)
    if dtype == np.bool_:
        return True
    raise ValueError(f"Unsupported dtype for gather fill_value {dtype}")


def _canonicalize_dnums(cls, dimension_numbers):
    return cls(*(tuple(int(d) for d in dims) for dims in dimension_numbers))


def gather(operand, start_indices, dimension_numbers: GatherDimensionNumbers,
           slice_sizes, *, unique_indices: bool = False, indices_are_sorted: bool = False,
           mode: "str | GatherScatterMode | None" = None, fill_value=None):
    """Gather operator (XLA's Gather): one window of ``slice_sizes`` per index vector.

    Prefer NumPy indexing (``x[idx]``, ``x.at[idx].get(...)``), which lowers to this.
    ``mode`` defaults to ``PROMISE_IN_BOUNDS`` (indices are clamped); with
    ``"fill"`` an out-of-bounds window reads ``fill_value`` (NaN for floats, the
    most negative value for signed ints, the largest for unsigned, True for bool).

    >>> x = jnp.array([10, 11, 12])
    >>> dnums = lax.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,),
    ...                                    start_index_map=(0,))
    >>> lax.gather(x, jnp.array([[2], [0]]), dnums, slice_sizes=(1,))
    Array([12, 10], dtype=int32)
    """
    parsed_mode = GatherScatterMode.from_any(
        GatherScatterMode.PROMISE_IN_BOUNDS if mode is None else mode)
    if parsed_mode == GatherScatterMode.FILL_OR_DROP:
        if fill_value is None:
            fill_value = _default_fill_value(get_aval(operand).dtype)
    else:
        fill_value = None
    return gather_p.bind(
        operand, start_indices,
        dimension_numbers=_canonicalize_dnums(GatherDimensionNumbers, dimension_numbers),
        slice_sizes=canonicalize_shape(slice_sizes), unique_indices=bool(unique_indices),
        indices_are_sorted=bool(indices_are_sorted), mode=parsed_mode,
        fill_value=fill_value)


# =============================================================================
# scatter, scatter-add, scatter-sub, scatter-mul, scatter-min, scatter-max
# =============================================================================
def _scatter_shape_rule(operand, indices, updates, *, update_jaxpr, update_consts,
                        dimension_numbers, indices_are_sorted, unique_indices, mode):
    dn = dimension_numbers
    window_dims, inserted = tuple(dn.update_window_dims), tuple(dn.inserted_window_dims)
    obatch = tuple(dn.operand_batching_dims)
    ibatch = tuple(dn.scatter_indices_batching_dims)
    if indices.ndim < 1:
        raise TypeError("Scatter index leaf dimension must be within [0, rank(indices) + "
                        f"1). rank(indices) is {indices.ndim} and scatter index leaf "
                        f"dimension is {indices.ndim - 1}.")
    expected_rank = indices.ndim - 1 + len(window_dims)
    if updates.ndim != expected_rank:
        raise TypeError(f"Updates tensor must be of rank {expected_rank}; "
                        f"got {updates.ndim}.")
    _check_sorted_unique_in_range(window_dims, updates.ndim, "scatter", "update_window_dims")
    _check_sorted_unique_in_range(inserted, operand.ndim, "scatter", "inserted_window_dims")
    _check_batching_dims("scatter", operand, indices, obatch, ibatch,
                         "scatter_indices_batching_dims")
    _disjoint_dims(inserted, obatch, "scatter", "inserted_window_dims",
                   "operand_batching_dims")
    _disjoint_dims(dn.scatter_dims_to_operand_dims, obatch, "scatter",
                   "scatter_dims_to_operand_dims", "operand_batching_dims")
    # update dims that are not window dims are the indices' batch dims, in order
    update_scatter_dims = [d for d in range(updates.ndim) if d not in window_dims]
    operand_batch = tuple(operand.shape[i] for i in obatch)
    updates_batch = tuple(updates.shape[update_scatter_dims[i]] for i in ibatch)
    if operand_batch != updates_batch:
        raise TypeError("Scatter op requires operand batching dimensions and updates "
                        "batching dimensions to have the same shape, got "
                        f"{operand_batch} and {updates_batch}.")
    window_size = len(window_dims) + len(inserted) + len(obatch)
    if operand.ndim != window_size:
        raise TypeError(f"Scatter op has window of size {window_size}; doesn't match "
                        f"operand of rank {operand.ndim}.")
    _check_index_map(dn.scatter_dims_to_operand_dims, operand, indices, "scatter",
                     "scatter_dims_to_operand_dims mapping", "scatter_dims_to_operand_dims")
    max_sizes = [s for i, s in enumerate(operand.shape) if i not in inserted + obatch]
    for bound, d in zip(max_sizes, window_dims):
        if bound < updates.shape[d]:
            raise TypeError("Bounds of the window dimensions of updates must not exceed "
                            "the bounds of the corresponding dimensions of operand. For "
                            f"dimension {d}, updates bound is {updates.shape[d]}, operand "
                            f"bound is {bound}.")
    for d, bound in zip(update_scatter_dims, indices.shape[:-1]):
        if updates.shape[d] != bound:
            raise TypeError("Bounds of the scatter dimensions of updates must be the same "
                            "as the bounds of the corresponding dimensions of scatter "
                            f"indices. For scatter dimension {d}, updates bound is "
                            f"{updates.shape[d]}, indices bound is {bound}.")
    return operand.shape


def _scatter_dtype_rule(operand, indices, updates, **_):
    _check_integer_indices(indices)
    check_same_dtypes("scatter", operand, updates)
    return operand.dtype


def _scatter_windows(operand, indices, updates, dn, mode):
    """The in-bounds update windows: (advanced index into operand, their values)."""
    rank = operand.ndim
    window_operand_dims = [d for d in range(rank) if d not in dn.inserted_window_dims
                           and d not in dn.operand_batching_dims]
    window_shape = [1] * rank
    for d, ud in zip(window_operand_dims, dn.update_window_dims):
        window_shape[d] = updates.shape[ud]
    scatter_dims = [d for d in range(updates.ndim) if d not in dn.update_window_dims]
    values = updates.transpose(scatter_dims + list(dn.update_window_dims))
    values = values.reshape(indices.shape[:-1] + tuple(window_shape))
    starts = _window_starts(operand.shape, indices, dn.scatter_dims_to_operand_dims,
                            dn.operand_batching_dims, dn.scatter_indices_batching_dims)
    if mode == GatherScatterMode.CLIP:
        starts = _clip_starts(starts, operand.shape, window_shape)
        valid = np.ones(indices.shape[:-1], bool)
    else:  # FILL_OR_DROP and PROMISE_IN_BOUNDS: windows not wholly inside are dropped
        valid = _in_bounds(starts, operand.shape, window_shape)
    # a boolean mask over the batch dims also flattens them: (n, rank), (n,) + window
    starts, values = starts[valid], values[valid]
    return _window_index(starts, window_shape), values


def _apply_windows(func, out, index, values):
    """``scatter_apply``: apply ``func`` once per window, so duplicates apply it again."""
    for n in range(values.shape[0]):
        where = tuple(ix[n] for ix in index)
        out[where] = np.asarray(func(array_from_numpy(out[where])))


def _scatter_rule(combine: Callable):
    def impl(operand, indices, updates, *, update_jaxpr, update_consts,
             dimension_numbers, indices_are_sorted, unique_indices, mode):
        index, values = _scatter_windows(operand, indices, updates, dimension_numbers, mode)
        out = operand.copy()
        if update_jaxpr is not None and combine is _set:
            _apply_windows(update_jaxpr, out[None], index, values)
        else:
            combine(out[None], index, values)
        return out
    return impl


def _set(out, index, values):
    out[index] = values  # duplicates: the last one wins (XLA leaves the order open)


def _scatter_primitive(name: str, combine: Callable, **attributes):
    return standard_primitive(name, _scatter_shape_rule, _scatter_dtype_rule,
                              _scatter_rule(combine), _first_weak, **attributes)


# Plain scatter only moves values; the others combine them (arithmetic).
# ``scatter(operand, indices, updates)`` is linear in the operand and the
# updates together; scatter-mul in the operand, for fixed updates.
scatter_p = _scatter_primitive("scatter", _set, kind="data_movement", linear_in=(0, 2))
scatter_add_p = _scatter_primitive("scatter-add", np.add.at, linear_in=(0, 2))
scatter_sub_p = _scatter_primitive("scatter-sub", np.subtract.at, linear_in=(0, 2))
scatter_mul_p = _scatter_primitive("scatter-mul", np.multiply.at, linear_in=(0,))
scatter_min_p = _scatter_primitive("scatter-min", np.minimum.at)
scatter_max_p = _scatter_primitive("scatter-max", np.maximum.at)


def _bind_scatter(prim, operand, scatter_indices, updates, dimension_numbers,
                  indices_are_sorted, unique_indices, mode, update_jaxpr=None):
    return prim.bind(
        operand, scatter_indices, updates, update_jaxpr=update_jaxpr, update_consts=(),
        dimension_numbers=_canonicalize_dnums(ScatterDimensionNumbers, dimension_numbers),
        indices_are_sorted=bool(indices_are_sorted), unique_indices=bool(unique_indices),
        mode=GatherScatterMode.from_any(mode))


def _check_combiner(prim_name: str, operand) -> None:
    """Raise the error of the combining lax op (``add`` rejects bool, say), as JAX
    does when it builds the scatter's ``update_jaxpr``: abstract-evaluate the op
    on two scalars of the operand's dtype."""
    scalar = ShapedArray((), get_aval(operand).dtype)
    abstract_eval_rules[getattr(_ew, prim_name)](scalar, scalar)


def scatter(operand, scatter_indices, updates, dimension_numbers: ScatterDimensionNumbers,
            *, indices_are_sorted: bool = False, unique_indices: bool = False,
            mode: "str | GatherScatterMode | None" = None):
    """Scatter-update operator (XLA's Scatter): ``updates`` replace values of ``operand``.

    Prefer ``x.at[idx].set(y)``. With repeated indices, one of the updates wins
    (which one is unspecified). ``mode`` defaults to ``FILL_OR_DROP``: windows that
    are not wholly inside ``operand`` are dropped; ``"clip"`` clamps them instead.
    """
    return _bind_scatter(scatter_p, operand, scatter_indices, updates, dimension_numbers,
                         indices_are_sorted, unique_indices, mode)


def scatter_add(operand, scatter_indices, updates,
                dimension_numbers: ScatterDimensionNumbers, *,
                indices_are_sorted: bool = False, unique_indices: bool = False,
                mode: "str | GatherScatterMode | None" = None):
    """Scatter-add: ``operand`` plus the scattered ``updates`` (repeated indices add up).

    Prefer ``x.at[idx].add(y)``. ``mode`` as in :func:`scatter`.
    """
    _check_combiner("add_p", operand)
    return _bind_scatter(scatter_add_p, operand, scatter_indices, updates,
                         dimension_numbers, indices_are_sorted, unique_indices, mode)


def scatter_sub(operand, scatter_indices, updates,
                dimension_numbers: ScatterDimensionNumbers, *,
                indices_are_sorted: bool = False, unique_indices: bool = False,
                mode: "str | GatherScatterMode | None" = None):
    """Scatter-sub: ``operand`` minus the scattered ``updates`` (``x.at[idx].subtract(y)``)."""
    _check_combiner("sub_p", operand)
    return _bind_scatter(scatter_sub_p, operand, scatter_indices, updates,
                         dimension_numbers, indices_are_sorted, unique_indices, mode)


def scatter_mul(operand, scatter_indices, updates,
                dimension_numbers: ScatterDimensionNumbers, *,
                indices_are_sorted: bool = False, unique_indices: bool = False,
                mode: "str | GatherScatterMode | None" = None):
    """Scatter-multiply: ``operand`` times the scattered ``updates`` (``x.at[idx].multiply(y)``)."""
    _check_combiner("mul_p", operand)
    return _bind_scatter(scatter_mul_p, operand, scatter_indices, updates,
                         dimension_numbers, indices_are_sorted, unique_indices, mode)


def scatter_min(operand, scatter_indices, updates,
                dimension_numbers: ScatterDimensionNumbers, *,
                indices_are_sorted: bool = False, unique_indices: bool = False,
                mode: "str | GatherScatterMode | None" = None):
    """Scatter-min: elementwise minimum of ``operand`` and the scattered ``updates``.

    NaN propagates, as in :func:`lax.min`. Prefer ``x.at[idx].min(y)``.
    """
    _check_combiner("min_p", operand)
    return _bind_scatter(scatter_min_p, operand, scatter_indices, updates,
                         dimension_numbers, indices_are_sorted, unique_indices, mode)


def scatter_max(operand, scatter_indices, updates,
                dimension_numbers: ScatterDimensionNumbers, *,
                indices_are_sorted: bool = False, unique_indices: bool = False,
                mode: "str | GatherScatterMode | None" = None):
    """Scatter-max: elementwise maximum of ``operand`` and the scattered ``updates``.

    NaN propagates, as in :func:`lax.max`. Prefer ``x.at[idx].max(y)``.
    """
    _check_combiner("max_p", operand)
    return _bind_scatter(scatter_max_p, operand, scatter_indices, updates,
                         dimension_numbers, indices_are_sorted, unique_indices, mode)


def scatter_apply(operand, scatter_indices, func: Callable,
                  dimension_numbers: ScatterDimensionNumbers, *, update_shape=(),
                  indices_are_sorted: bool = False, unique_indices: bool = False,
                  mode: "str | GatherScatterMode | None" = None):
    """Replace values of ``operand`` at the indices by ``func`` of them.

    Repeated indices apply ``func`` repeatedly. A ``scatter`` whose
    ``update_jaxpr`` is ``func`` itself (minijax has no jaxprs in chapter 00);
    the ``updates`` operand is an unused placeholder of ``update_shape``.
    """
    aval = get_aval(operand)
    zero = _ew._convert_element_type(0, aval.dtype, False)
    unused = _shapes.broadcast_in_dim(zero, canonicalize_shape(update_shape), ())
    return _bind_scatter(scatter_p, operand, scatter_indices, unused, dimension_numbers,
                         indices_are_sorted, unique_indices, mode, update_jaxpr=func)
