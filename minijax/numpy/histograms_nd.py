"""Chapter 00 — ``jnp.histogramdd`` and ``jnp.histogram2d``: counting points in a grid of bins.

Each of the ``D`` coordinates of a point is binned on its own, exactly as
``jnp.histogram`` bins one (``searchsorted`` on the edges, the last bin
closed on the right); the ``D`` bin numbers are then flattened into one
(``ravel_multi_index``) and counted with one ``bincount``. Bin numbers 0
and ``len(edges)`` stand for "below" and "above" the range: the grid keeps
them as an outer ring of bins and drops the ring at the end.
"""
from __future__ import annotations

import builtins
import math

import numpy as np

from minijax.numpy import creation as _c, shapes as _s, sorting as _so, ufuncs as _u
from minijax.numpy.index_tricks import ix_, ravel_multi_index
from minijax.numpy.statistics import bincount, diff, histogram_bin_edges
from minijax.numpy.util import check_arraylike, promote_dtypes_inexact

__all__ = ["histogramdd", "histogram2d"]


def histogramdd(sample, bins=10, range=None, weights=None, density=None):
    """Counts of the ``(N, D)`` points of ``sample`` in a ``D``-dimensional grid of bins,
    and the ``D`` arrays of edges. ``bins`` is one count or edge array per dimension
    (or one for all); ``range`` one ``(lo, hi)`` pair or None per dimension."""
    if weights is None:
        check_arraylike("histogramdd", sample)
        (sample,) = promote_dtypes_inexact(_c.asarray(sample))
    else:
        check_arraylike("histogramdd", sample, weights)
        if np.shape(weights) != np.shape(sample)[:1]:
            raise ValueError("should have one weight for each sample.")
        sample, weights = promote_dtypes_inexact(_c.asarray(sample), _c.asarray(weights))
    n, d = np.shape(sample)
    if range is not None and (len(range) != d or builtins.any(
            r is not None and np.shape(r)[0] != 2 for r in range)):
        raise ValueError(f"For sample.shape={(n, d)}, range must be a sequence of {d} pairs "
                         f"or Nones; got range={range}")
    try:
        per_dim = list(bins)
    except TypeError:  # one bin count for every dimension
        per_dim = d * [bins]
    else:
        if len(per_dim) != d:
            raise ValueError("should be a bin for each dimension.")
    indices, edges = [], []
    for i in builtins.range(d):
        column = sample[:, i]
        e = histogram_bin_edges(column, per_dim[i], None if range is None else range[i],
                                weights)
        idx = _so.searchsorted(e, column, side="right")
        indices.append(_u.where(column == e[-1], idx - 1, idx))  # the last bin is closed
        edges.append(e)
    grid = tuple(e.shape[0] + 1 for e in edges)  # with the "below" and "above" bins
    flat = ravel_multi_index(tuple(indices), grid, mode="clip")
    hist = bincount(flat, weights, length=math.prod(grid)).reshape(grid)
    hist = hist[(slice(1, -1),) * d]
    if density:
        hist = hist.astype(sample.dtype)
        hist = hist / hist.sum()
        for width in ix_(*(diff(e) for e in edges)):
            hist = hist / width
    return hist, edges


def histogram2d(x, y, bins=10, range=None, weights=None, density=None):
    """Counts of the points ``(x[i], y[i])`` in a 2-D grid of bins, and the x and y edges."""
    check_arraylike("histogram2d", x, y)
    try:
        count = len(bins)
    except TypeError:
        count = 1
    if count not in (1, 2):  # one edge array for both axes
        bins = [_c.asarray(bins), _c.asarray(bins)]
    sample = _s.transpose(_c.asarray([x, y]))
    hist, edges = histogramdd(sample, bins, range, weights, density)
    return hist, edges[0], edges[1]
