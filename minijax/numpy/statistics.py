"""Chapter 00 — differences, histograms, quantiles, covariances and convolutions.

None of these needs a new primitive: each is a few lines of ``jnp`` —
slices and subtraction (``diff``, ``gradient``), ``searchsorted`` and a
scatter-add (``digitize``, ``bincount``, ``histogram``, ``interp``), a sort
and a linear blend of neighbours (``quantile``), and a sum of shifted
products (``convolve``). The ``nan*`` variants replace NaNs by a neutral
value (or sort them to the end) and count only the real entries.
"""
from __future__ import annotations

import builtins
import operator

import numpy as np

from minijax import dtypes
from minijax import lax
from minijax.lax import _convert_element_type
from minijax.lax.convolution import conv_general_dilated
from minijax.numpy import creation as _c, reductions as _r, shapes as _s, sorting as _so
from minijax.numpy import ufuncs as _u
from minijax.numpy.indexing import take_along_axis
from minijax.numpy.tensor_contractions import dot
from minijax.numpy.util import (check_arraylike, jnp_jit, promote_dtypes,
                                promote_dtypes_inexact)

__all__ = [
    "diff", "ediff1d", "bincount", "digitize", "histogram", "histogram_bin_edges",
    "interp", "quantile", "percentile", "nanquantile", "nanpercentile", "nanmedian",
    "nanvar", "nanstd", "nancumsum", "nancumprod", "nanargmax", "nanargmin", "cov",
    "corrcoef", "convolve", "correlate", "trapezoid", "gradient", "unwrap",
]


def _slice(a, axis, start, stop):
    index = [slice(None)] * a.ndim
    index[axis] = slice(start, stop)
    return a[tuple(index)]


def diff(a, n=1, axis=-1, prepend=None, append=None):
    """The ``n``-th discrete difference along ``axis`` (bool arrays use ``!=``)."""
    check_arraylike("diff", a)
    a = _c.asarray(a)
    n = operator.index(n)
    if n < 0:
        raise ValueError(f"order must be non-negative but got {n}")
    if a.ndim == 0:
        raise ValueError(f"diff requires input that is at least one dimensional; got {a}")
    axis = axis % a.ndim
    parts = []
    for extra in (prepend, append):
        if extra is None:
            parts.append(None)
            continue
        extra = _c.asarray(extra)
        if extra.ndim == 0:
            shape = list(a.shape)
            shape[axis] = 1
            extra = _s.broadcast_to(extra, tuple(shape))
        parts.append(extra)
    a = _s.concatenate([p for p in (parts[0], a, parts[1]) if p is not None], axis)
    for _ in range(n):
        hi, lo = _slice(a, axis, 1, None), _slice(a, axis, None, -1)
        a = _u.not_equal(hi, lo) if a.dtype == np.bool_ else hi - lo
    return a


def ediff1d(ary, to_end=None, to_begin=None):
    """Differences of consecutive elements of ``ravel(ary)``, with optional ends."""
    ary = _s.ravel(_c.asarray(ary))
    result = ary[1:] - ary[:-1]
    pieces = [_s.ravel(_c.asarray(to_begin).astype(ary.dtype))] if to_begin is not None else []
    pieces.append(result)
    if to_end is not None:
        pieces.append(_s.ravel(_c.asarray(to_end).astype(ary.dtype)))
    return _s.concatenate(pieces) if len(pieces) > 1 else result


def trapezoid(y, x=None, dx=1.0, axis=-1):
    """Integral of ``y`` by the trapezoidal rule along ``axis``."""
    y = _c.asarray(y)
    y = y if dtypes.issubdtype(y.dtype, np.inexact) else y.astype(dtypes.default_float_dtype)
    axis = axis % y.ndim
    if x is None:
        d = dx
    else:
        d = diff(_c.asarray(x), axis=-1 if _c.asarray(x).ndim == 1 else axis)
        if d.ndim == 1:
            d = d.reshape((-1,) + (1,) * (y.ndim - 1 - axis))
    mid = (_slice(y, axis, 1, None) + _slice(y, axis, None, -1)) * 0.5
    return _r.sum(d * mid, axis=axis)


def _gradient_along(f, h, ax):
    """One axis of :func:`gradient`: spacing ``h`` is a scalar or the coordinates."""
    first = _slice(f, ax, 1, 2) - _slice(f, ax, 0, 1)
    last = _slice(f, ax, -1, None) - _slice(f, ax, -2, -1)
    if h.ndim == 0:
        inner = (_slice(f, ax, 2, None) - _slice(f, ax, None, -2)) * 0.5 / h
        return _s.concatenate([first / h, inner, last / h], ax)
    if h.ndim != 1:
        raise ValueError("Spacing arrays must be 1D arrays or scalars.")
    if h.shape[0] != f.shape[ax]:
        raise ValueError("Spacing arrays must have the same length as the "
                         "dimension along which the gradient is calculated.")
    x = h.reshape(tuple(-1 if i == ax else 1 for i in range(f.ndim)))
    dx1 = _slice(x, ax, 1, -1) - _slice(x, ax, 0, -2)    # the step to the left ...
    dx2 = _slice(x, ax, 2, None) - _slice(x, ax, 1, -1)  # ... and to the right
    # the second-order-accurate weights of the three neighbours on an uneven grid
    w_left = -dx2 / (dx1 * (dx1 + dx2))
    w_mid = (dx2 - dx1) / (dx1 * dx2)
    w_right = dx1 / (dx2 * (dx1 + dx2))
    inner = (w_left * _slice(f, ax, 0, -2) + w_mid * _slice(f, ax, 1, -1)
             + w_right * _slice(f, ax, 2, None))
    first = first / (_slice(x, ax, 1, 2) - _slice(x, ax, 0, 1))
    last = last / (_slice(x, ax, -1, None) - _slice(x, ax, -2, -1))
    return _s.concatenate([first, inner, last], ax)


def gradient(f, *varargs, axis=None, edge_order=None):
    """Central differences inside, one-sided at the ends.

    Each spacing in ``varargs`` is a scalar step or a 1-D array of the
    coordinates along its axis (then the inner points use the three-point
    formula for uneven steps); one spacing serves every axis.
    """
    if edge_order is not None:
        raise NotImplementedError("The 'edge_order' argument to jnp.gradient is not supported.")
    check_arraylike("gradient", f, *varargs)
    f, *spacing = promote_dtypes_inexact(_c.asarray(f), *(_c.asarray(h) for h in varargs))
    axes = tuple(range(f.ndim)) if axis is None else (
        (axis,) if isinstance(axis, int) else tuple(axis))
    axes = tuple(ax % f.ndim for ax in axes)
    if not axes:
        return []
    if builtins.min(f.shape[ax] for ax in axes) < 2:
        raise ValueError("Shape of array too small to calculate a numerical gradient, "
                         "at least 2 elements are required.")
    if not spacing:
        spacing = [_c.asarray(1.0, f.dtype)] * len(axes)
    elif len(spacing) == 1:
        spacing = spacing * len(axes)
    elif len(spacing) != len(axes):
        raise TypeError(f"Invalid number of spacing arguments {len(spacing)} for {axis=}")
    out = [_gradient_along(f, h, ax) for ax, h in zip(axes, spacing)]
    return out[0] if len(out) == 1 else out


def unwrap(p, discont=None, axis=-1, period=2 * np.pi):
    """Undo jumps larger than ``period/2`` by adding multiples of ``period``."""
    p, = promote_dtypes_inexact(_c.asarray(p))
    discont = period / 2 if discont is None else discont
    dd = diff(p, axis=axis)
    half = period / 2
    ddmod = _u.remainder(dd + half, period) - half
    ddmod = _u.where((ddmod == -half) & (dd > 0), half, ddmod)
    correct = _u.where(_u.abs(dd) < discont, 0, ddmod - dd)
    axis = axis % p.ndim
    head = _slice(p, axis, 0, 1)
    return _s.concatenate([head, _slice(p, axis, 1, None) + _r.cumsum(correct, axis)], axis)


# --- counting and binning ----------------------------------------------------

def bincount(x, weights=None, minlength=0, *, length=None):
    """How often each non-negative int occurs; ``length`` fixes the output size."""
    check_arraylike("bincount", x)
    x = _c.asarray(x)
    if not dtypes.issubdtype(x.dtype, np.integer):
        raise TypeError(f"x argument to bincount must have an integer type; got {x.dtype}")
    if x.ndim != 1:
        raise ValueError("only 1-dimensional input supported.")
    minlength = operator.index(minlength)
    if length is None:
        length = max(minlength, int(_r.max(x)) + 1 if x.shape[0] else 0)
    weights = (_c.ones_like(x) if weights is None else _c.asarray(weights))
    return _c.zeros(length, weights.dtype).at[_u.clip(x, 0, None)].add(weights, mode="drop")


def digitize(x, bins, right=False, *, method=None):
    """The index of the bin each ``x`` falls in (``bins`` increasing or decreasing)."""
    x, bins = _c.asarray(x), _c.asarray(bins)
    if bins.ndim != 1:
        raise ValueError(f"digitize: bins must be a 1-dimensional array; got bins={bins}")
    if bins.shape[0] == 0:
        return _c.zeros_like(x, dtype=dtypes.default_int_dtype)
    side = "left" if right else "right"
    up = _so.searchsorted(bins, x, side=side)
    down = bins.shape[0] - _so.searchsorted(bins[::-1], x, side=side)
    return _u.where(bins[-1] >= bins[0], up, down).astype(dtypes.default_int_dtype)


def histogram_bin_edges(a, bins=10, range=None, weights=None):
    """The ``bins + 1`` equally spaced edges over ``range`` (or the data's span)."""
    a = _s.ravel(_c.asarray(a))
    if not isinstance(bins, int):
        return _c.asarray(bins)
    dtype = a.dtype if dtypes.issubdtype(a.dtype, np.inexact) else dtypes.default_float_dtype
    lo, hi = (_r.min(a), _r.max(a)) if range is None else range
    lo, hi = _c.asarray(lo, dtype), _c.asarray(hi, dtype)
    hi = _u.where(lo == hi, hi + 0.5, hi)
    lo = _u.where(lo == hi - 0.5, lo - 0.5, lo) if range is None else lo
    return _c.linspace(lo, hi, bins + 1, dtype=dtype)


def histogram(a, bins=10, range=None, weights=None, density=None):
    """Counts (or densities) of ``a`` in each bin, and the bin edges."""
    a = _s.ravel(_c.asarray(a))
    edges = histogram_bin_edges(a, bins, range, weights)
    weights = _c.ones_like(a, dtype=edges.dtype) if weights is None else _s.ravel(weights)
    idx = _so.searchsorted(edges, a, side="right")
    idx = _u.where(a == edges[-1], edges.shape[0] - 1, idx)  # last bin is closed
    counts = _c.zeros(edges.shape[0] + 1, weights.dtype).at[idx].add(weights)[1:-1]
    if density:
        widths = diff(edges)
        counts = counts / widths / _r.sum(counts)
    return counts, edges


def interp(x, xp, fp, left=None, right=None, period=None):
    """Piecewise-linear interpolation of ``(xp, fp)`` at ``x``."""
    x, xp, fp = promote_dtypes_inexact(_c.asarray(x), _c.asarray(xp), _c.asarray(fp))
    if period is not None:
        x = _u.remainder(x - xp[0], period) + xp[0]
        xp = _s.concatenate([xp[-1:] - period, xp, xp[:1] + period])
        fp = _s.concatenate([fp[-1:], fp, fp[:1]])
    i = _u.clip(_so.searchsorted(xp, x, side="right"), 1, xp.shape[0] - 1)
    dx = xp[i] - xp[i - 1]
    t = _u.where(dx == 0, 0.0, (x - xp[i - 1]) / _u.where(dx == 0, 1.0, dx))
    out = fp[i - 1] + t * (fp[i] - fp[i - 1])
    if period is None:
        out = _u.where(x < xp[0], fp[0] if left is None else left, out)
        out = _u.where(x > xp[-1], fp[-1] if right is None else right, out)
    return out.astype(fp.dtype)


# --- quantiles ---------------------------------------------------------------

_QUANTILE_METHODS = ("linear", "lower", "higher", "midpoint", "nearest", "inverted_cdf")


def _lane_weights(weights, a, axis):
    """``weights`` broadcast to ``a``'s shape (they may cover only ``axis``)."""
    weights = _c.asarray(weights)
    if dtypes.issubdtype(weights.dtype, np.complexfloating):
        raise ValueError("Weights cannot be complex types.")
    if weights.shape == a.shape:
        return weights
    if axis is None:
        raise ValueError("Weights shape must match 'a' shape when axis is None.")
    if weights.shape != (a.shape[axis],):
        raise ValueError(f"Weights shape {weights.shape} must match reduction axes "
                         f"{(a.shape[axis],)}")
    return _s.broadcast_to(weights.reshape(tuple(-1 if i == axis else 1
                                                 for i in range(a.ndim))), a.shape)


def _inverted_cdf(a, weights, q, skip_nan):
    """The first sorted value whose cumulative weight reaches ``q`` of the total.

    ``a`` is sorted along its last axis and ``weights`` sorted with it.
    Negative or NaN weights make the result NaN; NaN data weigh nothing
    (and, without ``skip_nan``, make the result NaN).
    """
    bad = (weights < 0) | _u.isnan(weights)
    nan_data = _u.isnan(a)
    weights = _u.where(bad | nan_data, 0, weights)
    cum = _r.cumsum(weights, axis=-1)
    target = q.reshape(q.shape + (1,) * a.ndim) * cum[..., -1:]
    below = (cum < target).astype(np.int32)               # q + rest + (n,)
    n_valid = (_r.sum(~nan_data, axis=-1, keepdims=True) if skip_nan
               else _c.full(a.shape[:-1] + (1,), a.shape[-1], np.int32))
    index = _u.clip(_r.sum(below, axis=-1, keepdims=True), 0,
                    _u.maximum(n_valid - 1, 0).astype(np.int32))
    out = take_along_axis(_s.broadcast_to(a, q.shape + a.shape), index, -1)[..., 0]
    force_nan = _r.any(bad, axis=-1) | (
        (n_valid[..., 0] == 0) if skip_nan else _r.any(nan_data, axis=-1))
    return _u.where(force_nan, np.nan, out)


def _quantile(name, a, q, axis, keepdims, skip_nan, method, weights=None):
    """Sort along ``axis`` and pick (or blend) the two neighbours of position ``q*(n-1)``.

    ``low = floor(pos)`` and ``high = ceil(pos)`` are the neighbours; the
    ``method`` says what to return: ``"linear"`` blends them with weights
    ``1 - frac`` and ``frac``, ``"lower"``/``"higher"`` take one,
    ``"midpoint"`` averages them and ``"nearest"`` takes the closer one
    (``low`` on a tie, as JAX does). ``"inverted_cdf"`` (the only method
    that takes ``weights``) instead walks the cumulative weights. The result
    has shape ``q.shape + reduced shape``. Without ``skip_nan`` a NaN
    anywhere along ``axis`` makes that quantile NaN; with it the NaNs
    (sorted to the end) are left out of ``n``.
    """
    if method not in _QUANTILE_METHODS:
        raise ValueError("method can only be 'linear', 'lower', 'higher', 'midpoint', "
                         f"'nearest' or 'inverted_cdf'; got {method!r}")
    if weights is not None and method != "inverted_cdf":
        raise NotImplementedError(f"{method} doesn't support weights. Only method "
                                  "'inverted_cdf' supports weights.")
    check_arraylike(name, a, q)
    a, q = promote_dtypes_inexact(_c.asarray(a), _c.asarray(q))
    if dtypes.issubdtype(a.dtype, np.complexfloating):
        raise ValueError("quantile does not support complex input, as the operation is "
                         "poorly defined.")
    if q.ndim > 1:
        raise ValueError(f"q must be have rank <= 1, got shape {q.shape}")
    if method == "inverted_cdf":
        weights = (_c.ones_like(a) if weights is None
                   else _lane_weights(weights, a, axis).astype(a.dtype))
    if isinstance(axis, tuple):  # several axes: move them last and merge them into one
        if weights is not None:
            raise NotImplementedError("minijax: quantile weights with a tuple axis")
        axes = tuple(operator.index(ax) % a.ndim for ax in axis)
        if len(set(axes)) != len(axes):
            raise ValueError("repeated axis")
        keep_shape = tuple(1 if i in axes else d for i, d in enumerate(a.shape))
        a = _s.moveaxis(a, axes, tuple(range(a.ndim - len(axes), a.ndim)))
        a = a.reshape(a.shape[:a.ndim - len(axes)] + (-1,))
        axis = a.ndim - 1
    elif axis is None:
        keep_shape = (1,) * a.ndim
        a, axis = _s.ravel(a), 0
        weights = None if weights is None else _s.ravel(weights)
    else:
        axis = operator.index(axis) % a.ndim
        keep_shape = tuple(1 if i == axis else d for i, d in enumerate(a.shape))
    a = _s.moveaxis(a, axis, -1)
    if not skip_nan:  # one NaN poisons its whole lane
        a = _u.where(_r.any(_u.isnan(a), axis=-1, keepdims=True), np.nan, a)
    if weights is not None:  # sort the weights along with their values
        order = _so.argsort(a, axis=-1)
        a = take_along_axis(a, order, -1)
        out = _inverted_cdf(a, take_along_axis(_s.moveaxis(weights, axis, -1), order, -1),
                            q, skip_nan)
        out = out.reshape(q.shape + keep_shape) if keepdims else out
        return _convert_element_type(out, a.dtype, False)  # never weakly typed, as JAX
    a = _so.sort(a, axis=-1)  # NaNs sort to the end
    n = a.shape[-1]
    count = _r.sum(~_u.isnan(a), axis=-1, keepdims=True).astype(q.dtype) if skip_nan else n
    q_b = q.reshape(q.shape + (1,) * a.ndim)
    pos = q_b * (count - 1)                         # shape q + rest + (1,)
    last = _u.maximum(count - 1, 0)
    lo = _u.clip(_u.floor(pos), 0, last)
    hi = _u.clip(_u.ceil(pos), 0, last)
    hi_weight = pos - _u.floor(pos)
    a_b = _s.broadcast_to(a, q.shape + a.shape)
    lo_v = take_along_axis(a_b, lo.astype(np.int32), -1)[..., 0]
    hi_v = take_along_axis(a_b, hi.astype(np.int32), -1)[..., 0]
    hi_weight = hi_weight[..., 0]
    if method == "linear":
        out = lo_v * (1 - hi_weight) + hi_v * hi_weight
    elif method == "lower":
        out = lo_v
    elif method == "higher":
        out = hi_v
    elif method == "nearest":
        out = _u.where(hi_weight <= 0.5, lo_v, hi_v)
    else:  # midpoint
        out = (lo_v + hi_v) * 0.5
    if skip_nan:
        out = _u.where((count == 0)[..., 0], np.nan, out)
    if keepdims:
        out = out.reshape(q.shape + keep_shape)
    return _convert_element_type(out, a.dtype, False)  # never weakly typed, as JAX


def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
             keepdims=False, *, weights=None):
    """The ``q``-th quantiles (``0 <= q <= 1``) of ``a`` along ``axis``."""
    return _quantile("quantile", a, q, axis, keepdims, False, method, weights)


def nanquantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                keepdims=False, *, weights=None):
    """:func:`quantile` ignoring NaNs."""
    return _quantile("nanquantile", a, q, axis, keepdims, True, method, weights)


def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
               keepdims=False, *, weights=None):
    """The ``q``-th percentiles (``0 <= q <= 100``): quantile of ``q / 100``."""
    q, = promote_dtypes_inexact(_c.asarray(q))
    return _quantile("percentile", a, q / 100, axis, keepdims, False, method, weights)


def nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                  keepdims=False, *, weights=None):
    """:func:`percentile` ignoring NaNs."""
    q, = promote_dtypes_inexact(_c.asarray(q))
    return _quantile("nanpercentile", a, q / 100, axis, keepdims, True, method, weights)


def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """The median ignoring NaNs."""
    return _quantile("nanmedian", a, 0.5, axis, keepdims, True, "linear")


# --- the remaining nan-reductions --------------------------------------------

def _nan_to(a, value):
    a = _c.asarray(a)
    if not dtypes.issubdtype(a.dtype, np.inexact):
        return a
    return _u.where(_u.isnan(a), _c.asarray(value, a.dtype), a)


def nancumsum(a, axis=None, dtype=None, out=None):
    """Cumulative sum treating NaNs as zero."""
    return _r.cumsum(_nan_to(a, 0), axis=axis, dtype=dtype)


def nancumprod(a, axis=None, dtype=None, out=None):
    """Cumulative product treating NaNs as one."""
    return _r.cumprod(_nan_to(a, 1), axis=axis, dtype=dtype)


def nanargmax(a, axis=None, out=None, keepdims=None):
    """Index of the largest non-NaN value (-1 where a slice is all NaN)."""
    a = _c.asarray(a)
    if not dtypes.issubdtype(a.dtype, np.inexact):
        return _r.argmax(a, axis=axis, keepdims=keepdims)
    nan = _u.isnan(a)
    res = _r.argmax(_u.where(nan, -np.inf, a), axis=axis, keepdims=keepdims)
    return _u.where(_r.all(nan, axis=axis, keepdims=keepdims), -1, res)


def nanargmin(a, axis=None, out=None, keepdims=None):
    """Index of the smallest non-NaN value (-1 where a slice is all NaN)."""
    a = _c.asarray(a)
    if not dtypes.issubdtype(a.dtype, np.inexact):
        return _r.argmin(a, axis=axis, keepdims=keepdims)
    nan = _u.isnan(a)
    res = _r.argmin(_u.where(nan, np.inf, a), axis=axis, keepdims=keepdims)
    return _u.where(_r.all(nan, axis=axis, keepdims=keepdims), -1, res)


def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None, *,
           correction=None, mean=None):
    """Variance ignoring NaNs (and the entries ``where`` masks out).

    The NaNs are centred to zero, so they add nothing to the sum of squares,
    and the count of the others (less ``ddof``) divides it; a lane with no
    more than ``ddof`` such entries gives NaN. ``mean`` may be given.
    """
    check_arraylike("nanvar", a)
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.nanvar is not supported.")
    ddof = ddof if correction is None else correction
    a = _c.asarray(a)
    compute_dtype, result_dtype = _r._var_dtypes(a.dtype, dtype)
    if dtype is None and dtypes.issubdtype(result_dtype, np.complexfloating):
        result_dtype = dtypes.finfo(result_dtype).dtype  # a variance is real
    a = a.astype(compute_dtype)
    if mean is None:
        mean = _r.nanmean(a, axis, dtype=compute_dtype, keepdims=True, where=where)
    else:
        mean = _c.asarray(mean).astype(compute_dtype)
    nan = _u.isnan(a)
    centered = _u.where(nan, 0, a - mean)
    if dtypes.issubdtype(centered.dtype, np.complexfloating):
        centered = _u.real(centered * _u.conj(centered))
    else:
        centered = _u.square(centered)
    count = _r.sum(~nan, axis=axis, keepdims=keepdims, where=where) - ddof
    too_few = count <= 0
    total = _r.sum(centered, axis=axis, keepdims=keepdims, where=where)
    total = _u.where(too_few, np.nan, total)
    out_ = total / _u.where(too_few, 1, count).astype(total.dtype)
    return out_.astype(result_dtype)


def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None, *,
           correction=None, mean=None):
    """Standard deviation ignoring NaNs: the square root of :func:`nanvar`."""
    return _u.sqrt(nanvar(a, axis, dtype, out, ddof, keepdims, where,
                          correction=correction, mean=mean))


# --- covariance --------------------------------------------------------------

def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None):
    """Covariance matrix of the variables in the rows (``rowvar``) of ``m``."""
    if fweights is not None or aweights is not None:
        raise NotImplementedError("minijax: cov with fweights/aweights")
    m, = promote_dtypes_inexact(_s.atleast_2d(m))
    if not rowvar and m.shape[0] != 1:
        m = m.T
    if y is not None:
        y, = promote_dtypes_inexact(_s.atleast_2d(y))
        y = y if rowvar or y.shape[0] == 1 else y.T
        m = _s.concatenate([m, y.astype(m.dtype)], 0)
    ddof = (0 if bias else 1) if ddof is None else ddof
    x = m - _r.mean(m, axis=1, keepdims=True)
    c = dot(x, _u.conj(x).T) / (m.shape[1] - ddof)
    return _s.squeeze(c)


def corrcoef(x, y=None, rowvar=True):
    """Pearson correlation coefficients (``cov`` normalised by the std devs)."""
    c = cov(x, y, rowvar)
    if c.ndim == 0:
        return c / c
    d = _u.sqrt(_s.diagonal(c).real if dtypes.issubdtype(c.dtype, np.complexfloating)
                else _s.diagonal(c))
    c = c / d[:, None] / d[None, :]
    return _u.clip(c, -1, 1) if not dtypes.issubdtype(c.dtype, np.complexfloating) else c


# --- 1-D convolution ---------------------------------------------------------

@jnp_jit("_conv", static_argnames=("mode", "op", "precision", "preferred_element_type"))
def _conv(x, y, mode, op, precision, preferred_element_type=None):
    """``conv_general_dilated`` of the two 1-D arrays as one-image, one-feature
    arrays (JAX's construction): ``correlate`` conjugates ``y``, ``convolve``
    flips it; the longer array slides under the shorter one."""
    if np.ndim(x) != 1 or np.ndim(y) != 1:
        raise ValueError(f"{op}() only support 1-dimensional inputs.")
    if preferred_element_type is None:  # NumPy's convolutions are inexact
        x, y = promote_dtypes_inexact(x, y)
    else:
        x, y = promote_dtypes(x, y)
    if len(x) == 0 or len(y) == 0:
        raise ValueError(f"{op}: inputs cannot be empty, got shapes {x.shape} and {y.shape}.")
    reverse = False
    if op == "correlate":
        y = _u.conj(y)
        if len(x) < len(y):
            x, y, reverse = y, x, True
    else:
        if len(x) < len(y):
            x, y = y, x
        y = _s.flip(y)
    k = y.shape[0]
    pads = {"valid": [(0, 0)], "same": [(k // 2, k - k // 2 - 1)], "full": [(k - 1, k - 1)]}
    if mode not in pads:
        raise ValueError("mode must be one of ['full', 'same', 'valid']")
    result = conv_general_dilated(lax.broadcast_in_dim(x, (1, 1, x.shape[0]), (2,)),
                                  lax.broadcast_in_dim(y, (1, 1, k), (2,)), (1,), pads[mode],
                                  precision=precision,
                                  preferred_element_type=preferred_element_type)
    return result[0, 0, ::-1] if reverse else result[0, 0, :]


@jnp_jit("convolve", static_argnames=("mode", "precision", "preferred_element_type"))
def convolve(a, v, mode="full", *, precision=None, preferred_element_type=None):
    """1-D convolution ``sum_j a[j] v[i - j]`` (``mode``: full, same, valid)."""
    check_arraylike("convolve", a, v)
    return _conv(_c.asarray(a), _c.asarray(v), mode=mode, op="convolve", precision=precision,
                 preferred_element_type=preferred_element_type)


@jnp_jit("correlate", static_argnames=("mode", "precision", "preferred_element_type"))
def correlate(a, v, mode="valid", *, precision=None, preferred_element_type=None):
    """1-D cross-correlation ``sum_j a[i + j] conj(v[j])``."""
    check_arraylike("correlate", a, v)
    return _conv(_c.asarray(a), _c.asarray(v), mode=mode, op="correlate", precision=precision,
                 preferred_element_type=preferred_element_type)
