"""Chapter 00 — statistics of a sample: ``jax.scipy.stats.mode`` and ``sem``."""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

import minijax.numpy as jnp
from minijax.scipy.stats._common import check_nan_policy
from minijax import dtypes
from minijax.numpy.util import check_arraylike, promote_dtypes_inexact

__all__ = ["ModeResult", "mode", "sem"]


class ModeResult(NamedTuple):
    mode: object
    count: object


def mode(a, axis: int | None = 0, nan_policy: str = "propagate", keepdims: bool = False):
    """The most frequent value along ``axis`` (the smallest one on a tie) and how
    often it occurs.

    Each column is sorted, so equal values sit together; every entry's count is
    the number of entries equal to it (a comparison of the column with
    itself, ``n x n`` per column); the first entry of largest count is then
    the smallest most frequent value.
    """
    check_arraylike("mode", a)
    x = jnp.atleast_1d(a)
    check_nan_policy("mode", nan_policy)
    if axis is not None:
        if not -x.ndim <= axis < x.ndim:
            raise ValueError(f"axis {axis} is out of bounds for array of dimension {x.ndim}")
        axis %= x.ndim
    shape = x.shape
    if axis is None:
        out_shape = (1,) * len(shape) if keepdims else ()
        x, axis = x.ravel(), 0
    else:
        out_shape = tuple(1 if i == axis else s for i, s in enumerate(shape)) if keepdims \
            else tuple(s for i, s in enumerate(shape) if i != axis)
    x = jnp.moveaxis(x, axis, 0)
    x = x.reshape(x.shape[0], math.prod(x.shape[1:]))
    if x.shape[0] == 0:
        nan = jnp.full(x.shape[1:], np.nan, dtypes.canonicalize_dtype(float))
        return ModeResult(nan.reshape(out_shape), jnp.zeros_like(nan).reshape(out_shape))
    x = jnp.sort(x, axis=0)
    counts = jnp.sum(x[:, None, :] == x[None, :, :], axis=1, dtype=jnp.int32)
    best = jnp.argmax(counts, axis=0)
    values = jnp.take_along_axis(x, best[None], axis=0)[0]
    return ModeResult(values.reshape(out_shape), jnp.max(counts, axis=0).reshape(out_shape))


def sem(a, axis: int | None = 0, ddof: int = 1, nan_policy: str = "propagate", *,
        keepdims: bool = False):
    """The standard error of the mean: ``std(a, ddof) / sqrt(n)`` (``n`` without the
    NaNs for ``nan_policy="omit"``)."""
    check_arraylike("sem", a)
    b, = promote_dtypes_inexact(jnp.asarray(a))
    if nan_policy == "propagate":
        size = b.size if axis is None else b.shape[axis]
        return b.std(axis, ddof=ddof, keepdims=keepdims) / jnp.sqrt(size).astype(b.dtype)
    if nan_policy == "omit":
        count = (~jnp.isnan(b)).sum(axis, keepdims=keepdims)
        return jnp.nanstd(b, axis, ddof=ddof, keepdims=keepdims) / jnp.sqrt(count).astype(b.dtype)
    raise ValueError(f"{nan_policy} is not supported")
