"""Chapter 03 — ``minijax.scipy.interpolate.RegularGridInterpolator``: interpolate
values given on a rectilinear grid (possibly uneven spacing per axis).

For a query point, each axis' coordinate is located between two grid lines
(``searchsorted``) with its normalized distance ``t`` from the lower one. The
``"linear"`` result sums the ``2^ndim`` surrounding grid values, each
weighted by the product over axes of ``1 - t`` or ``t``; ``"nearest"``
takes the closer grid line on each axis. Points outside the grid get
``fill_value`` (NaN by default). The interpolator is a pytree (its grid,
values and fill value are leaves), so it can pass through ``jit``: that is
what makes this module chapter 03's.
"""
from __future__ import annotations

import itertools

import numpy as np

import minijax.numpy as jnp
from minijax import dtypes
from minijax.numpy.util import check_arraylike, promote_dtypes_inexact
from minijax.tree_util import register_pytree_node

__all__ = ["RegularGridInterpolator"]


def _points_array(points, ndim: int):
    """Query points as one array ``(..., ndim)``, from an array or a tuple of
    coordinate arrays (one per axis)."""
    if isinstance(points, tuple) and len(points) == 1:
        points = points[0]
    if isinstance(points, tuple):
        coords = jnp.broadcast_arrays(*points)
        return jnp.stack([c.astype(dtypes.canonicalize_dtype(float)) for c in coords], axis=-1)
    check_arraylike("_ndim_coords_from_arrays", points)
    points = jnp.asarray(points)
    return points.reshape(-1, ndim) if points.ndim == 1 else points


class RegularGridInterpolator:
    """``RegularGridInterpolator(points, values)(xi)``: ``values`` (grid axes first,
    then any trailing value axes) interpolated at ``xi``."""

    def __init__(self, points, values, method="linear", bounds_error=False,
                 fill_value=np.nan):
        if method not in ("linear", "nearest"):
            raise ValueError(f"method {method!r} is not defined")
        self.method = method
        self.bounds_error = bounds_error
        if bounds_error:
            raise NotImplementedError("`bounds_error` takes no effect under JIT")
        check_arraylike("RegularGridInterpolator", values)
        if len(points) > np.ndim(values):
            raise ValueError(f"there are {len(points)} point arrays, but values has "
                             f"{np.ndim(values)} dimensions")
        values, = promote_dtypes_inexact(jnp.asarray(values))
        if fill_value is not None:
            check_arraylike("RegularGridInterpolator", fill_value)
            fill_value = jnp.asarray(fill_value)
            if not np.can_cast(fill_value.dtype, values.dtype, casting="same_kind"):
                raise ValueError("fill_value must be either 'None' or of a type compatible "
                                 "with values")
        self.fill_value = fill_value
        check_arraylike("RegularGridInterpolator", *points)
        self.grid = tuple(jnp.asarray(p) for p in points)
        self.values = values

    def __call__(self, xi, method=None):
        method = self.method if method is None else method
        if method not in ("linear", "nearest"):
            raise ValueError(f"method {method!r} is not defined")
        ndim = len(self.grid)
        xi = _points_array(xi, ndim)
        if xi.shape[-1] != ndim:
            raise ValueError(f"the requested sample points xi have dimension {xi.shape[1]}, "
                             f"but this RegularGridInterpolator has dimension {ndim}")
        shape = xi.shape
        xi = xi.reshape(-1, shape[-1])
        indices, distances, outside = self._locate(xi.T)
        if method == "linear":
            result = self._linear(indices, distances)
        else:
            result = self.values[tuple(jnp.where(t <= 0.5, i, i + 1)
                                       for i, t in zip(indices, distances))]
        if self.fill_value is not None:
            result = jnp.where(outside.reshape(result.shape[:1] + (1,) * (result.ndim - 1)),
                               self.fill_value, result)
        return result.reshape(shape[:-1] + self.values.shape[ndim:])

    def _linear(self, indices, distances):
        extra = (slice(None),) + (None,) * (self.values.ndim - len(indices))
        total = jnp.asarray(0.0)
        for corner in itertools.product(*[[i, i + 1] for i in indices]):
            weight = jnp.asarray(1.0)
            for c, i, t in zip(corner, indices, distances):
                weight = weight * jnp.where(c == i, 1 - t, t)
            total = total + self.values[corner] * weight[extra]
        return total

    def _locate(self, xi):
        """Per axis: the lower grid line's index (clipped to the last cell), the
        normalized distance from it, and whether any coordinate is off the grid."""
        indices, distances = [], []
        outside = jnp.zeros((xi.shape[1],), dtype=bool)
        for x, g in zip(xi, self.grid):
            i = jnp.clip(jnp.searchsorted(g, x) - 1, 0, g.size - 2)
            indices.append(i)
            distances.append((x - g[i]) / (g[i + 1] - g[i]))
            outside = outside | (x < g[0]) | (x > g[-1])
        return indices, distances, outside


register_pytree_node(
    RegularGridInterpolator,
    lambda obj: ((obj.grid, obj.values, obj.fill_value), (obj.method, obj.bounds_error)),
    lambda aux, children: RegularGridInterpolator(*children[:2], *aux, *children[2:]),
)
