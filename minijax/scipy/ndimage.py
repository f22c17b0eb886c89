"""Chapter 00 — ``minijax.scipy.ndimage.map_coordinates``: sample an array between
its grid points.

Each output value is the input read at a fractional coordinate (one per axis).
Order 0 takes the nearest grid point; order 1 is multilinear: along each axis
a coordinate ``c`` lies between ``floor(c)`` and ``floor(c) + 1`` with weights
``1 - frac`` and ``frac``, and the result is the weighted sum over all
``2^ndim`` corners. ``mode`` says what an index outside the array reads.
"""
from __future__ import annotations

import functools
import itertools
import operator

import numpy as np

import minijax.numpy as jnp
from minijax import lax

__all__ = ["map_coordinates"]


def _mirror(index, size: int):
    """Reflect about the edge samples: ``... 2 1 | 0 1 2 ... n-1 | n-2 ...``."""
    s = size - 1  # half a period of the triangle wave
    return jnp.abs((index + s) % (2 * s) - s)


def _reflect(index, size: int):
    """Reflect about the edges themselves: ``... 1 0 | 0 1 ... n-1 | n-1 n-2 ...``."""
    return jnp.floor_divide(_mirror(2 * index + 1, 2 * size + 1) - 1, 2)


#: mode -> how an index outside ``[0, size)`` becomes one inside
_INDEX_FIXERS = {
    "constant": lambda index, size: index,  # (then masked to cval)
    "nearest": lambda index, size: jnp.clip(index, 0, size - 1),
    "wrap": lambda index, size: index % size,
    "mirror": _mirror,
    "reflect": _reflect,
}


def _round(a):
    """Round half away from zero (what SciPy does); integers stay."""
    return a if np.issubdtype(a.dtype, np.integer) else lax.round(a)


def _nearest(coordinate):
    return [(_round(coordinate).astype(np.int32), coordinate.dtype.type(1))]


def _linear(coordinate):
    lower = jnp.floor(coordinate)
    upper_weight = coordinate - lower
    index = lower.astype(np.int32)
    return [(index, 1 - upper_weight), (index + 1, upper_weight)]


def map_coordinates(input, coordinates, order: int, mode: str = "constant", cval=0.0):
    """``input`` interpolated (``order`` 0 or 1) at ``coordinates``, a sequence of
    ``input.ndim`` arrays of one shape (the output's)."""
    x = jnp.asarray(input)
    coords = [jnp.asarray(c) for c in coordinates]
    cval = jnp.asarray(cval, x.dtype)
    if len(coords) != x.ndim:
        raise ValueError(f"coordinates must be a sequence of length input.ndim, but "
                         f"{len(coords)} != {x.ndim}")
    fix = _INDEX_FIXERS.get(mode)
    if fix is None:
        raise NotImplementedError(
            f"jax.scipy.ndimage.map_coordinates does not yet support mode {mode}. "
            f"Currently supported modes are {set(_INDEX_FIXERS)}.")
    if order not in (0, 1):
        raise NotImplementedError("jax.scipy.ndimage.map_coordinates currently requires "
                                  "order<=1")
    nodes_of = _nearest if order == 0 else _linear
    per_axis = []  # for each axis: (fixed index, in range?, weight) per node
    for coordinate, size in zip(coords, x.shape):
        per_axis.append([(fix(index, size),
                          (0 <= index) & (index < size) if mode == "constant" else True,
                          weight)
                         for index, weight in nodes_of(coordinate)])
    terms = []
    for corner in itertools.product(*per_axis):  # every corner of the cell
        indices, valid, weights = zip(*corner)
        value = x[tuple(indices)]
        if not all(v is True for v in valid):
            value = jnp.where(functools.reduce(operator.and_, valid), value, cval)
        terms.append(functools.reduce(operator.mul, weights) * value)
    result = sum(terms[1:], terms[0])
    if np.issubdtype(x.dtype, np.integer):
        result = _round(result)
    return result.astype(x.dtype)
