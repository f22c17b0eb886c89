"""Chapter 08 — ``associative_scan``: a prefix scan in ``O(log n)`` parallel steps.

``scan`` is sequential: step ``k`` needs step ``k - 1``'s carry. When the
combining function is *associative* (``fn(a, fn(b, c)) == fn(fn(a, b), c)``:
``+``, ``*``, ``max``, matrix products...) the prefixes can be computed as a
tree instead (Blelloch 1990):

1. combine neighbours pairwise: ``[a0+a1, a2+a3, ...]`` (half as many);
2. scan that half-length array recursively: these are the prefixes at the
   *odd* positions;
3. the *even* positions are one more combination: ``odd[k-1] + a[2k]``;
4. interleave evens and odds.

No primitive is needed: the result is ordinary slicing, ``fn``, ``pad`` and
``concatenate`` on whole arrays (``fn`` must work elementwise along ``axis``),
so every transformation already handles it. The jaxpr has ``O(log n)``
rounds of vectorized operations instead of ``n`` sequential steps.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from minijax import lax
from minijax.core import get_aval
from minijax.lax.base import canonicalize_axis
from minijax.tree_util import tree_flatten, tree_unflatten

__all__ = ["associative_scan"]


def associative_scan(fn: Callable, elems, reverse: bool = False, axis: int = 0):
    """All prefix combinations of ``elems`` along ``axis``: ``[a, fn(a, b), fn(fn(a, b), c), ...]``.

    ``elems`` is a pytree of arrays with one common size along ``axis``;
    ``fn(a, b)`` takes and returns such pytrees (of slices), elementwise along
    ``axis``. With ``reverse=True`` the prefixes run from the end.

    >>> associative_scan(operator.add, jnp.arange(4))  # doctest: +SKIP
    Array([0, 1, 3, 6], dtype=int32)
    """
    if not callable(fn):
        raise TypeError("lax.associative_scan: fn argument should be callable.")
    elems_flat, tree = tree_flatten(elems)
    axis = canonicalize_axis(axis, get_aval(elems_flat[0]).ndim)
    if reverse:
        elems_flat = [lax.rev(x, [axis]) for x in elems_flat]

    def combine(a_flat, b_flat):
        out = fn(tree_unflatten(tree, a_flat), tree_unflatten(tree, b_flat))
        return tree_flatten(out)[0]

    num_elems = get_aval(elems_flat[0]).shape[axis]
    if not all(get_aval(x).shape[axis] == num_elems for x in elems_flat[1:]):
        raise ValueError("Array inputs to associative_scan must have the same first dimension. "
                         f"(saw: {[get_aval(x).shape for x in elems_flat]})")

    def sl(x, start, limit, stride=1):
        return lax.slice_in_dim(x, start, limit, stride=stride, axis=axis)

    def prefix(elems):
        n = get_aval(elems[0]).shape[axis]
        if n < 2:
            return elems
        odd = prefix(combine([sl(x, 0, -1, 2) for x in elems], [sl(x, 1, None, 2) for x in elems]))
        if n % 2 == 0:
            even = combine([sl(e, 0, -1) for e in odd], [sl(x, 2, None, 2) for x in elems])
        else:
            even = combine(odd, [sl(x, 2, None, 2) for x in elems])
        even = [lax.concatenate([sl(x, 0, 1), e], axis) for x, e in zip(elems, even)]
        return [_interleave(e, o, axis) for e, o in zip(even, odd)]

    scans = prefix(elems_flat)
    if reverse:
        scans = [lax.rev(x, [axis]) for x in scans]
    return tree_unflatten(tree, scans)


def _interleave(a, b, axis: int):
    """``[a0, b0, a1, b1, ...]`` along ``axis``: both padded with zero gaps, then added."""
    a_aval, b_aval = get_aval(a), get_aval(b)
    same = a_aval.shape[axis] == b_aval.shape[axis]
    a_pad = [(0, 0, 0)] * a_aval.ndim
    b_pad = [(0, 0, 0)] * b_aval.ndim
    a_pad[axis] = (0, 1 if same else 0, 1)
    b_pad[axis] = (1, 0 if same else 1, 1)
    op = lax.bitwise_or if a_aval.dtype == np.bool_ else lax.add
    return op(lax.pad(a, np.array(0, a_aval.dtype), a_pad),
              lax.pad(b, np.array(0, b_aval.dtype), b_pad))
