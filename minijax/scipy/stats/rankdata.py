"""Chapter 00 — ``jax.scipy.stats.rankdata``: the rank of each value in its sample.

Sorting gives every value its place; equal values (ties) then share a rank
by one of five rules: ``"ordinal"`` (their places, in order of appearance),
``"min"``/``"max"`` (the first/last place of the tie), ``"average"`` (the
mean of the two) and ``"dense"`` (the tie's number among distinct values).
Ranks are 1-based floats; a sample containing NaN ranks as all NaN.
"""
from __future__ import annotations

import numpy as np

import minijax.numpy as jnp
from minijax.scipy.stats._common import check_nan_policy
from minijax import dtypes, lax

__all__ = ["rankdata"]

_METHODS = ("average", "min", "max", "dense", "ordinal")


def _ranks_along_last_axis(a, method: str):
    n = a.shape[-1]
    out_dtype = dtypes.canonicalize_dtype(float)
    order = jnp.argsort(a, axis=-1, stable=True)
    place = jnp.argsort(order, axis=-1, stable=True)  # the inverse permutation
    if method == "ordinal":
        return (place + 1).astype(out_dtype)
    ordered = jnp.take_along_axis(a, order, axis=-1)
    first = jnp.ones(a.shape[:-1] + (1,), bool)
    starts = jnp.concatenate([first, ordered[..., 1:] != ordered[..., :-1]], axis=-1)
    if method == "dense":
        group = jnp.cumsum(starts, axis=-1)  # 1, 1, 2, 3, 3, ... along the sorted sample
        return jnp.take_along_axis(group, place, axis=-1).astype(out_dtype)
    positions = jnp.broadcast_to(jnp.arange(n), a.shape)
    # each sorted position's tie begins at the last start so far and ends just
    # before the next start (a running max from the left, a running min from the right)
    tie_first = lax.cummax(jnp.where(starts, positions, 0), axis=a.ndim - 1)
    ends = jnp.concatenate([starts[..., 1:], first], axis=-1)
    tie_last = lax.cummin(jnp.where(ends, positions, n - 1), axis=a.ndim - 1, reverse=True)
    low = jnp.take_along_axis(tie_first, place, axis=-1).astype(out_dtype) + 1
    high = jnp.take_along_axis(tie_last, place, axis=-1).astype(out_dtype) + 1
    return {"min": low, "max": high, "average": 0.5 * (low + high)}[method]


def rankdata(a, method: str = "average", *, axis: int | None = None,
             nan_policy: str = "propagate"):
    """The 1-based ranks of ``a`` (flattened, or along ``axis``), ties by ``method``."""
    a = jnp.asarray(a)
    check_nan_policy("rankdata", nan_policy)
    if method not in _METHODS:
        raise ValueError(f"unknown method '{method}'")
    if axis is None:
        a, axis = jnp.ravel(a), 0
    x = jnp.moveaxis(a, axis, -1)
    if x.shape[-1] == 0:
        return jnp.moveaxis(x.astype(dtypes.canonicalize_dtype(float)), -1, axis)
    ranks = _ranks_along_last_axis(x, method)
    has_nan = jnp.any(jnp.isnan(x), axis=-1, keepdims=True)
    ranks = jnp.where(has_nan, np.nan, ranks)
    return jnp.moveaxis(ranks, -1, axis)
