"""Chapter 00 — reductions over sliding windows: pooling, and its derivatives.

``reduce_window`` slides a window over an array and reduces each window to
one element: max pooling is ``reduce_window_max`` with a 2x2 window and
stride 2, average pooling a ``reduce_window_sum`` divided by the window's
size. Its parameters (XLA's):

- ``window_dimensions`` and ``window_strides``, one per axis of the operand;
- ``padding``: ``(low, high)`` per axis, filled with the reduction's
  identity (``0`` for a sum, ``-inf`` for a max), so padding never wins;
- ``base_dilation``: holes between the operand's elements (also filled with
  the identity), ``window_dilation``: holes between the window's elements.

Three reductions have primitives of their own, as in JAX: the sum, the max
and the min (:func:`reduce_window` picks them when the computation is
``lax.add``/``lax.max``/``lax.min`` starting from its identity). The sum is
linear. The max and min have derivatives that pick, in each window, the
tangent of the element that won: :data:`select_and_gather_add_p` (its jvp),
whose transpose scatters each cotangent back onto the winner,
:data:`select_and_scatter_add_p` (the gradient of max pooling). "Winner"
is XLA's: the first element of the window (in row-major order) that is
``>=`` (``ge``, for the max) or ``<=`` (``le``) every other.
"""
from __future__ import annotations

import operator
from typing import Sequence

import numpy as np

from minijax import dtypes
from minijax.abstract_arrays import get_aval
from minijax.lax.base import standard_primitive
from minijax.lax.convolution import dilate_shape, padtype_to_pads, strided_size

__all__ = ["reduce_window", "reduce_window_shape_tuple"]


# =============================================================================
# Shapes
# =============================================================================
def _check_shapelike(what: str, values, nonzero: bool = False) -> None:
    if not all(int(v) >= (1 if nonzero else 0) for v in values):
        kind = "strictly positive" if nonzero else "nonnegative"
        raise TypeError(f"reduce_window {what} must have every element be {kind}, got "
                        f"{tuple(values)}.")


def reduce_window_shape_tuple(operand_shape, window_dimensions, window_strides, padding,
                              base_dilation=None, window_dilation=None) -> tuple[int, ...]:
    """The shape of a windowed reduction's result."""
    if base_dilation is not None:
        operand_shape = dilate_shape(operand_shape, base_dilation)
    if window_dilation is not None:
        window_dimensions = dilate_shape(window_dimensions, window_dilation)
    padded = [n + lo + hi for n, (lo, hi) in zip(operand_shape, padding)]
    return tuple(strided_size(p, w, s) for p, w, s in zip(padded, window_dimensions,
                                                           window_strides))


def _window_shape_rule(operand, *, window_dimensions, window_strides, padding,
                       base_dilation, window_dilation):
    _check_shapelike("window_dimensions", window_dimensions, nonzero=True)
    _check_shapelike("window_strides", window_strides, nonzero=True)
    _check_shapelike("base_dilation", base_dilation)
    _check_shapelike("window_dilation", window_dilation)
    if operand.ndim != len(window_dimensions):
        raise TypeError("reduce_window got the wrong number of window_dimensions for operand: "
                        f"got operand shape {operand.shape} with window_dimensions "
                        f"{tuple(window_dimensions)}.")
    for name, values in (("window_strides", window_strides), ("base_dilation", base_dilation),
                         ("window_dilation", window_dilation)):
        if len(values) != len(window_dimensions):
            raise TypeError(f"reduce_window got inconsistent {name} and window_dimensions: got "
                            f"{name} {tuple(values)} and window_dimensions "
                            f"{tuple(window_dimensions)}.")
    return reduce_window_shape_tuple(operand.shape, window_dimensions, window_strides, padding,
                                     base_dilation, window_dilation)


def _same_dtype(operand, *others, **_):
    return operand.dtype


def _sum_dtype(operand, **_):
    if not dtypes.issubdtype(operand.dtype, np.number):
        raise TypeError("operand to reduce_window_sum must have a number dtype, got "
                        f"{np.dtype(operand.dtype).name}")
    return operand.dtype


# =============================================================================
# Impl: every window as a view, then one NumPy reduction
# =============================================================================
def identity_of(kind: str, dtype):
    """The value padding and holes hold: it never changes the reduction."""
    dtype = np.dtype(dtype)
    if kind == "sum":
        return np.zeros((), dtype)
    if dtype == np.bool_:
        return np.array(kind == "min")
    if dtypes.issubdtype(dtype, np.floating):
        return np.array(-np.inf if kind == "max" else np.inf, dtype)
    info = np.iinfo(dtype)
    return np.array(info.min if kind == "max" else info.max, dtype)


def windows(x: np.ndarray, fill, window_dimensions, window_strides, padding, base_dilation,
            window_dilation) -> np.ndarray:
    """Every window of ``x``: an array of shape ``out_shape + window_dimensions``
    (``x`` dilated and padded with ``fill`` first)."""
    axes = tuple(range(x.ndim))
    filled = np.full(dilate_shape(x.shape, base_dilation), fill, x.dtype)
    filled[tuple(slice(None, None, d) for d in base_dilation)] = x
    widths = [(max(lo, 0), max(hi, 0)) for lo, hi in padding]
    filled = np.pad(filled, widths, constant_values=fill)
    filled = filled[tuple(slice(max(-lo, 0), filled.shape[a] - max(-hi, 0))
                          for a, (lo, hi) in enumerate(padding))]
    span = dilate_shape(window_dimensions, window_dilation)
    out_shape = reduce_window_shape_tuple(x.shape, window_dimensions, window_strides, padding,
                                          base_dilation, window_dilation)
    if 0 in out_shape or 0 in span:
        return np.full(out_shape + tuple(window_dimensions), fill, x.dtype)
    view = np.lib.stride_tricks.sliding_window_view(filled, span, axis=axes)
    view = view[tuple(slice(0, n * s, s) for n, s in zip(out_shape, window_strides))]
    return view[(Ellipsis,) + tuple(slice(None, None, d) for d in window_dilation)]


def _reduce_impl(kind: str):
    reduce = {"sum": np.sum, "max": np.max, "min": np.min}[kind]

    def impl(x, *, window_dimensions, window_strides, padding, base_dilation, window_dilation):
        x = np.asarray(x)
        w = windows(x, identity_of(kind, x.dtype), window_dimensions, window_strides, padding,
                    base_dilation, window_dilation)
        axes = tuple(range(x.ndim, 2 * x.ndim))
        return np.asarray(reduce(w, axis=axes, dtype=x.dtype) if kind == "sum"
                          else reduce(w, axis=axes, initial=identity_of(kind, x.dtype)))
    return impl


reduce_window_sum_p = standard_primitive(
    "reduce_window_sum", _window_shape_rule, _sum_dtype, _reduce_impl("sum"),
    kind="other", linear_in=(0,))
reduce_window_max_p = standard_primitive(
    "reduce_window_max", _window_shape_rule, _same_dtype, _reduce_impl("max"), kind="other")
reduce_window_min_p = standard_primitive(
    "reduce_window_min", _window_shape_rule, _same_dtype, _reduce_impl("min"), kind="other")


# --- the derivatives of max and min pooling ------------------------------------------------
def _winners(operand, select_prim, window_dimensions, window_strides, padding,
             base_dilation, window_dilation):
    """For each window, the flat index (in the window) of XLA's winner."""
    kind = "max" if select_prim.name == "ge" else "min"
    w = windows(np.asarray(operand), identity_of(kind, np.asarray(operand).dtype),
                window_dimensions, window_strides, padding, base_dilation, window_dilation)
    flat = w.reshape(w.shape[:np.ndim(operand)] + (-1,))
    return (np.argmax if kind == "max" else np.argmin)(flat, axis=-1)  # the first best


def _gather_shape_rule(tangents, operand, *, select_prim, window_dimensions, window_strides,
                       padding, base_dilation, window_dilation):
    if tangents.shape != operand.shape:
        raise TypeError("select_and_gather_add tangents and operand shapes must match, got "
                        f"{tangents.shape} and {operand.shape}.")
    return _window_shape_rule(operand, window_dimensions=window_dimensions,
                              window_strides=window_strides, padding=padding,
                              base_dilation=base_dilation, window_dilation=window_dilation)


def _gather_impl(tangents, operand, *, select_prim, window_dimensions, window_strides,
                 padding, base_dilation, window_dilation):
    tangents = np.asarray(tangents)
    win = _winners(operand, select_prim, window_dimensions, window_strides, padding,
                   base_dilation, window_dilation)
    t = windows(tangents, np.zeros((), tangents.dtype), window_dimensions, window_strides,
                padding, base_dilation, window_dilation)
    t = t.reshape(t.shape[:tangents.ndim] + (-1,))
    return np.take_along_axis(t, win[..., None], axis=-1)[..., 0]


def _scatter_shape_rule(source, operand, *, select_prim, window_dimensions, window_strides,
                        padding):
    return operand.shape


def _scatter_impl(source, operand, *, select_prim, window_dimensions, window_strides, padding):
    """Each element of ``source`` added onto the winner of its window of ``operand``."""
    operand, source = np.asarray(operand), np.asarray(source)
    ones = (1,) * operand.ndim
    win = _winners(operand, select_prim, window_dimensions, window_strides, padding, ones, ones)
    offsets = np.unravel_index(win, tuple(window_dimensions))
    grid = np.indices(win.shape)
    coords = [g * s + o - lo for g, s, o, (lo, _) in zip(grid, window_strides, offsets, padding)]
    inside = np.ones(win.shape, bool)  # a window of padding alone chooses no element
    for c, n in zip(coords, operand.shape):
        inside &= (c >= 0) & (c < n)
    out = np.zeros(operand.shape, source.dtype)
    np.add.at(out, tuple(c[inside] for c in coords), source[inside])
    return out


select_and_gather_add_p = standard_primitive(
    "select_and_gather_add", _gather_shape_rule, _same_dtype, _gather_impl, kind="other",
    linear_in=(0,))
select_and_scatter_add_p = standard_primitive(
    "select_and_scatter_add", _scatter_shape_rule, _same_dtype, _scatter_impl, kind="other",
    linear_in=(0,))


# =============================================================================
# Wrappers
# =============================================================================
def _ints(values) -> tuple[int, ...]:
    return tuple(operator.index(v) for v in values)


def reduce_window(operand, init_value, computation, window_dimensions: Sequence[int],
                  window_strides: Sequence[int] | None = None, padding="VALID",
                  base_dilation: Sequence[int] | None = None,
                  window_dilation: Sequence[int] | None = None):
    """Reduce every window of ``operand`` with ``computation``, from ``init_value``.

    ``padding`` is ``'VALID'``, ``'SAME'``, ``'SAME_LOWER'`` or one ``(low,
    high)`` pair per axis. ``lax.add`` from ``0``, ``lax.max`` from ``-inf``
    (the dtype's lowest) and ``lax.min`` from ``inf`` are the three windowed
    reductions with a primitive of their own; another computation is traced
    to a jaxpr (a later chapter registers that form).
    """
    rank = len(window_dimensions)
    window_dimensions = _ints(window_dimensions)
    window_strides = (1,) * rank if window_strides is None else _ints(window_strides)
    base_dilation = (1,) * rank if base_dilation is None else _ints(base_dilation)
    window_dilation = (1,) * rank if window_dilation is None else _ints(window_dilation)
    if isinstance(padding, str):
        first = operand
        while isinstance(first, (list, tuple)) and first:  # a tree of operands: its first leaf
            first = first[0]
        padding = padtype_to_pads(get_aval(first).shape,
                                  dilate_shape(window_dimensions, window_dilation),
                                  window_strides, padding)
    padding = tuple((operator.index(lo), operator.index(hi)) for lo, hi in padding)
    params = dict(window_dimensions=window_dimensions, window_strides=window_strides,
                  padding=padding, base_dilation=base_dilation,
                  window_dilation=window_dilation)
    prim = _monoid_primitive(computation, operand, init_value)
    if prim is not None:
        return prim.bind(operand, **params)
    if _GENERIC[0] is None:
        raise NotImplementedError("reduce_window with a computation other than lax.add, "
                                  "lax.max or lax.min from its identity needs chapter 08")
    return _GENERIC[0](operand, init_value, computation, **params)


#: ``reduce_window`` with any other computation: set by chapter 08, which traces
#: ``computation`` to a jaxpr (the generic ``reduce_window`` primitive).
_GENERIC: list = [None]


def register_generic_reduce_window(fn) -> None:
    """Chapter 08 registers the generic form (a computation traced to a jaxpr)."""
    _GENERIC[0] = fn


def _monoid_primitive(computation, operand, init_value):
    """The primitive of ``computation`` starting from ``init_value``, when they
    are a sum/max/min and its identity (JAX's monoid reducers), else None."""
    from minijax.lax import elementwise as ew
    if isinstance(operand, (list, tuple)) or isinstance(init_value, (list, tuple)):
        return None
    try:
        init = np.asarray(init_value)
    except Exception:  # a tracer: not a constant
        return None
    if init.shape != () or init.dtype == object:
        return None
    dtype = get_aval(operand).dtype
    value = init.astype(dtype) if np.can_cast(init.dtype, dtype, "same_kind") else init
    for fn, kind, prim in ((ew.add, "sum", reduce_window_sum_p), (ew.max, "max", reduce_window_max_p),
                           (ew.min, "min", reduce_window_min_p)):
        if computation is fn and bool(np.asarray(value == identity_of(kind, dtype))):
            return prim
    return None
