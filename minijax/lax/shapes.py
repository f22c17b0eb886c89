"""Chapter 00 — shape primitives: broadcasting, reshaping, squeezing.

These move data without computing on it. Their impl rules are NumPy views
where possible; their abstract-evaluation rules are where shape mistakes are
caught, with JAX's messages.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from minijax.abstract_arrays import get_aval
from minijax.lax.base import canonicalize_axis, standard_primitive

__all__ = ["broadcast_in_dim", "broadcast", "broadcast_to_rank", "reshape",
           "squeeze", "expand_dims"]


def _same_dtype(x, **_):
    return x.dtype


def _same_weak(x, **_):
    return x.weak_type


# --- broadcast_in_dim -----------------------------------------------------------
def _broadcast_in_dim_shape_rule(operand, *, shape, broadcast_dimensions, sharding):
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
    _broadcast_in_dim_impl, _same_weak)


def broadcast_in_dim(operand, shape: Sequence[int], broadcast_dimensions: Sequence[int],
                     *, out_sharding=None):
    """Broadcast ``operand`` to ``shape``; operand dim ``i`` becomes output dim ``broadcast_dimensions[i]``."""
    shape, bdims = tuple(int(d) for d in shape), tuple(int(d) for d in broadcast_dimensions)
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
                               _reshape_impl, _same_weak)


def reshape(operand, new_sizes: Sequence[int], dimensions: Sequence[int] | None = None,
            *, out_sharding=None):
    """Reshape ``operand`` to ``new_sizes`` (row-major), optionally transposing first."""
    new_sizes = tuple(int(d) for d in new_sizes)
    aval = get_aval(operand)
    dims = None if dimensions is None or tuple(dimensions) == tuple(range(aval.ndim)) \
        else tuple(int(d) for d in dimensions)
    if aval.shape == new_sizes and dims is None and hasattr(operand, "aval"):
        return operand
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
    lambda x, *, dimensions: np.squeeze(x, axis=dimensions), _same_weak)


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
