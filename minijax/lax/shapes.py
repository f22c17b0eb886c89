"""Chapter 00 — structural primitives: broadcasting, reshaping, transposing, padding.

These move data without computing on it: ``broadcast_in_dim``, ``reshape``,
``squeeze``, ``transpose``, ``rev``, ``concatenate``, ``pad``, ``split``,
``stack``, ``unstack``, ``tile`` and ``iota`` (which makes data from nothing
but a shape). Their impl rules are NumPy views where possible; their
abstract-evaluation rules are where shape mistakes are caught, with JAX's
messages. The non-primitive helpers (``full``, ``full_like``, ``collapse``,
``broadcast``...) are written in terms of these primitives, as in JAX.
"""
from __future__ import annotations

import enum
import operator
import warnings
from typing import Sequence

import numpy as np

from minijax import dtypes
from minijax.abstract_arrays import get_aval
from minijax.lax.base import (ANY, NUM, canonicalize_axis, canonicalize_shape,
                              check_same_dtypes, check_shapelike,
                              standard_primitive)
from minijax.lax.elementwise import _convert_element_type
from minijax.primitives import Primitive, abstract_eval_rules, impl_rules

__all__ = ["broadcast_in_dim", "broadcast", "broadcast_to_rank", "broadcast_like",
           "broadcast_shapes", "reshape", "squeeze", "expand_dims", "collapse",
           "transpose", "rev", "concatenate", "pad", "split", "stack", "unstack",
           "tile", "iota", "broadcasted_iota", "full", "full_like", "empty2", "MemorySpace"]


def _same_dtype(x, **_):
    return x.dtype


def _same_weak(x, **_):
    return x.weak_type


def _is_array(x) -> bool:
    """True for an ``Array`` or a tracer (what JAX's ``isinstance(x, Array)`` accepts)."""
    return hasattr(x, "aval")


# --- argument checks shared by the structural primitives ---------------------------
_PYTHON_TYPE_DTYPES = {bool: dtypes.bool_, int: dtypes.int32, float: dtypes.float32,
                       complex: dtypes.complex64}


def _as_dtype(dt) -> np.dtype:
    """``np.dtype`` of a dtype-like: a NumPy/minijax scalar type, a string, a dtype."""
    if isinstance(dt, type) and issubclass(dt, np.generic):
        return np.dtype(dt)
    inner = getattr(dt, "dtype", None)
    if isinstance(inner, np.dtype):
        return inner
    return np.dtype(dt)


def check_user_dtype(dtype, fun_name: str) -> np.dtype:
    """A user-requested dtype in canonical form; warns (as JAX) when a 64-bit one is cut to 32."""
    if dtype is None:
        raise ValueError("dtype must be specified.")
    if _is_array(dtype):
        raise ValueError("Passing an array as a dtype argument is no longer supported; "
                         "instead of dtype=arr use dtype=arr.dtype.")
    if isinstance(dtype, type) and dtype in _PYTHON_TYPE_DTYPES:
        return _PYTHON_TYPE_DTYPES[dtype]
    dt = _as_dtype(dtype)
    if dt not in ANY:
        raise TypeError(f"JAX only supports number, bool, and string dtypes, got dtype "
                        f"{dtype} in {fun_name}")
    canonical = dtypes.canonicalize_dtype(dt)
    if canonical != dt:
        warnings.warn(
            f"Explicitly requested dtype {dt} requested in {fun_name} is not available, "
            f"and will be truncated to dtype {canonical.name}. To enable more dtypes, set "
            "the jax_enable_x64 configuration option or the JAX_ENABLE_X64 shell "
            "environment variable. See https://github.com/jax-ml/jax#current-gotchas "
            "for more.", stacklevel=3)
    return canonical


# --- broadcast_in_dim -----------------------------------------------------------
def _broadcast_in_dim_shape_rule(operand, *, shape, broadcast_dimensions, sharding):
    check_shapelike("broadcast_in_dim", "shape", shape)
    ndim = operand.ndim
    if ndim != len(broadcast_dimensions):
        raise TypeError(
            "broadcast_in_dim broadcast_dimensions must have length equal to operand "
            f"ndim; got broadcast_dimensions {broadcast_dimensions} for operand ndim {ndim}.")
    if len(shape) < ndim:
        raise TypeError(
            "broadcast_in_dim target broadcast shape must have equal or higher rank to "
            f"the operand shape; got operand ndim {ndim} and target broadcast ndim "
            f"{len(shape)}.")
    if not set(broadcast_dimensions).issubset(range(len(shape))):
        raise TypeError(
            "broadcast_in_dim broadcast_dimensions must be a subset of output dimensions, "
            f"got {broadcast_dimensions} for operand ndim {ndim} and shape {shape}.")
    if not all(operand.shape[i] in (1, shape[d]) for i, d in enumerate(broadcast_dimensions)):
        raise TypeError(
            "broadcast_in_dim operand dimension sizes must either be 1, or be equal to "
            "their corresponding dimensions in the target broadcast shape; got operand "
            f"of shape {operand.shape}, target broadcast shape {shape}, "
            f"broadcast_dimensions {broadcast_dimensions} ")
    if len(set(broadcast_dimensions)) != len(broadcast_dimensions):
        raise TypeError("broadcast_in_dim broadcast_dimensions must not contain "
                        f"duplicates, got broadcast_dimensions {broadcast_dimensions}")
    return shape


def _broadcast_in_dim_impl(x, *, shape, broadcast_dimensions, sharding):
    expanded = [1] * len(shape)
    for i, d in enumerate(broadcast_dimensions):
        expanded[d] = x.shape[i]
    return np.broadcast_to(x.reshape(expanded), shape)


broadcast_in_dim_p = standard_primitive(
    "broadcast_in_dim", _broadcast_in_dim_shape_rule, _same_dtype,
    _broadcast_in_dim_impl, _same_weak, kind="broadcast", linear_in=(0,))


def broadcast_in_dim(operand, shape: Sequence[int], broadcast_dimensions: Sequence[int],
                     *, out_sharding=None):
    """Broadcast ``operand`` to ``shape``; operand dim ``i`` becomes output dim ``broadcast_dimensions[i]``."""
    # (NumPy integers are kept, as JAX keeps them: its jaxprs print them)
    shape = tuple(int(d) for d in shape)
    bdims = tuple(d if isinstance(d, np.integer) else operator.index(d)
                  for d in broadcast_dimensions)
    aval = get_aval(operand)
    if aval.shape == shape and bdims == tuple(range(len(shape))) and hasattr(operand, "aval"):
        return operand
    return broadcast_in_dim_p.bind(operand, shape=shape, broadcast_dimensions=bdims,
                                   sharding=out_sharding)


def broadcast(operand, sizes: Sequence[int], *, out_sharding=None):
    """Add leading dimensions of ``sizes`` to ``operand``."""
    aval = get_aval(operand)
    dims = tuple(range(len(sizes), len(sizes) + aval.ndim))
    return broadcast_in_dim(operand, tuple(sizes) + aval.shape, dims,
                            out_sharding=out_sharding)


def broadcast_to_rank(x, rank: int):
    """Add leading size-1 dimensions to ``x`` until it has ``rank`` dimensions."""
    aval = get_aval(x)
    ndim = aval.ndim
    if ndim == rank:
        return x
    return broadcast_in_dim(x, (1,) * (rank - ndim) + aval.shape,
                            tuple(range(rank - ndim, rank)))


# --- reshape ----------------------------------------------------------------------
def _reshape_shape_rule(operand, *, new_sizes, dimensions, sharding):
    if not all(d >= 0 for d in new_sizes):
        raise TypeError(f"reshape new_sizes must all be positive, got {new_sizes}.")
    if int(np.prod(new_sizes, dtype=np.int64)) != operand.size:
        raise TypeError(
            "reshape total size must be unchanged, got new_sizes "
            f"{new_sizes} (of total size {int(np.prod(new_sizes, dtype=np.int64))}) for "
            f"shape {operand.shape} (of total size {operand.size}).")
    if dimensions is not None and set(dimensions) != set(range(operand.ndim)):
        raise TypeError("reshape dimensions must be a permutation of operand dimensions, "
                        f"got dimensions {dimensions} for shape {operand.shape}.")
    return tuple(new_sizes)


def _reshape_impl(x, *, new_sizes, dimensions, sharding):
    if dimensions is not None:
        x = np.transpose(x, dimensions)
    return np.reshape(x, new_sizes)


reshape_p = standard_primitive("reshape", _reshape_shape_rule, _same_dtype,
                               _reshape_impl, _same_weak,
                               kind="data_movement", linear_in=(0,))


def reshape(operand, new_sizes: Sequence[int], dimensions: Sequence[int] | None = None,
            *, out_sharding=None):
    """Reshape ``operand`` to ``new_sizes`` (row-major), optionally transposing first."""
    new_sizes = tuple(int(d) for d in new_sizes)
    aval = get_aval(operand)
    dims = None if dimensions is None or tuple(dimensions) == tuple(range(aval.ndim)) \
        else tuple(int(d) for d in dimensions)
    if aval.shape and aval.shape == new_sizes and dims is None and hasattr(operand, "aval"):
        return operand  # (a rank-0 reshape is kept, as JAX keeps it)
    return reshape_p.bind(operand, new_sizes=new_sizes, dimensions=dims,
                          sharding=out_sharding)


# --- squeeze / expand_dims ----------------------------------------------------------
def _squeeze_shape_rule(operand, *, dimensions):
    shape = operand.shape
    if len(set(dimensions)) != len(dimensions):
        raise ValueError(f"dimensions are not unique: {dimensions}")
    if not all(0 <= d < len(shape) for d in dimensions):
        raise ValueError(f"dimensions outside range [0, ndim): {dimensions}")
    if any(shape[d] != 1 for d in dimensions):
        raise ValueError("cannot select an axis to squeeze out which has size not equal "
                         f"to one, got shape={shape} and dimensions={dimensions}")
    return tuple(s for i, s in enumerate(shape) if i not in set(dimensions))


squeeze_p = standard_primitive(
    "squeeze", _squeeze_shape_rule, _same_dtype,
    lambda x, *, dimensions: np.squeeze(x, axis=dimensions), _same_weak,
    kind="data_movement", linear_in=(0,))


def squeeze(array, dimensions: Sequence[int]):
    """Remove the size-1 ``dimensions`` of ``array``."""
    ndim = get_aval(array).ndim
    dims = tuple(sorted(canonicalize_axis(d, ndim) for d in dimensions))
    if not dims and hasattr(array, "aval"):
        return array
    return squeeze_p.bind(array, dimensions=dims)


def expand_dims(array, dimensions: Sequence[int]):
    """Insert size-1 dimensions at ``dimensions`` (a ``broadcast_in_dim``, as in JAX)."""
    aval = get_aval(array)
    ndim_out = aval.ndim + len(dimensions)
    dims = [canonicalize_axis(d, ndim_out) for d in dimensions]
    if len(set(dims)) != len(dims):
        raise ValueError(f"repeated axis in lax.expand_dims: {dims}")
    dims_set = frozenset(dims)
    result_shape = list(aval.shape)
    for i in sorted(dims_set):
        result_shape.insert(i, 1)
    bdims = tuple(i for i in range(ndim_out) if i not in dims_set)
    return broadcast_in_dim(array, result_shape, bdims)


def collapse(operand, start_dimension: int, stop_dimension: int | None = None):
    """Merge dimensions ``[start_dimension, stop_dimension)`` of ``operand`` into one."""
    shape = get_aval(operand).shape
    lo, hi, _ = slice(start_dimension, stop_dimension).indices(len(shape))
    if hi < lo:
        raise ValueError(f"Invalid dimension range passed to collapse: {shape}"
                         f"[{start_dimension}:{stop_dimension}]")
    size = int(np.prod(shape[lo:hi], dtype=np.int64))
    return reshape(operand, shape[:lo] + (size,) + shape[hi:])


def broadcast_like(arr, like_arr):
    """Broadcast ``arr`` (NumPy-style, trailing dimensions aligned) to the shape of ``like_arr``."""
    shape, ndim = get_aval(like_arr).shape, get_aval(arr).ndim
    return broadcast_in_dim(arr, shape, tuple(range(len(shape) - ndim, len(shape))))


def broadcast_shapes(*shapes):
    """The NumPy-style broadcast of ``shapes`` (ranks aligned on the right), or JAX's ValueError."""
    shapes = [tuple(operator.index(d) for d in s) for s in shapes]
    if not shapes:
        return ()
    ndim = max(len(s) for s in shapes)
    padded = [(1,) * (ndim - len(s)) + s for s in shapes]
    out = []
    for ds in zip(*padded):
        sizes = {d for d in ds if d != 1}
        if len(sizes) > 1:
            raise ValueError(f"Incompatible shapes for broadcasting: shapes={shapes}")
        out.append(sizes.pop() if sizes else 1)
    return tuple(out)


# --- transpose / rev ---------------------------------------------------------------
def _transpose_shape_rule(operand, *, permutation):
    if not isinstance(permutation, (tuple, list, np.ndarray)):
        raise TypeError("transpose permutation must be a tuple/list/ndarray, got "
                        f"{type(permutation)}.")
    if tuple(sorted(permutation)) != tuple(range(operand.ndim)):
        raise TypeError("transpose permutation isn't a permutation of operand dimensions, "
                        f"got permutation {permutation} for operand shape {operand.shape}.")
    return tuple(operand.shape[i] for i in permutation)


transpose_p = standard_primitive(
    "transpose", _transpose_shape_rule, _same_dtype,
    lambda x, *, permutation: np.transpose(x, permutation), _same_weak,
    kind="data_movement", linear_in=(0,))


def transpose(operand, permutation: Sequence[int]):
    """Permute the dimensions of ``operand``: output dim ``i`` is input dim ``permutation[i]``."""
    permutation = tuple(operator.index(d) for d in permutation)
    if permutation == tuple(range(get_aval(operand).ndim)) and _is_array(operand):
        return operand
    return transpose_p.bind(operand, permutation=permutation)


def _rev_shape_rule(operand, *, dimensions):
    check_shapelike("rev", "dimensions", dimensions)
    if len(set(dimensions)) != len(dimensions):
        raise TypeError(f"rev dimensions must be unique, got {dimensions}.")
    if dimensions and not max(dimensions) < operand.ndim:
        raise TypeError("rev dimensions must all be less than operand ndim, got dimensions "
                        f"{dimensions} for operand ndim {operand.ndim}.")
    return operand.shape


rev_p = standard_primitive("rev", _rev_shape_rule, _same_dtype,
                           lambda x, *, dimensions: np.flip(x, dimensions), _same_weak,
                           kind="data_movement", linear_in=(0,))


def rev(operand, dimensions: Sequence[int]):
    """Reverse ``operand`` along each of ``dimensions`` (non-negative axes)."""
    return rev_p.bind(operand, dimensions=tuple(dimensions))


# --- concatenate / stack / split / unstack / tile ------------------------------------
def _concatenate_shape_rule(*operands, dimension):
    if not operands:
        raise TypeError("concatenate expects at least one operand, got 0.")
    shapes = ", ".join(str(o.shape) for o in operands)
    if len({o.ndim for o in operands}) != 1:
        raise TypeError("Cannot concatenate arrays with different numbers of dimensions: "
                        f"got {shapes}.")
    if not 0 <= dimension < operands[0].ndim:
        raise TypeError(f"concatenate dimension out of bounds: dimension {dimension} for "
                        f"shapes {shapes}.")
    others = [o.shape[:dimension] + o.shape[dimension + 1:] for o in operands]
    if others[:-1] != others[1:]:
        raise TypeError("Cannot concatenate arrays with shapes that differ in dimensions "
                        "other than the one being concatenated: concatenating along "
                        f"dimension {dimension} for shapes {shapes}.")
    shape = operands[0].shape
    size = sum(o.shape[dimension] for o in operands)
    return shape[:dimension] + (size,) + shape[dimension + 1:]


def _same_dtypes_rule(name):
    def rule(*avals, **_):
        check_same_dtypes(name, *avals)
        return avals[0].dtype
    return rule


concatenate_p = standard_primitive(
    "concatenate", _concatenate_shape_rule, _same_dtypes_rule("concatenate"),
    lambda *xs, dimension: np.concatenate(xs, axis=dimension),
    kind="data_movement", linear_in=(0, ...))


def concatenate(operands, dimension: int):
    """Join ``operands`` (same dtype, same shape except along ``dimension``) along ``dimension``."""
    if len(operands) == 0:
        raise ValueError("concatenate requires a non-empty sequences of arrays")
    if len(operands) == 1 and _is_array(operands[0]):
        return operands[0]
    return concatenate_p.bind(*operands, dimension=operator.index(dimension))


def _stack_shape_rule(*operands, axis):
    if not operands:
        raise ValueError("stack expects at least one operand, got 0.")
    shapes = ", ".join(str(o.shape) for o in operands)
    if len({o.ndim for o in operands}) != 1:
        raise ValueError(f"Cannot stack arrays with different numbers of dimensions: got {shapes}.")
    if len({o.shape for o in operands}) != 1:
        raise ValueError(f"All input arrays must have the same shape. Got {shapes}.")
    shape = list(operands[0].shape)
    shape.insert(axis, len(operands))
    return tuple(shape)


stack_p = standard_primitive("stack", _stack_shape_rule, _same_dtypes_rule("stack"),
                             lambda *xs, axis: np.stack(xs, axis=axis),
                             kind="data_movement", linear_in=(0, ...))


def stack(operands: Sequence, axis: int = 0):
    """Join same-shaped ``operands`` along a new dimension ``axis``."""
    if not len(operands):
        raise ValueError("stack expects at least one operand, got 0.")
    axis = canonicalize_axis(axis, get_aval(operands[0]).ndim + 1)
    return stack_p.bind(*operands, axis=axis)


def multiple_results_primitive(name, abstract_eval, impl, **attributes) -> Primitive:
    """A primitive returning a list of arrays, with its own abstract eval (a list of avals).

    ``attributes`` are :class:`~minijax.primitives.Primitive`'s keyword arguments.
    """
    prim = Primitive(name, multiple_results=True, **attributes)
    abstract_eval_rules[prim] = abstract_eval
    impl_rules[prim] = impl
    return prim


def _split_abstract_eval(operand, *, sizes, axis):
    if any(s < 0 for s in sizes):
        raise ValueError(f"Sizes passed to split must be nonnegative, got {list(sizes)}")
    if operand.shape[axis] != sum(sizes):
        raise ValueError(f"Sum of sizes {sum(sizes)} must be equal to dimension {axis} of "
                         f"the operand shape {list(operand.shape)}")
    shape = operand.shape
    return [operand.update(shape=shape[:axis] + (s,) + shape[axis + 1:]) for s in sizes]


def _split_impl(x, *, sizes, axis):
    return np.split(x, np.cumsum(sizes)[:-1], axis=axis)


split_p = multiple_results_primitive("split", _split_abstract_eval, _split_impl,
                                     kind="data_movement", linear_in=(0,))


def split(operand, sizes: Sequence[int], axis: int = 0):
    """Split ``operand`` along ``axis`` into a list of pieces of the given ``sizes``
    (NumPy integers are kept as given: JAX prints ``sizes=(np.int64(2),)``)."""
    axis = canonicalize_axis(axis, get_aval(operand).ndim)
    sizes = tuple(s if isinstance(s, np.integer) else operator.index(s) for s in sizes)
    return split_p.bind(operand, sizes=sizes, axis=axis)


def _unstack_abstract_eval(operand, *, axis):
    if operand.ndim == 0:
        raise ValueError("unstack requires arrays with rank > 0, however a scalar array "
                         f"of shape {operand.shape} was passed.")
    shape = operand.shape[:axis] + operand.shape[axis + 1:]
    return [operand.update(shape=shape)] * operand.shape[axis]


unstack_p = multiple_results_primitive(
    "unstack", _unstack_abstract_eval,
    lambda x, *, axis: [np.take(x, i, axis=axis) for i in range(x.shape[axis])],
    kind="data_movement", linear_in=(0,))


def unstack(x, axis: int = 0):
    """The slices of ``x`` along ``axis``, as a tuple of arrays of one dimension less."""
    axis = canonicalize_axis(axis, get_aval(x).ndim)
    return tuple(unstack_p.bind(x, axis=axis))


def _tile_shape_rule(x, *, reps):
    if x.ndim != len(reps):
        raise TypeError("reps length must be equal to the ndim of x, got "
                        f"len(reps)={len(reps)} and x.ndim={x.ndim}.")
    return tuple(d * r for d, r in zip(x.shape, reps))


tile_p = standard_primitive("tile", _tile_shape_rule, _same_dtype,
                            lambda x, *, reps: np.tile(x, reps), _same_weak,
                            kind="data_movement", linear_in=(0,))


def tile(operand, reps: Sequence[int]):
    """Repeat ``operand`` ``reps[i]`` times along each dimension ``i``."""
    return tile_p.bind(operand, reps=tuple(operator.index(r) for r in reps))


# --- pad ------------------------------------------------------------------------------
def _pad_shape_rule(operand, padding_value, *, padding_config):
    if padding_value.ndim != 0:
        raise ValueError("padding_value must be a scalar; got "
                         f"np.shape(padding_value)={padding_value.shape}")
    if len(padding_config) != operand.ndim:
        raise ValueError("length of padding_config must equal the number of axes of "
                         f"operand, got padding_config {padding_config} for operand shape "
                         f"{operand.shape}")
    if not all(i >= 0 for _, _, i in padding_config):
        raise ValueError("interior padding in padding_config must be nonnegative, got "
                         f"padding_config {padding_config}")
    result = tuple(lo + hi + _dilated_size(d, i)
                   for (lo, hi, i), d in zip(padding_config, operand.shape))
    if not all(d >= 0 for d in result):
        raise ValueError(f"Dimension size after padding is not at least 0, got result shape "
                         f"{result}, for padding_config {padding_config} and operand shape "
                         f"{operand.shape}")
    return result


def _dilated_size(d: int, interior: int) -> int:
    """Size of a dimension of size ``d`` after inserting ``interior`` values between elements."""
    return 0 if d == 0 else (d - 1) * (interior + 1) + 1


def _pad_dtype_rule(operand, padding_value, **_):
    if operand.dtype != padding_value.dtype:
        raise TypeError("pad operand and padding_value must be same dtype: got "
                        f"{operand.dtype} and {padding_value.dtype}.")
    return operand.dtype


def _pad_impl(x, padding_value, *, padding_config):
    # Pad with the non-negative parts of (lo, hi) and the interior, then crop
    # the negative parts: a negative lo/hi removes elements from that edge.
    big = tuple(max(lo, 0) + _dilated_size(d, i) + max(hi, 0)
                for (lo, hi, i), d in zip(padding_config, x.shape))
    out = np.full(big, padding_value, dtype=x.dtype)
    place = tuple(slice(max(lo, 0), max(lo, 0) + _dilated_size(d, i), i + 1)
                  for (lo, hi, i), d in zip(padding_config, x.shape))
    out[place] = x
    crop = tuple(slice(max(-lo, 0), n - max(-hi, 0))
                 for (lo, hi, _), n in zip(padding_config, big))
    return out[crop]


pad_p = standard_primitive("pad", _pad_shape_rule, _pad_dtype_rule, _pad_impl,
                           kind="data_movement", linear_in=(0, 1))


def pad(operand, padding_value, padding_config: Sequence[tuple[int, int, int]]):
    """Pad ``operand`` with ``padding_value`` (a scalar of the same dtype).

    ``padding_config`` has one ``(low, high, interior)`` triple per dimension:
    ``low``/``high`` values are added at each end (negative values remove
    elements instead) and ``interior`` values between neighbouring elements.
    """
    # (NumPy integers are kept as they are, as JAX keeps them: its jaxprs print them)
    config = tuple(tuple(v if isinstance(v, np.integer) else operator.index(v) for v in triple)
                   for triple in padding_config)
    return pad_p.bind(operand, padding_value, padding_config=config)


# --- iota / full ------------------------------------------------------------------------
def _iota_shape_rule(*, dtype, shape, dimension, sharding):
    check_shapelike("iota", "shape", shape)
    if not 0 <= dimension < len(shape):
        raise ValueError("iota dimension must be between 0 and len(shape), got "
                         f"dimension={dimension} for shape={shape}")
    return shape


def _iota_dtype_rule(*, dtype, shape, dimension, sharding):
    if np.dtype(dtype) not in NUM:
        raise TypeError(f"iota does not accept dtype {np.dtype(dtype).name}. Accepted dtypes "
                        "are subtypes of integer, floating, complexfloating.")
    return dtype


def _iota_impl(*, dtype, shape, dimension, sharding):
    ramp = np.arange(shape[dimension], dtype=dtype)
    return np.broadcast_to(ramp.reshape([-1 if i == dimension else 1
                                         for i in range(len(shape))]), shape)


iota_p = standard_primitive("iota", _iota_shape_rule, _iota_dtype_rule, _iota_impl,
                            kind="broadcast")


def iota(dtype, size: int):
    """``[0, 1, ..., size - 1]`` as an array of ``dtype``."""
    return broadcasted_iota(dtype, (size,), 0)


def broadcasted_iota(dtype, shape, dimension: int, *, out_sharding=None):
    """An array of ``shape`` whose entries are their own index along ``dimension``."""
    dtype = check_user_dtype(dtype, "broadcasted_iota")
    return iota_p.bind(dtype=dtype, shape=canonicalize_shape(shape),
                       dimension=operator.index(dimension), sharding=out_sharding)


class MemorySpace(enum.Enum):
    """Where a buffer lives (JAX's ``core.MemorySpace``): printed ``MemorySpace.Device``."""
    Device = "device"
    Host = "host"
    Any = "any"


def _empty2_impl(*, dtype, memory_space):
    return np.zeros((), dtype)


empty2_p = standard_primitive("empty2", lambda **_: (), lambda *, dtype, memory_space: dtype,
                              _empty2_impl, weak_type_rule=lambda **_: False, kind="broadcast")


def empty2(dtype, *, memory_space=MemorySpace.Device):
    """A scalar whose value does not matter (zero here, as in XLA's lowering).

    JAX fills the residual slots a ``cond`` branch does not compute with it
    (broadcast to the slot's shape): every branch must return the same types.
    """
    return empty2_p.bind(dtype=np.dtype(dtype), memory_space=memory_space)


def empty_like_aval(aval):
    """``empty2`` broadcast to ``aval``'s shape: a placeholder of that type."""
    return broadcast(empty2(aval.dtype), tuple(aval.shape))


def full(shape, fill_value, dtype=None, *, sharding=None):
    """An array of ``shape`` filled with the scalar ``fill_value`` (cast to ``dtype`` if given).

    Without ``dtype`` the result takes ``fill_value``'s dtype and weak type:
    ``full((2,), 1.)`` is a weakly typed float32 array.
    """
    shape = canonicalize_shape(shape)
    if np.shape(fill_value):
        raise TypeError("full must be called with scalar fill_value, got fill_value.shape "
                        f"{np.shape(fill_value)}.")
    if dtype is None:
        weak_type = dtypes.is_weakly_typed(fill_value)
        fill_dtype = dtypes.dtype(fill_value, canonicalize=True)
    else:
        weak_type = False
        fill_dtype = check_user_dtype(dtype, "full")
    return broadcast(_convert_element_type(fill_value, fill_dtype, weak_type), shape)


def full_like(x, fill_value, dtype=None, shape=None, sharding=None):
    """An array like ``x`` (its shape and dtype unless given) filled with ``fill_value``."""
    fill_shape = np.shape(x) if shape is None else canonicalize_shape(shape)
    weak_type = dtype is None and dtypes.is_weakly_typed(x)
    if dtype is None:
        dtype = dtypes.dtype(x, canonicalize=True)
    else:
        dtype = dtypes.canonicalize_dtype(_PYTHON_TYPE_DTYPES.get(dtype) or _as_dtype(dtype))
    return full(fill_shape, _convert_element_type(fill_value, dtype, weak_type))
